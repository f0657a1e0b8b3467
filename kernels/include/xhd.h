/*
 * xhd.h: the one C ABI of the xhd backend libraries (build/libxhd_cpu.so, build/libxhd_cuda.so). Plain
 * structs, int32 status codes, nothing thrown or aborted across it.
 *
 * Every library exports every function declared here. Those marked "Optional" below are implemented only
 * by the libraries whose xhd_capabilities() has their bit set (today: the CPU library has them all, the CUDA
 * library none but XHD_CAP_DEVICES); in a library without the bit they return XHD_ERROR_UNAVAILABLE and
 * xhd_last_error() names the library that has them. Everything not marked optional is implemented by every
 * library, with the exceptions stated at the entry (the brute-force reference methods: XHD_CAP_REFERENCE_METHODS).
 *
 * Memory: every pointer argument is host memory owned by the caller and only borrowed for the call.
 * Threads: functions may be called from any thread; calls share nothing but the last-error slot.
 * Units: distances are in the input's units. Indices refer to the caller's original point order.
 */
#ifndef XHD_H
#define XHD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a struct layout or a function signature below changes. */
#define XHD_ABI_VERSION 15

#if defined(_WIN32)
#define XHD_API __declspec(dllexport)
#else
#define XHD_API __attribute__((visibility("default")))
#endif

typedef enum xhd_status {
  XHD_OK = 0,
  XHD_ERROR_INVALID_ARGUMENT = 1, /* bad counts, null pointers, non-finite coordinates */
  XHD_ERROR_OUT_OF_MEMORY = 2,
  XHD_ERROR_CANCELLED = 3, /* the caller set xhd_progress.cancel */
  XHD_ERROR_INTERNAL = 4,
  XHD_ERROR_UNAVAILABLE = 5 /* the backend cannot run here (e.g. no GPU) */
} xhd_status;

typedef enum xhd_method {
  XHD_METHOD_GRID = 0, /* X-HD: uniform grid with MBR pruning and early break (default) */
  XHD_METHOD_EB = 1,   /* early break over shuffled inputs (Taha & Hanbury) */
  XHD_METHOD_BRUTE = 2 /* double-precision reference: every pair, no pruning (XHD_CAP_REFERENCE_METHODS) */
} xhd_method;

/* Bits of xhd_hausdorff_options.directions. */
#define XHD_DIRECTION_AB 1
#define XHD_DIRECTION_BA 2

/* "No such point": the index sentinel in results. */
#define XHD_NO_INDEX (-1)

/* A point set: count points as interleaved x,y,z (2D data has z = 0). Host memory, read-only.
 * Exactly one of xyz and xyz64 is set: float32 coordinates (files that store float32) or doubles (text
 * and double files). They are the truth: every reported distance is the double-precision distance over
 * them, whatever the searches compute in float inside (see "Exactness" in README.md). */
typedef struct xhd_points {
  const float* xyz;
  uint64_t count;
  const double* xyz64;
} xhd_points;

/* Shared with a running call so the caller can show progress and cancel. Host memory that must stay
 * valid for the whole call. The library writes done/total with relaxed atomics; the caller may read
 * them at any time and may set cancel to nonzero, after which the call returns XHD_ERROR_CANCELLED. */
typedef struct xhd_progress {
  uint64_t done;
  uint64_t total;
  uint32_t cancel;
  uint32_t reserved;
} xhd_progress;

typedef struct xhd_hausdorff_options {
  int32_t method;     /* xhd_method */
  int32_t directions; /* XHD_DIRECTION_AB | XHD_DIRECTION_BA */
  int32_t threads;    /* worker threads; 0 = every hardware thread */
  int32_t device;     /* GPU ordinal for device backends; the CPU backend ignores it */
  uint64_t seed;      /* seed of the shuffles (eb) and of the sampled warm-up queries (grid) */
  double cell_size;   /* grid cell side length; 0 = chosen automatically */
} xhd_hausdorff_options;

/* One direction's answer and what it cost. */
typedef struct xhd_directed {
  double distance;           /* directed HD, recomputed in double from the witness pair */
  int64_t from_index;        /* point of the source set realizing it; XHD_NO_INDEX if not computed */
  int64_t to_index;          /* its nearest neighbour in the target set; XHD_NO_INDEX if not computed */
  double build_ms;           /* index construction over the target set (grid, one direction only:
                                also the grid that puts the source points in query order) */
  double query_ms;           /* queries from the source set */
  uint64_t distance_evals;   /* point-pair distances evaluated */
  uint64_t pruned_queries;   /* source points settled early (MaxDist <= cmax or early break) */
  uint64_t fallback_queries; /* queries that left the ring search for the cell hierarchy */
  uint32_t grid_dims[3];     /* grid resolution used (grid method), else zeros */
  float cell_size;           /* grid cell side used (grid method), else 0 */
  uint64_t exact_checks;     /* source points whose nearest neighbour the float filter could not settle,
                                searched again in double */
  double exact_ms;           /* of query_ms: that search in double (the exactness pass) */
} xhd_directed;

