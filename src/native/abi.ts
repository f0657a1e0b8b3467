// koffi declarations mirroring kernels/include/xhd.h. Keep the two in step: XHD_ABI_VERSION guards it.
import koffi from 'koffi';

export const XHD_ABI_VERSION = 11;

export const XHD_OK = 0;
export const XHD_ERROR_INVALID_ARGUMENT = 1;
export const XHD_ERROR_OUT_OF_MEMORY = 2;
export const XHD_ERROR_CANCELLED = 3;
export const XHD_ERROR_UNAVAILABLE = 5;

export const STATUS_NAMES: Record<number, string> = {
  0: 'ok',
  1: 'invalid argument',
  2: 'out of memory',
  3: 'cancelled',
  4: 'internal error',
  5: 'unavailable',
};

export const METHOD_CODES = { grid: 0, eb: 1, brute: 2 } as const;
export const DIRECTION_AB = 1;
export const DIRECTION_BA = 2;

/** The structs declared below, by name: checked against the library's own layouts at load (xhd_struct_size). */
export const ABI_STRUCTS: string[] = [];

/** koffi.struct, recording the name for that check. */
function abiStruct(name: string, fields: Record<string, string | koffi.IKoffiCType>): koffi.IKoffiCType {
  ABI_STRUCTS.push(name);
  return koffi.struct(name, fields);
}

// Types are registered once per process by name; the functions below refer to them by name.
abiStruct('xhd_points', { xyz: 'const float *', count: 'uint64_t', xyz64: 'const double *' });

/** An xhd_points argument: float32 coordinates go as xyz, doubles as xyz64 (the library's truth either way). */
export function pointsArg(coordinates: Float32Array | Float64Array): { xyz: Float32Array | null; count: number; xyz64: Float64Array | null } {
  const floats = coordinates instanceof Float32Array;
  return { xyz: floats ? coordinates : null, count: coordinates.length / 3, xyz64: floats ? null : coordinates };
}

/** An xhd_mesh argument: float32 vertices go as xyz, doubles as xyz64. */
export function meshArg(positions: Float32Array | Float64Array, triangles: Uint32Array) {
  const floats = positions instanceof Float32Array;
  return {
    xyz: floats ? positions : null,
    vertex_count: positions.length / 3,
    triangles,
    triangle_count: triangles.length / 3,
    xyz64: floats ? null : positions,
  };
}
abiStruct('xhd_hausdorff_options', {
  method: 'int32_t',
  directions: 'int32_t',
  threads: 'int32_t',
  device: 'int32_t',
  seed: 'uint64_t',
  cell_size: 'double',
});
abiStruct('xhd_directed', {
  distance: 'double',
  from_index: 'int64_t',
  to_index: 'int64_t',
  build_ms: 'double',
  query_ms: 'double',
  distance_evals: 'uint64_t',
  pruned_queries: 'uint64_t',
  fallback_queries: 'uint64_t',
  grid_dims: koffi.array('uint32_t', 3, 'Array'),
  cell_size: 'float',
  exact_checks: 'uint64_t',
  exact_ms: 'double',
});
abiStruct('xhd_hausdorff_result', {
  ab: 'xhd_directed',
  ba: 'xhd_directed',
  upload_ms: 'double',
  download_ms: 'double',
  peak_device_bytes: 'uint64_t',
  device: 'int32_t',
  query_chunks: 'uint32_t',
  origin: koffi.array('double', 3, 'Array'),
});
abiStruct('xhd_device_info', {
  name: koffi.array('char', 256, 'String'),
  ordinal: 'int32_t',
  compute_major: 'int32_t',
  compute_minor: 'int32_t',
  multiprocessors: 'int32_t',
  total_memory: 'uint64_t',
  free_memory: 'uint64_t',
  driver_version: 'int32_t',
  runtime_version: 'int32_t',
});

