// The ABI of kernels/include/xhd.h in TypeScript: each struct declared once (declareStruct), its koffi
// layout and its TypeScript type both derived from that declaration; the loader checks every field's name
// and offset, and every struct's size, against the library's own (src/native/layout-check.ts), and
// XHD_ABI_VERSION guards the function signatures.
import koffi from './koffi.js';

import { declareStruct, type Decoded } from './struct-decl.js';

export const XHD_ABI_VERSION = 28;

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

/** Bits of xhd_capabilities(): the optional parts of the ABI a library implements (see xhd.h). */
export const XHD_CAP_NEAREST_POINTS = 1n << 0n;
export const XHD_CAP_FILE_READERS = 1n << 1n;
export const XHD_CAP_DELIMITED_TEXT = 1n << 2n;
export const XHD_CAP_DEVICES = 1n << 3n;
export const XHD_CAP_REFERENCE_METHODS = 1n << 4n;
export const XHD_CAP_STREAMED_COMPARE = 1n << 5n;

export const METHOD_CODES = { grid: 0, eb: 1, brute: 2 } as const;
export const DIRECTION_AB = 1;
export const DIRECTION_BA = 2;

// Types are registered once per process by name; the functions below refer to them by name.
export const POINTS = declareStruct('xhd_points', { xyz: 'const float *', count: 'uint64_t', xyz64: 'const double *' });

/** Bytes of xhd_progress.message, its NUL included (XHD_MESSAGE_BYTES). */
export const XHD_MESSAGE_BYTES = 1024;

/**
 * Shared with a running call: done and total written by the library, cancel set by the caller, and message, why
 * the call failed, written as it returns (src/native/progress-slot.ts).
 */
export const PROGRESS = declareStruct('xhd_progress', {
  done: 'uint64_t',
  total: 'uint64_t',
  cancel: 'uint32_t',
  reserved: 'uint32_t',
  message: ['char', XHD_MESSAGE_BYTES],
});

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

export const HAUSDORFF_OPTIONS = declareStruct('xhd_hausdorff_options', {
  method: 'int32_t',
  directions: 'int32_t',
  threads: 'int32_t',
  device: 'int32_t',
  seed: 'uint64_t',
  cell_size: 'double',
  distinct: 'int32_t',
  reserved: 'int32_t',
});
export const DIRECTED = declareStruct('xhd_directed', {
  distance: 'double',
  from_index: 'int64_t',
  to_index: 'int64_t',
  build_ms: 'double',
  query_ms: 'double',
  distance_evals: 'uint64_t',
  pruned_queries: 'uint64_t',
  fallback_queries: 'uint64_t',
  grid_dims: ['uint32_t', 3],
  cell_size: 'float',
  exact_checks: 'uint64_t',
  exact_ms: 'double',
});
export const HAUSDORFF_RESULT = declareStruct('xhd_hausdorff_result', {
  ab: DIRECTED,
  ba: DIRECTED,
  upload_ms: 'double',
  download_ms: 'double',
  peak_device_bytes: 'uint64_t',
  device: 'int32_t',
  query_chunks: 'uint32_t',
  origin: ['double', 3],
});
export const DEVICE_INFO = declareStruct('xhd_device_info', {
  name: ['char', 256],
  ordinal: 'int32_t',
  compute_major: 'int32_t',
  compute_minor: 'int32_t',
  multiprocessors: 'int32_t',
  total_memory: 'uint64_t',
  free_memory: 'uint64_t',
  driver_version: 'int32_t',
  runtime_version: 'int32_t',
});

export const MESH = declareStruct('xhd_mesh', {
  xyz: 'const float *',
  vertex_count: 'uint64_t',
  triangles: 'const uint32_t *',
  triangle_count: 'uint64_t',
  xyz64: 'const double *',
});
export const SURFACE_OPTIONS = declareStruct('xhd_surface_options', { method: 'int32_t', threads: 'int32_t', device: 'int32_t', reserved: 'int32_t' });
export const SURFACE_RESULT = declareStruct('xhd_surface_result', {
  build_ms: 'double',
  query_ms: 'double',
  upload_ms: 'double',
  download_ms: 'double',
  peak_device_bytes: 'uint64_t',
  triangle_tests: 'uint64_t',
  device: 'int32_t',
  reserved: 'uint32_t',
  origin: ['double', 3],
});