typedef struct xhd_hausdorff_result {
  xhd_directed ab;            /* A -> B: max over A of the distance to the nearest point of B */
  xhd_directed ba;            /* B -> A */
  double upload_ms;           /* host -> device copies (device backends; 0 on the CPU) */
  double download_ms;         /* device -> host copies of the results */
  uint64_t peak_device_bytes; /* most device memory this call held at once (0 on the CPU) */
  int32_t device;             /* GPU ordinal used, or -1 on the CPU */
  uint32_t query_chunks;      /* source chunks per direction when the source did not fit at once (1 otherwise) */
  double origin[3];           /* the float searches ran on coordinates minus this point (0 for float32 inputs) */
} xhd_hausdorff_result;

/* One compute device a backend can use (GPU backends; the CPU backend reports none). */
typedef struct xhd_device_info {
  char name[256];
  int32_t ordinal;
  int32_t compute_major;
  int32_t compute_minor;
  int32_t multiprocessors;
  uint64_t total_memory;   /* bytes */
  uint64_t free_memory;    /* bytes free when asked */
  int32_t driver_version;  /* e.g. 13000 for CUDA 13.0 */
  int32_t runtime_version; /* the runtime the library was built with */
} xhd_device_info;

/* A triangle mesh: vertex_count vertices (interleaved x,y,z) and triangle_count triangles as triples of
 * vertex indices. Host memory, read-only. A point cloud can be passed as triangles (i, i, i).
 * As for xhd_points, exactly one of xyz (float32 files) and xyz64 (text and double files) is set, and
 * those coordinates are the truth every reported distance is computed over. */
typedef struct xhd_mesh {
  const float* xyz;
  uint64_t vertex_count;
  const uint32_t* triangles;
  uint64_t triangle_count;
  const double* xyz64;
} xhd_mesh;

typedef enum xhd_surface_method {
  XHD_SURFACE_BVH = 0,   /* bounding volume hierarchy over Morton-ordered triangles */
  XHD_SURFACE_BRUTE = 1, /* double-precision reference: every triangle for every point (XHD_CAP_REFERENCE_METHODS) */
  XHD_SURFACE_GRID = 2   /* uniform grid of triangles; points far from the surface go to the hierarchy */
} xhd_surface_method;

typedef struct xhd_surface_options {
  int32_t method;  /* xhd_surface_method */
  int32_t threads; /* worker threads; 0 = every hardware thread */
  int32_t device;  /* GPU ordinal for device backends; the CPU backend ignores it */
  int32_t reserved;
} xhd_surface_options;

typedef struct xhd_surface_result {
  double build_ms;            /* index over the mesh */
  double query_ms;            /* every point's nearest surface point */
  double upload_ms;           /* host -> device copies (device backends; 0 on the CPU) */
  double download_ms;         /* device -> host copies */
  uint64_t peak_device_bytes; /* most device memory held at once (0 on the CPU) */
  uint64_t triangle_tests;    /* point-triangle distances evaluated */
  int32_t device;             /* GPU ordinal used, or -1 on the CPU */
  uint32_t reserved;
  double origin[3]; /* the float filters ran on coordinates minus this point (0 for float32 inputs) */
} xhd_surface_result;

/* XHD_ABI_VERSION of the library actually loaded; callers refuse a mismatch. */
XHD_API int32_t xhd_abi_version(void);

/* Bits of xhd_capabilities(): the optional parts of this ABI a library implements. */
#define XHD_CAP_NEAREST_POINTS (1ull << 0) /* xhd_nearest_points */
#define XHD_CAP_FILE_READERS (1ull << 1)   /* xhd_read_file and xhd_read_ply_vertices */
#define XHD_CAP_DELIMITED_TEXT (1ull << 2) /* xhd_count_lines and xhd_parse_delimited */
#define XHD_CAP_DEVICES                                                          \
  (1ull << 3) /* computes on devices (GPUs): xhd_device_count may be nonzero and \
                 xhd_device_info_get describes them; without it there are none */
#define XHD_CAP_REFERENCE_METHODS                                     \
  (1ull << 4) /* the double-precision brute forces: XHD_METHOD_BRUTE, \
                 XHD_SURFACE_BRUTE, XHD_DISTANCE_BRUTE (without it: invalid argument) */

/* The XHD_CAP_* bits of what this library implements; a bit unknown to the caller is to be ignored. */
XHD_API uint64_t xhd_capabilities(void);

/* sizeof of the struct of this header named `name` (e.g. "xhd_points") as the library was compiled, or 0 for
   a name it does not know: callers that declare the structs again (bindings) check their layouts against it. */
XHD_API uint64_t xhd_struct_size(const char* name);

/* Field `index` (0, 1, ... in declaration order) of the struct named `name`: its name, with its byte offset in
   *offset; NULL past the last field or for a name the library does not know. Bindings check every field's name
   and offset against it. Static storage. */
XHD_API const char* xhd_struct_field(const char* name, uint32_t index, uint64_t* offset);

/* Short backend name, e.g. "cpu". Static storage. */
XHD_API const char* xhd_backend_name(void);

/* Message of the most recent failed call in this process (any thread), or "" if none.
 * The pointer stays valid until the calling thread calls xhd_last_error again. */
XHD_API const char* xhd_last_error(void);

/* How many devices this backend can use: 0 for a library without XHD_CAP_DEVICES (the CPU one), and 0 for a
 * GPU backend with no usable device, in which case xhd_last_error() says why (no driver, no GPU, driver too old). */