abiStruct('xhd_mesh', {
  xyz: 'const float *',
  vertex_count: 'uint64_t',
  triangles: 'const uint32_t *',
  triangle_count: 'uint64_t',
  xyz64: 'const double *',
});
abiStruct('xhd_surface_options', { method: 'int32_t', threads: 'int32_t', device: 'int32_t', reserved: 'int32_t' });
abiStruct('xhd_surface_result', {
  build_ms: 'double',
  query_ms: 'double',
  upload_ms: 'double',
  download_ms: 'double',
  peak_device_bytes: 'uint64_t',
  triangle_tests: 'uint64_t',
  device: 'int32_t',
  reserved: 'uint32_t',
  origin: koffi.array('double', 3, 'Array'),
});

abiStruct('xhd_nearest_result', {
  build_ms: 'double',
  query_ms: 'double',
  distance_evals: 'uint64_t',
  device: 'int32_t',
  reserved: 'uint32_t',
});

export const SURFACE_METHOD_CODES = { bvh: 0, brute: 1, grid: 2 } as const;

abiStruct('xhd_distance_options', { which: 'int32_t', method: 'int32_t', threads: 'int32_t', device: 'int32_t' });
abiStruct('xhd_distance_pair', {
  distance: 'double',
  triangle_a: 'int64_t',
  triangle_b: 'int64_t',
  point_a: koffi.array('double', 3, 'Array'),
  point_b: koffi.array('double', 3, 'Array'),
  intersecting: 'int32_t',
  reserved: 'int32_t',
});
abiStruct('xhd_distance_result', {
  min: 'xhd_distance_pair',
  max: 'xhd_distance_pair',
  query_ms: 'double',
  upload_ms: 'double',
  download_ms: 'double',
  box_pairs: 'uint64_t',
  triangle_pairs: 'uint64_t',
  peak_device_bytes: 'uint64_t',
  device: 'int32_t',
  iterations: 'uint32_t',
});
koffi.opaque('xhd_distance_context');

export const DISTANCE_MIN = 1;
export const DISTANCE_MAX = 2;
export const DISTANCE_METHOD_CODES = { bvh: 0, brute: 1 } as const;

export interface RawDistancePair {
  distance: number;
  triangle_a: number | bigint;
  triangle_b: number | bigint;
  point_a: number[];
  point_b: number[];
  intersecting: number;
}

export interface RawDistanceResult {
  min: RawDistancePair;
  max: RawDistancePair;
  query_ms: number;
  upload_ms: number;
  download_ms: number;
  box_pairs: number | bigint;
  triangle_pairs: number | bigint;
  peak_device_bytes: number | bigint;
  device: number;
  iterations: number;
}

/** Size in bytes of struct xhd_progress: done, total (uint64) then cancel, reserved (uint32). */
export const PROGRESS_BYTES = 24;

export interface RawDirected {
  distance: number;
  from_index: number | bigint;
  to_index: number | bigint;
  build_ms: number;
  query_ms: number;
  distance_evals: number | bigint;
  pruned_queries: number | bigint;
  fallback_queries: number | bigint;
  grid_dims: number[];
  cell_size: number;
  exact_checks: number | bigint;
  exact_ms: number;
}

export interface RawHausdorffResult {
  ab: RawDirected;
  ba: RawDirected;
  upload_ms: number;
  download_ms: number;
  peak_device_bytes: number | bigint;
  device: number;
  query_chunks: number;
  origin: number[];
}

export interface RawDeviceInfo {
  name: string;
  ordinal: number;
  compute_major: number;
  compute_minor: number;
  multiprocessors: number;
  total_memory: number | bigint;
  free_memory: number | bigint;
  driver_version: number;
  runtime_version: number;
}

export interface RawSurfaceResult {
  build_ms: number;
  query_ms: number;
  upload_ms: number;
  download_ms: number;
  peak_device_bytes: number | bigint;
  triangle_tests: number | bigint;
  device: number;
  origin: number[];
}

export interface RawNearestResult {
  build_ms: number;
  query_ms: number;
  distance_evals: number | bigint;
  device: number;
}