export const NEAREST_RESULT = declareStruct('xhd_nearest_result', {
  build_ms: 'double',
  query_ms: 'double',
  distance_evals: 'uint64_t',
  device: 'int32_t',
  reserved: 'uint32_t',
});

// xhd_points_compare's per-point outputs: native arrays the library fills (src/ops/points-search.ts).
export const PER_POINT = declareStruct('xhd_per_point', {
  distance_ab: 'void *',
  nearest_ab: 'void *',
  distance_ba: 'void *',
  nearest_ba: 'void *',
});

// xhd_points_compare_placed's workers: GPU ordinals (repeats allowed), each worker's memory limit, and what
// the run did (src/ops/points-search.ts).
export const PLACEMENT = declareStruct('xhd_placement', {
  devices: 'const int32_t *',
  device_count: 'uint32_t',
  spatial_directions: 'uint32_t',
  memory_limit: 'uint64_t',
  target_tiles: 'uint32_t',
  workers: 'uint32_t',
});

export const SURFACE_METHOD_CODES = { bvh: 0, brute: 1, grid: 2 } as const;

export const DISTANCE_OPTIONS = declareStruct('xhd_distance_options', { which: 'int32_t', method: 'int32_t', threads: 'int32_t', device: 'int32_t' });
export const DISTANCE_PAIR = declareStruct('xhd_distance_pair', {
  distance: 'double',
  triangle_a: 'int64_t',
  triangle_b: 'int64_t',
  point_a: ['double', 3],
  point_b: ['double', 3],
  intersecting: 'int32_t',
  reserved: 'int32_t',
});
export const DISTANCE_RESULT = declareStruct('xhd_distance_result', {
  min: DISTANCE_PAIR,
  max: DISTANCE_PAIR,
  query_ms: 'double',
  upload_ms: 'double',
  download_ms: 'double',
  box_pairs: 'uint64_t',
  triangle_pairs: 'uint64_t',
  peak_device_bytes: 'uint64_t',
  device: 'int32_t',
  iterations: 'uint32_t',
  contact_pairs: 'uint64_t',
  contact_min: ['double', 3],
  contact_max: ['double', 3],
  solids: 'int32_t',
  solids_flags: 'int32_t',
  penetration_lower: 'double',
  penetration_upper: 'double',
  penetration_direction: ['double', 3],
});
koffi.opaque('xhd_distance_context');

export const DISTANCE_MIN = 1;
export const DISTANCE_MAX = 2;
/** With DISTANCE_MIN: every triangle pair at distance 0, counted and bounded (CPU backend). */
export const DISTANCE_CONTACTS = 4;
/** With DISTANCE_MIN: each node's tight bounds made when a search first reaches it (CPU backend; for few queries). */
export const DISTANCE_ON_DEMAND = 8;
/** With DISTANCE_MIN, for closed meshes: whether the solids overlap, and bounds on the penetration depth (CPU backend). */
export const DISTANCE_PENETRATION = 16;
/** xhd_distance_result.solids, by code (XHD_SOLIDS_*). */
export const SOLIDS_NAMES = ['not asked', 'open', 'apart', 'overlap', 'undecided'] as const;
export const SOLIDS_A_CLOSED = 1;
export const SOLIDS_B_CLOSED = 2;
export const SOLIDS_CONVEX = 4;
export const DISTANCE_METHOD_CODES = { bvh: 0, brute: 1 } as const;