XHD_API int32_t xhd_device_count(void);

/* Describes device `ordinal` (0 <= ordinal < xhd_device_count()); XHD_ERROR_UNAVAILABLE without XHD_CAP_DEVICES. */
XHD_API int32_t xhd_device_info_get(int32_t ordinal, xhd_device_info* info);

/* OptiX on device `ordinal`, for libxhd_optix.so only (the other libraries do not export it): starts OptiX
 * there (the driver's OptiX and a device context; the search programs are compiled at the first search, whose
 * failures are XHD_ERROR_UNAVAILABLE the same way) and reports the OptiX version of the
 * headers the library was built with (e.g. 90000 for 9.0.0) and the device's RT-core version
 * (OPTIX_DEVICE_PROPERTY_RTCORE_VERSION; 0 = no RT cores, traversal runs in software). Returns an xhd_status:
 * XHD_ERROR_UNAVAILABLE with xhd_last_error() naming the cause and the fix when OptiX cannot run there. */
XHD_API int32_t xhd_optix_info(int32_t ordinal, int32_t* optix_version, uint32_t* rtcore_version);

/* Directed Hausdorff distances between a and b, for the directions requested.
 * progress may be NULL. Returns an xhd_status; on failure xhd_last_error() says why. */
XHD_API int32_t xhd_hausdorff(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                              xhd_hausdorff_result* result, xhd_progress* progress);

/* For each point, the exact (double precision) distance to the nearest point of the mesh's surface, over
 * the coordinates as given (points and mesh each float32 or double).
 * Outputs, each an array of points->count entries (3 per point for closest) that may be NULL when not
 * wanted: distance, nearest triangle (among equally near triangles the smallest index), and the closest
 * surface point. Degenerate triangles (repeated vertices, zero area) count as their edges and vertices.
 * progress may be NULL. Returns an xhd_status; on failure xhd_last_error() says why. */
/* The searches filter in float32 relative to an origin near the data (result->origin) and evaluate every
 * candidate triangle in double over the given coordinates, relative to one of its corners, so a surface at
 * survey coordinates gives the distances it gives at the origin (see "Exactness" in README.md). */
XHD_API int32_t xhd_point_surface_distance(const xhd_points* points, const xhd_mesh* mesh,
                                           const xhd_surface_options* options, double* distance,
                                           uint32_t* nearest_triangle, double* closest, xhd_surface_result* result,
                                           xhd_progress* progress);

/* ---- Every point's nearest neighbour: the per-point distances behind percentiles, averages and export.
 * Optional: XHD_CAP_NEAREST_POINTS (the CPU library). ---- */

typedef struct xhd_nearest_result {
  double build_ms;         /* index over the target set */
  double query_ms;         /* every query point's search */
  uint64_t distance_evals; /* point-pair distances evaluated */
  int32_t device;          /* GPU ordinal used, or -1 on the CPU */
  uint32_t reserved;
} xhd_nearest_result;

/* For each query point, its nearest point of targets in double precision over the given coordinates,
 * ties to the smallest index: its index and the distance. The grid search filters in float and settles
 * every candidate its rounding bound cannot separate in double, so grid and brute give the same answers.
 * options: method (XHD_METHOD_GRID, or XHD_METHOD_BRUTE: every pair in double), threads, cell_size;
 * directions, device and seed are ignored. distance and nearest each hold queries->count entries
 * and may be NULL when not wanted. Without XHD_CAP_NEAREST_POINTS: XHD_ERROR_UNAVAILABLE (xhd_points_compare
 * gives the same values on every backend). */
XHD_API int32_t xhd_nearest_points(const xhd_points* queries, const xhd_points* targets,
                                   const xhd_hausdorff_options* options, double* distance, int64_t* nearest,
                                   xhd_nearest_result* result, xhd_progress* progress);

/* ---- Points compare: the Hausdorff distance and every point's nearest, in one search ---- */

/* Where xhd_points_compare writes each point's nearest neighbour in the other set: caller-owned host arrays,
 * each of which may be NULL when not wanted. distance_ab and nearest_ab hold a->count entries (A's points
 * against B), distance_ba and nearest_ba b->count entries (B's against A). */
typedef struct xhd_per_point {
  double* distance_ab; /* exact double distance to the nearest point of B */
  int64_t* nearest_ab; /* that point's index in B; among equally near points the smallest index */
  double* distance_ba;
  int64_t* nearest_ba;
} xhd_per_point;

/* The Hausdorff distances of xhd_hausdorff and, when per_point asks for any output, every point's nearest in
 * the same call. per_point NULL (or all four pointers NULL): exactly xhd_hausdorff. Otherwise every point of
 * each direction in options->directions is measured (outputs for a direction not asked for are refused):
 * its distance is the exact double distance to its nearest target (ties to the smallest target index), the
 * values xhd_nearest_points gives bit for bit, and each direction's HD and witness are taken from them: the
 * largest squared distance, ties to the smallest source index, its nearest as to_index; the answer
 * xhd_hausdorff gives bit for bit. The grid method measures through the X-HD grid with nothing pruned (eb,
 * which has no per-point form, does the same); brute (CPU only) through every pair. The result's counters
 * are those of that search: pruned_queries 0, exact_checks every point measured.
 * progress may be NULL. Returns an xhd_status; on failure xhd_last_error() says why. */