// Reading input files (CPU library only): see "Reading input files" in kernels/include/xhd.h.
abiStruct('xhd_ply_vertex_layout', {
  body_offset: 'uint64_t',
  count: 'uint64_t',
  piece_bytes: 'uint64_t',
  stride: 'uint32_t',
  swap_bytes: 'int32_t',
  offset: koffi.array('int32_t', 3, 'Array'),
  type: koffi.array('int32_t', 3, 'Array'),
  output: 'int32_t',
  threads: 'int32_t',
});
abiStruct('xhd_read_result', {
  kind: 'int32_t',
  error_number: 'int32_t',
  record: 'uint64_t',
  byte: 'uint64_t',
  value: 'double',
  min: koffi.array('double', 3, 'Array'),
  max: koffi.array('double', 3, 'Array'),
});
abiStruct('xhd_delimited_layout', {
  slots: 'const int8_t *',
  column_count: 'int32_t',
  comma: 'int32_t',
  threads: 'int32_t',
  reserved: 'int32_t',
  piece_bytes: 'uint64_t',
});
abiStruct('xhd_delimited_result', {
  rows: 'uint64_t',
  plain: 'int32_t',
  reserved: 'int32_t',
  min: koffi.array('double', 3, 'Array'),
  max: koffi.array('double', 3, 'Array'),
});

abiStruct('xhd_file_read', { bytes: 'uint64_t', error_number: 'int32_t', reserved: 'int32_t' });

export interface RawFileRead {
  bytes: number | bigint;
  error_number: number;
}

export const XHD_READ_OK = 0;
export const XHD_READ_TRUNCATED = 1;
export const XHD_READ_BAD_VALUE = 2;
export const XHD_READ_SYSTEM_ERROR = 3;

export interface RawReadResult {
  kind: number;
  error_number: number;
  record: number | bigint;
  byte: number | bigint;
  value: number;
  min: number[];
  max: number[];
}

export interface RawDelimitedResult {
  rows: number | bigint;
  plain: number;
  min: number[];
  max: number[];
}

// Surface compare in one call (xhd_surface_compare): see that section of kernels/include/xhd.h.
abiStruct('xhd_surface_compare_options', {
  method: 'int32_t',
  directions: 'int32_t',
  sampling: 'int32_t',
  threads: 'int32_t',
  device: 'int32_t',
  reserved: 'int32_t',
  samples: 'uint64_t',
  density: 'double',
  seed: 'uint64_t',
});
abiStruct('xhd_surface_direction', {
  hd: 'double',
  min: 'double',
  mean: 'double',
  rms: 'double',
  e: 'double',
  samples: 'uint64_t',
  from_index: 'int64_t',
  to_index: 'int64_t',
  from_point: koffi.array('double', 3, 'Array'),
  to_point: koffi.array('double', 3, 'Array'),
  queries_from: 'int32_t',
  reserved: 'int32_t',
  queries: 'const float *',
  queries64: 'const double *',
  distances: 'const double *',
  build_ms: 'double',
  query_ms: 'double',
  upload_ms: 'double',
  download_ms: 'double',
  triangle_tests: 'uint64_t',
  peak_device_bytes: 'uint64_t',
});
abiStruct('xhd_surface_compare_result', {
  ab: 'xhd_surface_direction',
  ba: 'xhd_surface_direction',
  sample_ms: 'double',
  build_ms: 'double',
  query_ms: 'double',
  upload_ms: 'double',
  download_ms: 'double',
  peak_device_bytes: 'uint64_t',
  device: 'int32_t',
  threads: 'int32_t',
  origin: koffi.array('double', 3, 'Array'),
});

export const SAMPLING_CODES = { area: 0, vertices: 1, 'vertices+edges+faces': 2 } as const;
export const QUERIES_SAMPLES = 0;
export const QUERIES_POINTS = 1;
export const QUERIES_NO_AREA = 2;

/** A decoded xhd_surface_direction; the three arrays are the library's memory (null where none). */
export interface RawSurfaceDirection {
  hd: number;
  min: number;
  mean: number;
  rms: number;
  e: number;
  samples: number | bigint;
  from_index: number | bigint;
  to_index: number | bigint;
  from_point: number[];
  to_point: number[];
  queries_from: number;
  queries: unknown;
  queries64: unknown;
  distances: unknown;
  build_ms: number;
  query_ms: number;
  upload_ms: number;
  download_ms: number;
  triangle_tests: number | bigint;
  peak_device_bytes: number | bigint;
}