// Reading input files (XHD_CAP_FILE_READERS, XHD_CAP_DELIMITED_TEXT): see "Reading input files" in kernels/include/xhd.h.
export const PLY_VERTEX_LAYOUT = declareStruct('xhd_ply_vertex_layout', {
  body_offset: 'uint64_t',
  count: 'uint64_t',
  piece_bytes: 'uint64_t',
  stride: 'uint32_t',
  swap_bytes: 'int32_t',
  offset: ['int32_t', 3],
  type: ['int32_t', 3],
  output: 'int32_t',
  threads: 'int32_t',
  scale: ['double', 3],
  add: ['double', 3],
});
export const READ_RESULT = declareStruct('xhd_read_result', {
  kind: 'int32_t',
  error_number: 'int32_t',
  record: 'uint64_t',
  byte: 'uint64_t',
  value: 'double',
  min: ['double', 3],
  max: ['double', 3],
});
// A LAZ file's chunks and what to make of their records (xhd_read_laz, and a streamed LAZ point file below).
export const LAZ_JOB = declareStruct('xhd_laz_job', {
  chunks: 'const uint64_t *',
  chunk_count: 'uint64_t',
  point_count: 'uint64_t',
  items: 'const uint16_t *',
  item_count: 'uint32_t',
  record_length: 'uint32_t',
  scale: ['double', 3],
  offset: ['double', 3],
  classes: 'const uint8_t *',
  box: 'const double *',
  returns: 'int32_t',
  threads: 'int32_t',
  piece_bytes: 'uint64_t',
});
// The points compare streamed from files (XHD_CAP_STREAMED_COMPARE): a binary PLY's vertex records, an
// uncompressed LAS body or a LAZ body, and what the call did (src/jobs/compare-streamed.ts).
export const POINT_FILE = declareStruct('xhd_point_file', {
  path: 'const char *',
  layout: PLY_VERTEX_LAYOUT,
  laz: 'int32_t',
  laz_check_bounds: 'int32_t',
  laz_job: LAZ_JOB,
  laz_bounds: ['double', 6],
});
export const STREAMED = declareStruct('xhd_streamed', {
  memory_limit: 'uint64_t',
  slabs: 'uint32_t',
  passes: 'uint32_t',
  peak_bytes: 'uint64_t',
  second_pass_queries: 'uint64_t',
  bad_file: 'int32_t',
  slow_directions: 'int32_t',
  read: READ_RESULT,
  min_a: ['double', 3],
  max_a: ['double', 3],
  min_b: ['double', 3],
  max_b: ['double', 3],
  skipped_records: 'uint64_t',
  slow_slabs: 'uint64_t',
});
export const DELIMITED_LAYOUT = declareStruct('xhd_delimited_layout', {
  slots: 'const int8_t *',
  column_count: 'int32_t',
  comma: 'int32_t',
  threads: 'int32_t',
  reserved: 'int32_t',
  piece_bytes: 'uint64_t',
});
export const DELIMITED_RESULT = declareStruct('xhd_delimited_result', {
  rows: 'uint64_t',
  plain: 'int32_t',
  reserved: 'int32_t',
  min: ['double', 3],
  max: ['double', 3],
});

export const LAS_JOB = declareStruct('xhd_las_job', {
  body_offset: 'uint64_t',
  point_count: 'uint64_t',
  piece_bytes: 'uint64_t',
  every: 'uint64_t',
  record_length: 'uint32_t',
  extended: 'int32_t',
  scale: ['double', 3],
  offset: ['double', 3],
  classes: 'const uint8_t *',
  box: 'const double *',
  returns: 'int32_t',
  threads: 'int32_t',
});
export const LAS_RESULT = declareStruct('xhd_las_result', {
  kind: 'int32_t',
  error_number: 'int32_t',
  record: 'uint64_t',
  byte: 'uint64_t',
  kept: 'uint64_t',
  class_counts: ['uint64_t', 256],
  return_counts: ['uint64_t', 16],
  raw_min: ['double', 3],
  raw_max: ['double', 3],
  min: ['double', 3],
  max: ['double', 3],
});
export const XHD_LAS_OK = 0;
export const XHD_LAS_TRUNCATED = 1;
export const XHD_LAS_SYSTEM_ERROR = 2;

export type RawLasResult = Decoded<typeof LAS_RESULT>;

export const E57_JOB = declareStruct('xhd_e57_job', {
  data_start: 'uint64_t',
  section_end: 'uint64_t',
  records: 'uint64_t',
  piece_bytes: 'uint64_t',
  minimum: ['int64_t', 4],
  scale: ['double', 4],
  offset: ['double', 4],
  kind: ['int32_t', 4],
  bits: ['int32_t', 4],
  stream: ['int32_t', 4],
  field_count: 'int32_t',
  spherical: 'int32_t',
  pose: 'const double *',
  threads: 'int32_t',
  reserved: 'int32_t',
});
export const E57_RESULT = declareStruct('xhd_e57_result', {
  kind: 'int32_t',
  error_number: 'int32_t',
  kept: 'uint64_t',
  invalid: 'uint64_t',
  min: ['double', 3],
  max: ['double', 3],
});
export const XHD_E57_INTEGER = 0;
export const XHD_E57_SCALED = 1;
export const XHD_E57_FLOAT32 = 2;
export const XHD_E57_FLOAT64 = 3;
export const XHD_E57_OK = 0;
export const XHD_E57_PROBLEM = 1;
export const XHD_E57_SYSTEM_ERROR = 2;