XHD_API int32_t xhd_points_compare(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                                   const xhd_per_point* per_point, xhd_hausdorff_result* result,
                                   xhd_progress* progress);

/* Total area of the mesh: each triangle's area in double precision from its vertices as given, summed in
 * triangle order. Runs on the host in every backend. */
XHD_API int32_t xhd_surface_area(const xhd_mesh* mesh, double* area);

/* count random points on the mesh's surface: a triangle chosen with probability proportional to its area,
 * then a uniform point inside it (square-root warp), computed in double from the vertices as given and
 * written to xyz (3 floats each) for a float32 mesh, to xyz64 (3 doubles each) for a double one. The random
 * stream is xoshiro128** from state (four 32-bit words, not all zero), which is advanced past the draws,
 * six words per sample. The points depend only on the mesh, count and state, never on threads or the
 * machine: they equal those of the TypeScript sampler (src/sampling/sample-mesh.ts) bit for bit.
 * Runs on the host in every backend; threads = 0 uses every hardware thread. */
XHD_API int32_t xhd_sample_surface(const xhd_mesh* mesh, uint64_t count, uint32_t* state, int32_t threads, float* xyz,
                                   double* xyz64);

/* ---- Reading input files: host code. Optional: XHD_CAP_FILE_READERS (xhd_read_file, xhd_read_ply_vertices) and
 * XHD_CAP_DELIMITED_TEXT (xhd_count_lines, xhd_parse_delimited), both implemented by the CPU library alone (the
 * reader loads it whichever backend computes; src/io/native-reader.ts); elsewhere they return
 * XHD_ERROR_UNAVAILABLE. The TypeScript readers stay the reference: these give their results bit for bit, and
 * where a file is not in the shape handled here they say so and the TypeScript reader takes the file. ---- */

typedef struct xhd_file_read {
  uint64_t bytes;       /* bytes read: all asked for, or fewer where the file ended first */
  int32_t error_number; /* nonzero: open or read failed with this errno, and nothing was read */
  int32_t reserved;
} xhd_file_read;

/* Reads `length` bytes of the file at `offset` into buffer, in pieces on `threads` threads at once
 * (0 = every hardware thread). Returns XHD_OK when the call ran; result says what it read. */
XHD_API int32_t xhd_read_file(const char* path, uint64_t offset, uint64_t length, int32_t threads, uint8_t* buffer,
                              xhd_file_read* result);

/* Scalar types of binary PLY properties (the numbering of PlyType in src/io/ply-header.ts). */
typedef enum xhd_scalar_type {
  XHD_INT8 = 0,
  XHD_UINT8 = 1,
  XHD_INT16 = 2,
  XHD_UINT16 = 3,
  XHD_INT32 = 4,
  XHD_UINT32 = 5,
  XHD_FLOAT32 = 6,
  XHD_FLOAT64 = 7
} xhd_scalar_type;

/* Where a binary PLY's vertex records lie and how x, y, z sit in them (records of fixed size only). */
typedef struct xhd_ply_vertex_layout {
  uint64_t body_offset; /* byte offset of the first vertex record in the file */
  uint64_t count;       /* vertex records */
  uint64_t piece_bytes; /* bytes a thread reads at a time (whole records, at least one); 0 = the default */
  uint32_t stride;      /* bytes per record */
  int32_t swap_bytes;   /* 1 when the file's byte order is not the host's */
  int32_t offset[3];    /* byte offsets of x, y, z within a record; offset[2] = -1 for 2D data (z = 0) */
  int32_t type[3];      /* xhd_scalar_type of x, y, z */
  int32_t output;       /* XHD_FLOAT32 or XHD_FLOAT64: the type of the caller's xyz array */
  int32_t threads;      /* 0 = every hardware thread */
} xhd_ply_vertex_layout;

/* What a read found. kind: */
#define XHD_READ_OK 0
#define XHD_READ_TRUNCATED 1    /* the file ended inside record `record`; `byte` is where its data ran out */
#define XHD_READ_BAD_VALUE 2    /* record `record` (at byte `byte`) holds `value`: non-finite or beyond +-1e15 */
#define XHD_READ_SYSTEM_ERROR 3 /* open or read failed with errno `error_number` */

typedef struct xhd_read_result {
  int32_t kind;         /* XHD_READ_* */
  int32_t error_number; /* XHD_READ_SYSTEM_ERROR: the errno */
  uint64_t record;      /* the first bad record (TRUNCATED, BAD_VALUE) */
  uint64_t byte;
  double value;  /* BAD_VALUE: the first bad coordinate of that record, x before y before z */
  double min[3]; /* XHD_READ_OK: the bounds of the coordinates read, as JavaScript's Math.min */
  double max[3]; /* and Math.max give them (-0 below +0); +inf / -inf when count is 0 */
} xhd_read_result;

/* Reads the vertices' x, y, z into xyz (3 * count entries of `output` type; z = 0 for 2D data) with
 * positioned reads by `threads` threads, each decoding and checking its own pieces. Returns XHD_OK when
 * the call ran, whatever the file held: result->kind says whether the coordinates are complete and good;
 * when it is not XHD_READ_OK, xyz holds nothing to use. */