export interface RawSurfaceCompareResult {
  ab: RawSurfaceDirection;
  ba: RawSurfaceDirection;
  sample_ms: number;
  build_ms: number;
  query_ms: number;
  upload_ms: number;
  download_ms: number;
  peak_device_bytes: number | bigint;
  device: number;
  threads: number;
  origin: number[];
}

export const PROTOTYPES = {
  abiVersion: 'int32_t xhd_abi_version(void)',
  structSize: 'uint64_t xhd_struct_size(const char *name)',
  backendName: 'const char *xhd_backend_name(void)',
  lastError: 'const char *xhd_last_error(void)',
  deviceCount: 'int32_t xhd_device_count(void)',
  deviceInfo: 'int32_t xhd_device_info_get(int32_t ordinal, _Out_ xhd_device_info *info)',
  // libxhd_optix.so only.
  optixInfo: 'int32_t xhd_optix_info(int32_t ordinal, int32_t *optix_version, uint32_t *rtcore_version)',
  hausdorff:
    'int32_t xhd_hausdorff(const xhd_points *a, const xhd_points *b, const xhd_hausdorff_options *options, ' +
    '_Out_ xhd_hausdorff_result *result, void *progress)',
  pointSurfaceDistance:
    'int32_t xhd_point_surface_distance(const xhd_points *points, const xhd_mesh *mesh, ' +
    'const xhd_surface_options *options, double *distance, uint32_t *nearest_triangle, double *closest, ' +
    '_Out_ xhd_surface_result *result, void *progress)',
  distanceContextCreate:
    'int32_t xhd_distance_context_create(const xhd_mesh *a, const xhd_mesh *b, const xhd_distance_options *options, ' +
    '_Out_ xhd_distance_context **context, double *build_ms, void *progress)',
  distanceQuery:
    'int32_t xhd_distance_query(xhd_distance_context *context, const double *pose_b, _Out_ xhd_distance_result *result, void *progress)',
  // results: n xhd_distance_result records written in place into a buffer (src/native/distance-results.ts).
  distanceQueryMany:
    'int32_t xhd_distance_query_many(xhd_distance_context *context, const double *poses, uint64_t n, void *results, void *progress)',
  distanceContextDestroy: 'void xhd_distance_context_destroy(xhd_distance_context *context)',
  nearestPoints:
    'int32_t xhd_nearest_points(const xhd_points *queries, const xhd_points *targets, const xhd_hausdorff_options *options, ' +
    'double *distance, int64_t *nearest, _Out_ xhd_nearest_result *result, void *progress)',
  surfaceArea: 'int32_t xhd_surface_area(const xhd_mesh *mesh, double *area)',
  sampleSurface:
    'int32_t xhd_sample_surface(const xhd_mesh *mesh, uint64_t count, uint32_t *state, int32_t threads, float *xyz, ' +
    'double *xyz64)',
  readFile:
    'int32_t xhd_read_file(const char *path, uint64_t offset, uint64_t length, int32_t threads, uint8_t *buffer, _Out_ xhd_file_read *result)',
  readPlyVertices:
    'int32_t xhd_read_ply_vertices(const char *path, const xhd_ply_vertex_layout *layout, void *xyz, _Out_ xhd_read_result *result)',
  countLines: 'int32_t xhd_count_lines(const uint8_t *text, uint64_t length, int32_t threads, uint64_t *lines)',
  parseDelimited:
    'int32_t xhd_parse_delimited(const uint8_t *text, uint64_t length, const xhd_delimited_layout *layout, ' +
    'double *xyz, uint64_t capacity, _Out_ xhd_delimited_result *result)',
  surfaceCompare:
    'int32_t xhd_surface_compare(const xhd_mesh *a, const xhd_mesh *b, const xhd_surface_compare_options *options, ' +
    'xhd_surface_compare_result *result, void *progress)',
  surfaceCompareFree: 'void xhd_surface_compare_free(xhd_surface_compare_result *result)',
} as const;