export type RawE57Result = Decoded<typeof E57_RESULT>;

export const LAZ_RESULT = declareStruct('xhd_laz_result', {
  kind: 'int32_t',
  error_number: 'int32_t',
  chunk: 'uint64_t',
  byte: 'uint64_t',
  kept: 'uint64_t',
  class_counts: ['uint64_t', 256],
  return_counts: ['uint64_t', 16],
  raw_min: ['double', 3],
  raw_max: ['double', 3],
  min: ['double', 3],
  max: ['double', 3],
});

export const LAZ_POINTS = declareStruct('xhd_laz_points', {
  count: 'uint64_t',
  xyz: 'const double *',
  intensity: 'const uint16_t *',
  return_number: 'const uint8_t *',
  return_count: 'const uint8_t *',
  classification: 'const uint8_t *',
  gps_time: 'const double *',
  rgb: 'const uint16_t *',
  extra: 'const double *',
  extra_count: 'uint32_t',
  point_format: 'int32_t',
  scale: ['double', 3],
  offset: ['double', 3],
  chunk_size: 'uint32_t',
  threads: 'int32_t',
});
export const LAZ_WRITE_RESULT = declareStruct('xhd_laz_write_result', {
  kind: 'int32_t',
  error_number: 'int32_t',
  point: 'uint64_t',
  value: 'double',
  axis: 'int32_t',
  chunks: 'uint32_t',
  bytes: 'uint64_t',
  min: ['double', 3],
  max: ['double', 3],
});

export const XHD_LAZ_WRITE_OK = 0;
export const XHD_LAZ_WRITE_OUT_OF_RANGE = 1;
export const XHD_LAZ_WRITE_SYSTEM_ERROR = 2;

export type RawLazWriteResult = Decoded<typeof LAZ_WRITE_RESULT>;

export const XHD_LAZ_OK = 0;
export const XHD_LAZ_TRUNCATED = 1;
export const XHD_LAZ_SHORT_CHUNK = 2;
export const XHD_LAZ_DAMAGED = 3;
export const XHD_LAZ_SYSTEM_ERROR = 4;
export const XHD_LAZ_UNSUPPORTED = 5;

export type RawLazResult = Decoded<typeof LAZ_RESULT>;

export const FILE_READ = declareStruct('xhd_file_read', { bytes: 'uint64_t', error_number: 'int32_t', reserved: 'int32_t' });

export const XHD_READ_OK = 0;
export const XHD_READ_TRUNCATED = 1;
export const XHD_READ_BAD_VALUE = 2;
export const XHD_READ_SYSTEM_ERROR = 3;
export const XHD_READ_LAZ_CHUNK = 4;
export const XHD_READ_LAZ_OUTSIDE = 5;