XHD_API int32_t xhd_read_ply_vertices(const char* path, const xhd_ply_vertex_layout* layout, void* xyz,
                                      xhd_read_result* result);

/* The largest number of rows text of `length` bytes can hold: its '\n' bytes, plus one when the text
 * does not end with one. Counted by `threads` threads (0 = every hardware thread). */
XHD_API int32_t xhd_count_lines(const uint8_t* text, uint64_t length, int32_t threads, uint64_t* lines);

/* The columns of a delimited (CSV / XYZ) file, as src/io/delimited-layout.ts found them. */
typedef struct xhd_delimited_layout {
  const int8_t* slots; /* per column: 0, 1, 2 = x, y, z (z = 0 where no column is z); -1 = not read */
  int32_t column_count;
  int32_t comma;   /* 1: fields separated by commas; 0: by runs of spaces and tabs */
  int32_t threads; /* 0 = every hardware thread */
  int32_t reserved;
  uint64_t piece_bytes; /* bytes parsed by one thread at a time (whole lines); 0 = the default */
} xhd_delimited_layout;

typedef struct xhd_delimited_result {
  uint64_t rows; /* data rows read (when plain) */
  int32_t plain; /* 1: every line was in the plain shape below and rows are in xyz; 0: some line was not */
  int32_t reserved;
  double min[3]; /* when plain: the rows' bounds as xhd_read_result's (+inf / -inf for no rows) */
  double max[3];
} xhd_delimited_result;

/* Parses the data rows of delimited text (from the first data row on) into xyz, 3 doubles a row, by
 * line-aligned pieces on `threads` threads. Only the plain shape is handled: fields separated as the
 * layout says (spaces and tabs around commas allowed), lines ending in '\n' or "\r\n", blank lines and
 * '#' comments, numbers as [+-]digits[.digits][(e|E)[+-]digits] (a digit on either side of the point),
 * every coordinate finite and within +-1e15. Anything else (a lone '\r', a ragged row, an empty field,
 * a token that is not such a number, nan, a value out of range or beyond 1e15, a quote anywhere) gives plain = 0,
 * and the caller parses the text itself: its parser is the reference for every irregular case and for
 * every message. Each number is the correctly rounded double (std::from_chars), as JavaScript's Number()
 * gives. capacity: rows xyz has room for (at least xhd_count_lines of the text). */
XHD_API int32_t xhd_parse_delimited(const uint8_t* text, uint64_t length, const xhd_delimited_layout* layout,
                                    double* xyz, uint64_t capacity, xhd_delimited_result* result);

/* ---- LAZ (LASzip-compressed LAS) point data, point formats 0 to 3: the version-2 items POINT10, GPSTIME11,
 * RGB12 and BYTE (extra bytes). src/io/laz-chunks.ts reads and checks the chunk table; src/io/laz-*.ts
 * decodes the same records in TypeScript and stays the reference. ---- */

/* A LAZ file's chunks and what to make of their records. */
typedef struct xhd_laz_job {
  const uint64_t* chunks; /* per chunk: file offset, bytes, points, first point (4 entries a chunk): in file
                             order, each chunk's first point the sum of the points before it */
  uint64_t chunk_count;
  uint64_t point_count;  /* the points of every chunk together: positions has room for 3 * point_count */
  const uint16_t* items; /* the LASzip VLR's items: type, size, version (3 entries an item) */
  uint32_t item_count;
  uint32_t record_length; /* the items' sizes added up */
  double scale[3];        /* x = X * scale + offset in double, unfused, as LAS readers compute it */
  double offset[3];
  const uint8_t* classes; /* 256 flags: keep the points of class c where classes[c] != 0; null keeps all */
  const double* box;      /* keep points inside min x, y, z, max x, y, z (edges included); null keeps all */
  int32_t returns;        /* 0: every return; 1: first returns (number <= 1); 2: last (number >= count) */
  int32_t threads;        /* 0 = every hardware thread */
  uint64_t piece_bytes;   /* compressed bytes a thread reads at a time; 0 = the default (1 MiB) */
} xhd_laz_job;

/* What a LAZ read found. kind: */
#define XHD_LAZ_OK 0
#define XHD_LAZ_TRUNCATED 1    /* chunk `chunk` runs past the file's end, which is at `byte` */
#define XHD_LAZ_SHORT_CHUNK 2  /* chunk `chunk` (from `byte`) ran out of bytes before its points did */
#define XHD_LAZ_DAMAGED 3      /* chunk `chunk` (from `byte`) holds data the format cannot hold */
#define XHD_LAZ_SYSTEM_ERROR 4 /* open or read failed with errno `error_number` */
#define XHD_LAZ_UNSUPPORTED 5  /* the items are not the version-2 items of formats 0-3: nothing was read */

typedef struct xhd_laz_result {
  int32_t kind; /* XHD_LAZ_*; on failure, the chunk is the lowest-numbered that failed */
  int32_t error_number;
  uint64_t chunk; /* 0-based */
  uint64_t byte;
  uint64_t kept;              /* points the filters kept, packed in file order at the start of positions */
  uint64_t class_counts[256]; /* every record decoded, by class (the low 5 bits of byte 15) */
  uint64_t return_counts[16]; /* and by return number (the low 3 bits of byte 14) */
  double raw_min[3];          /* every record's integer X, Y, Z: their bounds (+inf / -inf for none) */
  double raw_max[3];
  double min[3]; /* the kept points' coordinates: their bounds (+inf / -inf for none) */
  double max[3];
} xhd_laz_result;

/* Reads and decodes every chunk of the LAZ file at `path` on `job->threads` threads, each reading its own
 * chunks with positioned reads, a piece at a time (no chunk is held whole). positions: room for 3 * point_count
 * doubles; the kept points' x, y, z come packed in file order. chunk_raw (may be null): per chunk, the integer X, Y, Z
 * min then max of its records (6 a chunk), for the caller's check of damaged chunks against the header's bounds.
 * records (may be null): point_count * record_length bytes, receiving every decoded record (the tests compare them).
 * Returns XHD_OK when the call ran, whatever the file held: result->kind says whether the points are complete. Without
 * XHD_CAP_FILE_READERS: XHD_ERROR_UNAVAILABLE. */
XHD_API int32_t xhd_read_laz(const char* path, const xhd_laz_job* job, double* positions, double* chunk_raw,
                             uint8_t* records, xhd_laz_result* result);

/* Points to write as LAZ point format 0 to 3 (version-2 items), one entry a point in each array. Every
 * array but xyz may be null: its field is then 0 (return number and count: 1). */
typedef struct xhd_laz_points {
  uint64_t count;
  const double* xyz; /* x, y, z a point: stored as round((x - offset) / scale), which must fit int32 */
  const uint16_t* intensity;
  const uint8_t* return_number;  /* 1-7 */
  const uint8_t* return_count;   /* 1-7 */
  const uint8_t* classification; /* the whole byte 15: the class in its low 5 bits, flags above */
  const double* gps_time;        /* formats 1 and 3 */
  const uint16_t* rgb;           /* formats 2 and 3: red, green, blue a point */
  const double* extra;           /* extra_count doubles a point: extra-bytes dimensions of type double */
  uint32_t extra_count;
  int32_t point_format; /* 0-3 */
  double scale[3];
  double offset[3];
  uint32_t chunk_size; /* points a chunk; 0 = LASzip's 50,000 */
  int32_t threads;     /* 0 = every hardware thread */
} xhd_laz_points;

/* What a LAZ write did. kind: */
#define XHD_LAZ_WRITE_OK 0
#define XHD_LAZ_WRITE_OUT_OF_RANGE \
  1 /* point `point` has coordinate `value` (axis `axis`): not finite, or off the int32 grid */
#define XHD_LAZ_WRITE_SYSTEM_ERROR 2 /* creating or writing the file failed with errno `error_number` */

typedef struct xhd_laz_write_result {
  int32_t kind; /* XHD_LAZ_WRITE_*; on failure no file is left at path */
  int32_t error_number;
  uint64_t point;
  double value;
  int32_t axis;
  uint32_t chunks; /* chunks written */
  uint64_t bytes;  /* the file's size */
  double min[3];   /* the stored coordinates' bounds (integer * scale + offset), as in the header */
  double max[3];
} xhd_laz_write_result;

/* Writes a LAZ file: `header` (header_bytes bytes: the LAS header and VLRs, the LASzip VLR among them
 * describing exactly the items below, the point data offset equal to header_bytes) and then the points,
 * compressed in chunks on `threads` threads, and the chunk table. The library fills in the header's point
 * counts (legacy and, for LAS 1.4, 64-bit; by return) and bounds. Items: POINT10, then GPSTIME11 (formats 1,
 * 3), RGB12 (formats 2, 3), then one BYTE item of 8 * extra_count bytes when extra_count > 0.
 * Without XHD_CAP_FILE_READERS: XHD_ERROR_UNAVAILABLE. */
XHD_API int32_t xhd_write_laz(const char* path, const uint8_t* header, uint64_t header_bytes,
                              const xhd_laz_points* points, xhd_laz_write_result* result);

/* ---- Mesh-mesh minimum and maximum distance (the gDist algorithm) ---- */

/* Bits of xhd_distance_options.which. */
#define XHD_DISTANCE_MIN 1 /* separation: the smallest distance between a point of A and a point of B */
#define XHD_DISTANCE_MAX 2 /* spanning: the largest such distance */
/* With XHD_DISTANCE_MIN: when the minimum is 0, also every triangle pair at distance 0 (crossing or
 * touching), counted, and a box holding every point the meshes share (xhd_distance_result.contact_*).
 * CPU backend (bvh and brute methods); the CUDA backend refuses it. */
#define XHD_DISTANCE_CONTACTS 4

typedef enum xhd_distance_method {
  XHD_DISTANCE_BVH = 0,  /* f12 bounding volume hierarchies: BVTT front expansion (GPU), best-first (CPU) */
  XHD_DISTANCE_BRUTE = 1 /* double-precision reference: every triangle pair (XHD_CAP_REFERENCE_METHODS) */
} xhd_distance_method;

typedef struct xhd_distance_options {
  int32_t which;   /* XHD_DISTANCE_MIN | XHD_DISTANCE_MAX */
  int32_t method;  /* xhd_distance_method */
  int32_t threads; /* worker threads; 0 = every hardware thread */
  int32_t device;  /* GPU ordinal for device backends; the CPU backend ignores it */
} xhd_distance_options;