// Surface compare in one call (xhd_surface_compare): see that section of kernels/include/xhd.h.
export const SURFACE_COMPARE_OPTIONS = declareStruct('xhd_surface_compare_options', {
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
export const SURFACE_DIRECTION = declareStruct('xhd_surface_direction', {
  hd: 'double',
  min: 'double',
  mean: 'double',
  rms: 'double',
  e: 'double',
  samples: 'uint64_t',
  from_index: 'int64_t',
  to_index: 'int64_t',
  from_point: ['double', 3],
  to_point: ['double', 3],
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
export const SURFACE_COMPARE_RESULT = declareStruct('xhd_surface_compare_result', {
  ab: SURFACE_DIRECTION,
  ba: SURFACE_DIRECTION,
  sample_ms: 'double',
  build_ms: 'double',
  query_ms: 'double',
  upload_ms: 'double',
  download_ms: 'double',
  peak_device_bytes: 'uint64_t',
  device: 'int32_t',
  threads: 'int32_t',
  origin: ['double', 3],
});

// The spatial join (xhd_join): a collection is one vertex array, one triangle array and object offsets.
export const JOIN_SET = declareStruct('xhd_join_set', {
  xyz: 'const float *',
  xyz64: 'const double *',
  vertex_count: 'uint64_t',
  triangles: 'const uint32_t *',
  object_faces: 'const uint64_t *',
  object_count: 'uint64_t',
});
export const JOIN_OPTIONS = declareStruct('xhd_join_options', {
  predicate: 'int32_t',
  method: 'int32_t',
  threads: 'int32_t',
  device: 'int32_t',
  distance: 'double',
  k: 'uint32_t',
  self_join: 'int32_t',
  group_size: 'uint32_t',
  reserved: 'uint32_t',
});
export const JOIN_RESULT = declareStruct('xhd_join_result', {
  pair_count: 'uint64_t',
  object_pairs: 'uint64_t',
  group_pairs: 'uint64_t',
  triangle_pairs: 'uint64_t',
  build_ms: 'double',
  filter_ms: 'double',
  refine_ms: 'double',
  upload_ms: 'double',
  download_ms: 'double',
  peak_device_bytes: 'uint64_t',
  device: 'int32_t',
  threads: 'int32_t',
  pairs: 'void *',
});
export const JOIN_PREDICATE_CODES = { intersects: 0, within: 1, knn: 2 } as const;
export const JOIN_METHOD_CODES = { filtered: 0, brute: 1 } as const;

export const SAMPLING_CODES = { area: 0, vertices: 1, 'vertices+edges+faces': 2 } as const;
export const QUERIES_SAMPLES = 0;
export const QUERIES_POINTS = 1;
export const QUERIES_NO_AREA = 2;

// Voxel masks as points (xhd_mask_points): see that section of kernels/include/xhd.h.
export const VOXEL_MASK = declareStruct('xhd_voxel_mask', {
  values: 'const void *',
  value_type: 'int32_t',
  use_label: 'int32_t',
  dims: ['uint64_t', 3],
  label: 'double',
  affine: ['double', 12],
  surface: 'int32_t',
  threads: 'int32_t',
  device: 'int32_t',
  reserved: 'int32_t',
});
export const MASK_POINTS_RESULT = declareStruct('xhd_mask_points_result', {
  xyz: 'double *',
  count: 'uint64_t',
  foreground: 'uint64_t',
  upload_ms: 'double',
  compute_ms: 'double',
  download_ms: 'double',
  peak_device_bytes: 'uint64_t',
  device: 'int32_t',
  threads: 'int32_t',
  bounds: ['double', 6],
});
// Statistics of per-point distances (xhd_distance_stats): see that section of kernels/include/xhd.h.
export const DISTANCE_STATS_OPTIONS = declareStruct('xhd_distance_stats_options', {
  percentile: 'double',
  has_percentile: 'int32_t',
  pooled: 'int32_t',
  threads: 'int32_t',
  device: 'int32_t',
  tolerances: 'const double *',
  within_ab: 'void *',
  within_ba: 'void *',
  tolerance_count: 'uint64_t',
});
export const DIRECTED_STATS = declareStruct('xhd_directed_stats', {
  count: 'uint64_t',
  max: 'double',
  sum: 'double',
  sq_sum: 'double',
  percentile: 'double',
});
export const DISTANCE_STATS_RESULT = declareStruct('xhd_distance_stats_result', {
  ab: DIRECTED_STATS,
  ba: DIRECTED_STATS,
  pooled_percentile: 'double',
  upload_ms: 'double',
  compute_ms: 'double',
  device: 'int32_t',
  threads: 'int32_t',
});
/** xhd_voxel_type: how xhd_voxel_mask.values is stored. */
export const VOXEL_TYPES = { uint8: 0, int8: 1, uint16: 2, int16: 3, uint32: 4, int32: 5, float32: 6, float64: 7 } as const;

// What the code reads results through: each the decoded type of its declaration above.
export type RawDirected = Decoded<typeof DIRECTED>;
export type RawHausdorffResult = Decoded<typeof HAUSDORFF_RESULT>;
export type RawDeviceInfo = Decoded<typeof DEVICE_INFO>;
export type RawSurfaceResult = Decoded<typeof SURFACE_RESULT>;
export type RawNearestResult = Decoded<typeof NEAREST_RESULT>;
export type RawDistancePair = Decoded<typeof DISTANCE_PAIR>;
export type RawDistanceResult = Decoded<typeof DISTANCE_RESULT>;
export type RawFileRead = Decoded<typeof FILE_READ>;
export type RawReadResult = Decoded<typeof READ_RESULT>;
export type RawStreamed = Decoded<typeof STREAMED>;
export type RawDelimitedResult = Decoded<typeof DELIMITED_RESULT>;
/** A decoded xhd_surface_direction; its three pointers are the library's memory (null where none). */
export type RawSurfaceDirection = Decoded<typeof SURFACE_DIRECTION>;
export type RawSurfaceCompareResult = Decoded<typeof SURFACE_COMPARE_RESULT>;
/** A decoded xhd_mask_points_result; xyz is the library's memory until xhd_mask_points_free. */
export type RawMaskPointsResult = Decoded<typeof MASK_POINTS_RESULT>;
export type RawDistanceStatsResult = Decoded<typeof DISTANCE_STATS_RESULT>;
export type RawJoinResult = Decoded<typeof JOIN_RESULT>;

export const PROTOTYPES = {
  abiVersion: 'int32_t xhd_abi_version(void)',
  hostPin: 'int32_t xhd_host_pin(const void *memory, uint64_t bytes)',
  hostUnpin: 'void xhd_host_unpin(const void *memory)',
  capabilities: 'uint64_t xhd_capabilities(void)',
  backendName: 'const char *xhd_backend_name(void)',
  lastError: 'const char *xhd_last_error(void)',
  deviceCount: 'int32_t xhd_device_count(void)',
  deviceInfo: 'int32_t xhd_device_info_get(int32_t ordinal, _Out_ xhd_device_info *info)',
  // libxhd_optix.so only.
  optixInfo: 'int32_t xhd_optix_info(int32_t ordinal, int32_t *optix_version, uint32_t *rtcore_version)',
  hausdorff:
    'int32_t xhd_hausdorff(const xhd_points *a, const xhd_points *b, const xhd_hausdorff_options *options, ' +
    '_Out_ xhd_hausdorff_result *result, xhd_progress *progress)',
  pointSurfaceDistance:
    'int32_t xhd_point_surface_distance(const xhd_points *points, const xhd_mesh *mesh, ' +
    'const xhd_surface_options *options, double *distance, uint32_t *nearest_triangle, double *closest, ' +
    '_Out_ xhd_surface_result *result, xhd_progress *progress)',
  distanceContextCreate:
    'int32_t xhd_distance_context_create(const xhd_mesh *a, const xhd_mesh *b, const xhd_distance_options *options, ' +
    '_Out_ xhd_distance_context **context, double *build_ms, xhd_progress *progress)',
  distanceQuery:
    'int32_t xhd_distance_query(xhd_distance_context *context, const double *pose_b, _Out_ xhd_distance_result *result, xhd_progress *progress)',
  // results: n xhd_distance_result records written in place into a buffer (src/native/distance-results.ts).
  distanceQueryMany:
    'int32_t xhd_distance_query_many(xhd_distance_context *context, const double *poses, uint64_t n, void *results, xhd_progress *progress)',
  distanceContextDestroy: 'void xhd_distance_context_destroy(xhd_distance_context *context)',
  pointsCompare:
    'int32_t xhd_points_compare(const xhd_points *a, const xhd_points *b, const xhd_hausdorff_options *options, ' +
    'const xhd_per_point *per_point, _Out_ xhd_hausdorff_result *result, xhd_progress *progress)',
  pointsComparePlaced:
    'int32_t xhd_points_compare_placed(const xhd_points *a, const xhd_points *b, const xhd_hausdorff_options *options, ' +
    '_Inout_ xhd_placement *placement, const xhd_per_point *per_point, _Out_ xhd_hausdorff_result *result, ' +
    'xhd_progress *progress)',
  // The search and the statistics of its distances in one call (src/ops/points-search.ts).
  pointsCompareStats:
    'int32_t xhd_points_compare_stats(const xhd_points *a, const xhd_points *b, const xhd_hausdorff_options *options, ' +
    'const xhd_per_point *per_point, const xhd_distance_stats_options *stats_options, ' +
    '_Out_ xhd_distance_stats_result *stats, _Out_ xhd_hausdorff_result *result, xhd_progress *progress)',
  nearestPoints:
    'int32_t xhd_nearest_points(const xhd_points *queries, const xhd_points *targets, const xhd_hausdorff_options *options, ' +
    'double *distance, int64_t *nearest, _Out_ xhd_nearest_result *result, xhd_progress *progress)',
  surfaceArea: 'int32_t xhd_surface_area(const xhd_mesh *mesh, double *area)',
  sampleSurface:
    'int32_t xhd_sample_surface(const xhd_mesh *mesh, uint64_t count, uint32_t *state, int32_t threads, float *xyz, ' +
    'double *xyz64)',
  readFile:
    'int32_t xhd_read_file(const char *path, uint64_t offset, uint64_t length, int32_t threads, uint8_t *buffer, _Out_ xhd_file_read *result)',
  pointsCompareFiles:
    'int32_t xhd_points_compare_files(const xhd_point_file *a, const xhd_point_file *b, const xhd_hausdorff_options *options, ' +
    '_Inout_ xhd_streamed *streamed, _Out_ xhd_hausdorff_result *result, xhd_progress *progress)',
  readPlyVertices:
    'int32_t xhd_read_ply_vertices(const char *path, const xhd_ply_vertex_layout *layout, void *xyz, _Out_ xhd_read_result *result)',
  readTriangleRecords:
    'int32_t xhd_read_triangle_records(const uint8_t *records, uint64_t count, uint32_t vertex_count, int32_t threads, ' +
    'uint32_t *triangles, uint64_t *read)',
  countDegenerateTriangles: 'int32_t xhd_count_degenerate_triangles(const xhd_mesh *mesh, int32_t threads, uint64_t *degenerate)',
  readLas:
    'int32_t xhd_read_las(const char *path, const xhd_las_job *job, double *positions, uint8_t *attributes, _Out_ xhd_las_result *result)',
  readE57: 'int32_t xhd_read_e57(const char *path, const xhd_e57_job *job, double *positions, _Out_ xhd_e57_result *result)',
  readLaz:
    'int32_t xhd_read_laz(const char *path, const xhd_laz_job *job, double *positions, double *chunk_raw, uint8_t *records, ' +
    'uint8_t *attributes, _Out_ xhd_laz_result *result)',
  compressLazChunk:
    'int32_t xhd_compress_laz_chunk(const uint8_t *records, uint64_t count, const uint16_t *items, uint32_t item_count, ' +
    'uint32_t record_length, uint8_t *out, uint64_t capacity, uint64_t *written)',
  writeLaz:
    'int32_t xhd_write_laz(const char *path, const uint8_t *header, uint64_t header_bytes, const xhd_laz_points *points, ' +
    '_Out_ xhd_laz_write_result *result)',
  countLines: 'int32_t xhd_count_lines(const uint8_t *text, uint64_t length, int32_t threads, uint64_t *lines)',
  parseDelimited:
    'int32_t xhd_parse_delimited(const uint8_t *text, uint64_t length, const xhd_delimited_layout *layout, ' +
    'double *xyz, uint64_t capacity, _Out_ xhd_delimited_result *result)',
  surfaceCompare:
    'int32_t xhd_surface_compare(const xhd_mesh *a, const xhd_mesh *b, const xhd_surface_compare_options *options, ' +
    'xhd_surface_compare_result *result, xhd_progress *progress)',
  surfaceCompareFree: 'void xhd_surface_compare_free(xhd_surface_compare_result *result)',
  maskPoints: 'int32_t xhd_mask_points(const xhd_voxel_mask *mask, xhd_mask_points_result *result, xhd_progress *progress)',
  maskPointsFree: 'void xhd_mask_points_free(xhd_mask_points_result *result)',
  distanceStats:
    'int32_t xhd_distance_stats(const double *ab, uint64_t n_ab, const double *ba, uint64_t n_ba, ' +
    'const xhd_distance_stats_options *options, _Out_ xhd_distance_stats_result *result, xhd_progress *progress)',
  join:
    'int32_t xhd_join(const xhd_join_set *a, const xhd_join_set *b, const xhd_join_options *options, ' +
    'xhd_join_result *result, xhd_progress *progress)',
  joinRead:
    'int32_t xhd_join_read(const xhd_join_result *result, uint64_t first, uint64_t count, uint64_t *objects, ' +
    'double *distance, int64_t *triangles, double *points, int32_t *intersecting)',
  joinFree: 'void xhd_join_free(xhd_join_result *result)',
} as const;