/* The pair of triangles realizing a distance, and its two points (on A, and on B as posed). */
typedef struct xhd_distance_pair {
  double distance;    /* exact, in double precision from the input's vertices (xyz or xyz64), B posed */
  int64_t triangle_a; /* XHD_NO_INDEX when not computed */
  int64_t triangle_b;
  double point_a[3];
  double point_b[3];
  int32_t intersecting; /* minimum only: 1 when the two triangles share a point (cross or touch: distance 0) */
  int32_t reserved;
} xhd_distance_pair;

typedef struct xhd_distance_result {
  xhd_distance_pair min;      /* when XHD_DISTANCE_MIN was asked for */
  xhd_distance_pair max;      /* when XHD_DISTANCE_MAX was asked for */
  double query_ms;            /* this query: posing B, refitting its boxes, the traversal, the exact tests */
  double upload_ms;           /* host -> device copies of this query (device backends; 0 on the CPU) */
  double download_ms;         /* device -> host copies of this query */
  uint64_t box_pairs;         /* pairs of hierarchy nodes whose bounds were computed */
  uint64_t triangle_pairs;    /* exact triangle-triangle distances evaluated */
  uint64_t peak_device_bytes; /* most device memory the context has held (0 on the CPU) */
  int32_t device;             /* GPU ordinal used, or -1 on the CPU */
  uint32_t iterations;        /* front expansions (GPU) or 0 */
  /* XHD_DISTANCE_CONTACTS: the triangle pairs (A, B posed) whose exact distance is 0, all of them (0 when the
   * minimum is above 0 or contacts were not asked for), and the union over those pairs of the overlap of the
   * two triangles' axis-aligned boxes: every point the two meshes share lies in it (an outer bound of the
   * intersection, exact: from the input's corners, B posed as for the distances). NaN when no pair. */
  uint64_t contact_pairs;
  double contact_min[3];
  double contact_max[3];
} xhd_distance_result;

/* Both meshes' hierarchies (and on a GPU their device copies), built once and queried for many poses of B.
 * The context copies what it needs: the caller's arrays may be freed after xhd_distance_context_create.
 * Either mesh may be float32 (xyz) or double (xyz64): every distance, pair and point is the double-precision
 * brute force's over those vertices (ties to the smallest triangle of A, then of B), on every backend; the
 * hierarchies are float32 copies relative to an origin near each double mesh, used only as filters. */
typedef struct xhd_distance_context xhd_distance_context;

/* Builds the context; *build_ms receives the time spent (may be NULL). A point cloud may be passed as
 * triangles (i, i, i). progress may be NULL: done/total measure the build (in units of work, not of any
 * count the caller knows), and cancel is honoured between its steps and between the levels of its long
 * steps, with XHD_ERROR_CANCELLED and everything built so far freed. Returns an xhd_status; on failure
 * *context is NULL and xhd_last_error() says why. */
XHD_API int32_t xhd_distance_context_create(const xhd_mesh* a, const xhd_mesh* b, const xhd_distance_options* options,
                                            xhd_distance_context** context, double* build_ms, xhd_progress* progress);

/* The distances asked for at creation between A and B posed by pose_b: 12 doubles, the rows of a 3x4
 * affine transform [M | t], normally rigid (NULL: the identity). B's vertices (x, y, z) are posed per row as
 * ((m0*x + m1*y) + m2*z) + t, evaluated in double precision in that order (no fused multiply-add), then
 * rounded to float when B is float32 (xyz) and kept in double when B is double (xyz64); so a pose equals
 * passing the pre-posed vertices of the same type. B's boxes are refitted to them, its hierarchy is not
 * rebuilt. Points are reported in the input's coordinates. Threads: one query per context at a time.
 * progress may be NULL. */
XHD_API int32_t xhd_distance_query(xhd_distance_context* context, const double* pose_b, xhd_distance_result* result,
                                   xhd_progress* progress);

/* n queries in one call, in order: pose i is the 12 doubles at poses + 12 * i (as pose_b above), and
 * results[i] receives exactly what xhd_distance_query would for it after the queries before it (query_ms
 * its own time; a CPU context starts each search from the answer before, as it does across calls).
 * progress may be NULL: total = n, done counts the poses answered, and cancel is honoured before each pose
 * (XHD_ERROR_CANCELLED; a pose is never stopped halfway, and the context stays usable). On any failure the
 * poses before the failing one are answered in results and counted in done. poses and results may be NULL
 * only when n is 0. Threads: one query per context at a time, as for xhd_distance_query. */
XHD_API int32_t xhd_distance_query_many(xhd_distance_context* context, const double* poses, uint64_t n,
                                        xhd_distance_result* results, xhd_progress* progress);

/* Frees the context (NULL is ignored). */
XHD_API void xhd_distance_context_destroy(xhd_distance_context* context);

/* ---- Surface compare: all of `xhd compare` on meshes in one call ----
 * Samples each input, measures every sample's exact distance to the other input's surface, reduces the
 * distances and finds the witnesses (rules: kernels/geometry/surface_compare.h), in one call of every backend
 * that implements xhd_point_surface_distance. */

typedef enum xhd_sampling {
  XHD_SAMPLING_AREA = 0,     /* count area-weighted random points (as xhd_sample_surface) */
  XHD_SAMPLING_VERTICES = 1, /* the mesh's vertices as they are */
  XHD_SAMPLING_METRO = 2     /* vertices+edges+faces, as Metro: every vertex, points evenly spaced along every edge
                                and area samples inside the faces, one density t per unit length and t^2 per unit
                                area, the faces taking what the edges' rounding leaves of the count */
} xhd_sampling;

typedef struct xhd_surface_compare_options {
  int32_t method;     /* xhd_surface_method of the distance searches (XHD_SURFACE_BRUTE: XHD_CAP_REFERENCE_METHODS) */
  int32_t directions; /* XHD_DIRECTION_AB (directed), or XHD_DIRECTION_AB | XHD_DIRECTION_BA */
  int32_t sampling;   /* xhd_sampling */
  int32_t threads;    /* 0 = every hardware thread; on the CPU two directions run side by side on half each */
  int32_t device;     /* GPU ordinal for device backends; the CPU backend ignores it */
  int32_t reserved;
  uint64_t samples; /* samples per mesh; 0: max(1, round(density * area)) when density > 0, else
                       max(vertex count, 100000) */
  double density;   /* samples per unit area, used when samples is 0; 0 = not given */
  uint64_t seed;    /* A's random stream is seeded with seed, B's with seed + 1 (src/sampling/random.ts) */
} xhd_surface_compare_options;

/* Where a direction's query points came from (xhd_surface_direction.queries_from). */
#define XHD_QUERIES_SAMPLES 0 /* samples of the mesh's surface: in queries (float32 mesh) or queries64 (double) */
#define XHD_QUERIES_POINTS 1  /* the input's own vertices: vertices sampling, or a point cloud */
#define XHD_QUERIES_NO_AREA 2 /* the mesh's own vertices, because every triangle is degenerate (no area to sample) */

/* One direction: every query point of one input against the other input's surface. */
typedef struct xhd_surface_direction {
  double hd; /* the largest distance */
  double min;
  double mean;          /* sum / samples, the distances summed in sample order */
  double rms;           /* sqrt(e / samples) */
  double e;             /* sum of the squared distances, in sample order */
  uint64_t samples;     /* query points */
  int64_t from_index;   /* the witness: the first query point of the largest distance */
  int64_t to_index;     /* its nearest triangle of the other input (of a point cloud: the point), ties to the
                           smallest index, as the brute reference finds it */
  double from_point[3]; /* the witness query point */
  double to_point[3];   /* its closest point on the other input */
  int32_t queries_from; /* XHD_QUERIES_* */
  int32_t reserved;
  const float* queries;    /* XHD_QUERIES_SAMPLES of a float32 mesh: 3 * samples floats; else NULL */
  const double* queries64; /* XHD_QUERIES_SAMPLES of a double mesh: 3 * samples doubles; else NULL */
  const double* distances; /* each query point's distance, in query order */
  double build_ms;         /* this direction's index build */
  double query_ms;         /* this direction's searches */
  double upload_ms;
  double download_ms;
  uint64_t triangle_tests;
  uint64_t peak_device_bytes;
} xhd_surface_direction;

typedef struct xhd_surface_compare_result {
  xhd_surface_direction ab; /* A's query points against B */
  xhd_surface_direction ba; /* B's against A; all zero when directed */
  double sample_ms;         /* sampling both meshes (B's overlaps A's measuring where the directions overlap) */
  double build_ms;          /* wall times: sample_ms + build_ms + query_ms never exceed the call's wall time */
  double query_ms;
  double upload_ms; /* both directions' host -> device copies (0 on the CPU) */
  double download_ms;
  uint64_t peak_device_bytes;
  int32_t device;   /* GPU ordinal used, or -1 on the CPU */
  int32_t threads;  /* host threads used (the directions side by side had half each); 0 on a GPU */
  double origin[3]; /* A -> B's float filters ran on coordinates minus this point (0 for float32 inputs) */
} xhd_surface_compare_result;

/* Compares A and B surface to surface. Each input is a mesh, or a point cloud given as triangle_count = 0 and
 * triangles = NULL: a cloud's query points are its points, and its points are the surface the other side is
 * measured against. A mesh's query points follow options->sampling: its samples (seeded as documented at
 * xhd_sample_surface; the vertices+edges+faces sampler gives the TypeScript sampler's points bit for bit), or
 * its vertices, also when it has no area. Samples of a float32 mesh are floats, of a double mesh doubles;
 * every distance is exact in double over the coordinates as given (see xhd_point_surface_distance).
 * The query points and distances come back in memory the library owns: pass the result to
 * xhd_surface_compare_free when done with them. On failure nothing is owned and every pointer is NULL.
 * progress (may be NULL): done counts measured query points; cancel stops the call with XHD_ERROR_CANCELLED. */
XHD_API int32_t xhd_surface_compare(const xhd_mesh* a, const xhd_mesh* b, const xhd_surface_compare_options* options,
                                    xhd_surface_compare_result* result, xhd_progress* progress);

/* Frees the query points and distances of a result of xhd_surface_compare and sets their pointers to NULL
 * (NULL, or a result already freed, is ignored). */
XHD_API void xhd_surface_compare_free(xhd_surface_compare_result* result);

#ifdef __cplusplus
}
#endif

#endif /* XHD_H */
