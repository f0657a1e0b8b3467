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
 * Threads: functions may be called from any thread; calls share nothing but the last-error slot (a call given
 *          an xhd_progress also leaves its own message there: see xhd_progress).
 * Units: distances are in the input's units. Indices refer to the caller's original point order.
 */
#ifndef XHD_H
#define XHD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a struct layout or a function signature below changes. */
#define XHD_ABI_VERSION 28

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

/* Bytes of xhd_progress.message, its terminating NUL included. */
#define XHD_MESSAGE_BYTES 1024

/* Shared with a running call so the caller can show progress and cancel, and read why it failed. Host memory
 * that must stay valid for the whole call, and belong to that call alone. The library writes done/total with
 * relaxed atomics; the caller may read them at any time and may set cancel to nonzero, after which the call
 * returns XHD_ERROR_CANCELLED.
 * message: written once, as the call returns (read it only after that): why the call failed, the same text
 * xhd_last_error() gives, cut at a character boundary to fit and always NUL-terminated; "" when it succeeded.
 * Unlike the last-error slot, which every call of the process writes, no other call touches it: callers that
 * run calls concurrently (on a thread pool) read each call's failure here. */
typedef struct xhd_progress {
  uint64_t done;
  uint64_t total;
  uint32_t cancel;
  uint32_t reserved;
  char message[XHD_MESSAGE_BYTES];
} xhd_progress;

typedef struct xhd_hausdorff_options {
  int32_t method;     /* xhd_method */
  int32_t directions; /* XHD_DIRECTION_AB | XHD_DIRECTION_BA */
  int32_t threads;    /* worker threads; 0 = every hardware thread */
  int32_t device;     /* GPU ordinal for device backends; the CPU backend ignores it */
  uint64_t seed;      /* seed of the shuffles (eb) and of the sampled warm-up queries (grid) */
  double cell_size;   /* grid cell side length; 0 = chosen automatically */
  int32_t distinct;   /* 1: the caller knows that neither set holds two points equal in double (a mask's voxel
                         centres), and the search skips its check for copies (unique_points.h); every answer is the
                         same either way: copies cost time, never exactness */
  int32_t reserved;   /* 0 */
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
#define XHD_CAP_FILE_READERS                                                       \
  (1ull << 1) /* xhd_read_file, xhd_read_ply_vertices, xhd_read_triangle_records,  \
                 xhd_count_degenerate_triangles, the LAS, LAZ and E57 readers */
#define XHD_CAP_DELIMITED_TEXT (1ull << 2) /* xhd_count_lines and xhd_parse_delimited */
#define XHD_CAP_DEVICES                                                          \
  (1ull << 3) /* computes on devices (GPUs): xhd_device_count may be nonzero and \
                 xhd_device_info_get describes them; without it there are none */
#define XHD_CAP_REFERENCE_METHODS                                     \
  (1ull << 4) /* the double-precision brute forces: XHD_METHOD_BRUTE, \
                 XHD_SURFACE_BRUTE, XHD_DISTANCE_BRUTE (without it: invalid argument) */
#define XHD_CAP_STREAMED_COMPARE (1ull << 5) /* xhd_points_compare_files */

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

/* Message of the most recent failed call in this process (any thread), or "" if the most recent call succeeded.
 * The pointer stays valid until the calling thread calls xhd_last_error again. Only a caller that makes one call
 * at a time can trust it to describe its own call: a call given an xhd_progress leaves its message there too. */
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

/* Page-locks the caller's memory [memory, memory + bytes) (its inputs' coordinates, say) until xhd_host_unpin of the
 * same library: the GPU libraries register exactly that range with the driver for every device (cudaHostRegister,
 * portable; memory beside it on the same pages stays as it was), and their calls then copy inputs from it at the
 * links' full speed, several GPUs at once, with no staging copy on the host. Pinning costs about as much as one
 * staged copy of the memory (2 s for 24 GB on an H200 host): it pays for inputs compared more than once. The CPU
 * library does nothing. Memory must stay allocated while pinned. XHD_ERROR_OUT_OF_MEMORY when the driver refuses
 * (locked memory is limited; the calls still work from unpinned memory). */
XHD_API int32_t xhd_host_pin(const void* memory, uint64_t bytes);
/* Undoes xhd_host_pin(memory, ...) (the same pointer). */
XHD_API void xhd_host_unpin(const void* memory);

/* Directed Hausdorff distances between a and b, for the directions requested.
 * progress may be NULL. Returns an xhd_status; on failure progress->message and xhd_last_error() say why. */
XHD_API int32_t xhd_hausdorff(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                              xhd_hausdorff_result* result, xhd_progress* progress);

/* For each point, the exact (double precision) distance to the nearest point of the mesh's surface, over
 * the coordinates as given (points and mesh each float32 or double).
 * Outputs, each an array of points->count entries (3 per point for closest) that may be NULL when not
 * wanted: distance, nearest triangle (among equally near triangles the smallest index), and the closest
 * surface point. Degenerate triangles (repeated vertices, zero area) count as their edges and vertices.
 * progress may be NULL. Returns an xhd_status; on failure progress->message and xhd_last_error() say why. */
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
 * progress may be NULL. Returns an xhd_status; on failure progress->message and xhd_last_error() say why. */
XHD_API int32_t xhd_points_compare(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                                   const xhd_per_point* per_point, xhd_hausdorff_result* result,
                                   xhd_progress* progress);

/* Where xhd_points_compare_placed runs: one worker per entry of devices (GPU ordinals on device backends; an
 * ordinal may repeat, which runs two workers on one device); the answers are those of one worker bit for bit.
 * The CUDA backend's X-HD search (no per-point outputs, no far outliers) splits by space where the data lets
 * it: each worker searches the queries of one slab along an axis against the targets within a halo of it, and
 * a direction whose answer the halo does not prove is searched again split by queries (spatial_directions
 * says which were not). Split by queries, each worker has its own stream and its own copy of the target's
 * index, and takes pieces of each direction's queries from a shared counter. The CPU backend runs device_count groups of threads the same way (the ordinals
 * are not used there): the split and the merge, testable without a GPU. memory_limit caps the device
 * memory each worker uses (bytes; 0 = what is free): a target that does not fit is searched in tiles, each
 * query keeping its nearest over the tiles, exactly (device backends; the CPU backend ignores it). */
typedef struct xhd_placement {
  const int32_t* devices; /* device_count ordinals; NULL with device_count 0: options->device alone */
  uint32_t device_count;
  uint32_t spatial_directions; /* out: XHD_DIRECTION_* bits answered by the split by space (0 on the CPU) */
  uint64_t memory_limit;
  uint32_t target_tiles; /* out: the most tiles a direction's target was searched in (1 when it fitted) */
  uint32_t workers;      /* out: workers that ran */
} xhd_placement;

/* xhd_points_compare on the workers of placement (NULL: exactly xhd_points_compare). A worker that fails
 * stops the others and fails the call with xhd_last_error() naming its device; the outputs are then not
 * to be read. Without per-point outputs the Hausdorff distances and witnesses are those of xhd_hausdorff. */
XHD_API int32_t xhd_points_compare_placed(const xhd_points* a, const xhd_points* b,
                                          const xhd_hausdorff_options* options, xhd_placement* placement,
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

/* ---- Reading input files: host code. Optional: XHD_CAP_FILE_READERS (xhd_read_file, xhd_read_ply_vertices,
 * xhd_read_triangle_records, xhd_count_degenerate_triangles) and
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
  double scale[3];      /* 0: each coordinate as stored; else stored * scale + add, the product then the sum
                           (a LAS body: its integers and the header's scale and offset, as the LAS reader
                           computes them); needs XHD_FLOAT64 output, scale and add finite */
  double add[3];
} xhd_ply_vertex_layout;

/* What a read found. kind: */
#define XHD_READ_OK 0
#define XHD_READ_TRUNCATED 1    /* the file ended inside record `record`; `byte` is where its data ran out */
#define XHD_READ_BAD_VALUE 2    /* record `record` (at byte `byte`) holds `value`: non-finite or beyond +-1e15 */
#define XHD_READ_SYSTEM_ERROR 3 /* open or read failed with errno `error_number` */
#define XHD_READ_LAZ_CHUNK 4    /* a LAZ point file's chunk `record` (0-based) failed as XHD_LAZ_* `error_number`
                                   (TRUNCATED, SHORT_CHUNK or DAMAGED), at `byte` as xhd_laz_result gives it */
#define XHD_READ_LAZ_OUTSIDE 5  /* a LAZ point file's chunk `record` (at `byte`) decodes to axis `error_number`
                                   from min[0] to max[0], outside laz_bounds (xhd_point_file) */

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

/* A binary PLY's plain triangle records, the commonest face layout (`property list uchar int|uint vertex_indices`
 * alone, little endian: 13 bytes a record, a count byte then three indices), decoded by `threads` threads (0 =
 * every hardware thread). Writes the indices of the longest run of records from the first that are triangles
 * (count byte 3) with every index below vertex_count (an int32 index read unsigned, so a negative one is out of
 * range) into triangles, 3 a record, and that run's length into *read. The caller's general reader goes on from
 * the first record not in the run and says what is wrong with it, so only the run is written for certain:
 * triangles past it may hold anything. records: count * 13 bytes; triangles: room for 3 * count indices. */
XHD_API int32_t xhd_read_triangle_records(const uint8_t* records, uint64_t count, uint32_t vertex_count,
                                          int32_t threads, uint32_t* triangles, uint64_t* read);

/* The mesh's triangles that repeat a vertex index, or whose cross product (b - a) x (c - a), computed in double
 * from the coordinates widened to double, is exactly zero in all three components, counted by `threads` threads
 * (0 = every hardware thread) into *degenerate: the readers' note on degenerate triangles, equal to the
 * TypeScript count (countDegenerateTriangles) bit for bit. Exactly one of xyz and xyz64 when vertex_count > 0;
 * no other check of the mesh (a triangle with an index beyond the vertices, which TypeScript sees as NaN
 * coordinates, counts only where it repeats an index). */
XHD_API int32_t xhd_count_degenerate_triangles(const xhd_mesh* mesh, int32_t threads, uint64_t* degenerate);

/* ---- Points compare streamed from files: inputs larger than the host memory given. Optional:
 * XHD_CAP_STREAMED_COMPARE (the CPU library). ---- */

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

/* A point set in a file: fixed-size records (a binary PLY's vertices or an uncompressed LAS body), or a LAZ body
 * decoded whole chunks at a time (layout.threads: threads that read each piece). */
typedef struct xhd_point_file {
  const char* path;
  xhd_ply_vertex_layout layout; /* output: XHD_FLOAT32 where x, y, z are all float32 (their own truth), else
                                   XHD_FLOAT64 (every type widens exactly). With laz: count, output (XHD_FLOAT64)
                                   and threads alone are read */
  int32_t laz;              /* 1: the body is LAZ, as laz_job describes it (its filters null: every point) */
  int32_t laz_check_bounds; /* 1: each decoded chunk's integer bounds, scaled, must lie within laz_bounds widened
                               by max(|scale|, 1 % of their extent), as the whole-file reader checks them */
  xhd_laz_job laz_job;
  double laz_bounds[6];     /* the header's min x, y, z, then max x, y, z */
} xhd_point_file;

/* What xhd_points_compare_files did, and the first problem a read found. */
typedef struct xhd_streamed {
  uint64_t memory_limit; /* in: host bytes the call may hold for points, their index and per-query state
                            (it holds at least room for 1,024 queries and 1,024 targets) */
  uint32_t slabs;        /* out: slabs the space was cut into */
  uint32_t passes;       /* out: passes over the files, both directions, both files */
  uint64_t peak_bytes;   /* out: the most bytes the call held at once, by its own count */
  uint64_t second_pass_queries; /* out: queries searched again beyond their first halo */
  int32_t bad_file;      /* out: -1, or the file (0: a, 1: b) whose read found `read`; nothing else is then
                            to be read from the result */
  int32_t slow_directions; /* out: directions with a slab whose search was not proven (or whose halo held more
                              than a tile): that slab's queries searched again keeping every query's nearest */
  xhd_read_result read; /* out: that problem (record: the file's own record number) */
  double min_a[3];      /* out: the bounds of each file's points, as xhd_read_result gives them */
  double max_a[3];
  double min_b[3];
  double max_b[3];
  uint64_t skipped_records; /* out: records of LAZ chunks that passes needing only a slab or halo did not decode,
                               an earlier decode having shown them to lie outside it */
  uint64_t slow_slabs;      /* out: slabs, both directions counted, whose queries went query by query (those of
                               slow_directions); the other slabs' searches were proven by their halos */
} xhd_streamed;

/* The Hausdorff distance of the two files' points as xhd_hausdorff computes it over the same values (the
 * same distances and witnesses, bit for bit: double precision over the files' own coordinates, ties to the
 * smallest index), holding at most about streamed->memory_limit bytes: the sets are read in slabs of space
 * and searched in tiles (kernels/cpu/streamed_compare.h). options: method XHD_METHOD_GRID, directions,
 * threads, cell_size. Returns XHD_OK when the call ran, also when a file held a bad record (bad_file). */
XHD_API int32_t xhd_points_compare_files(const xhd_point_file* a, const xhd_point_file* b,
                                         const xhd_hausdorff_options* options, xhd_streamed* streamed,
                                         xhd_hausdorff_result* result, xhd_progress* progress);

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

/* ---- LAS point records, uncompressed, point formats 0 to 10. src/io/las-header.ts reads and checks the header
 * (and that the file holds the records it declares); src/io/las-records.ts decodes the same records in
 * TypeScript and stays the reference. ---- */

typedef struct xhd_las_job {
  uint64_t body_offset;   /* byte offset of the first point record */
  uint64_t point_count;   /* records: positions has room for 3 * point_count doubles */
  uint64_t piece_bytes;   /* bytes a thread reads at a time (whole records, at least one); 0 = the default (1 MiB) */
  uint64_t every;         /* keep the first of every `every` points the other filters keep; 0 or 1 keeps them all */
  uint32_t record_length; /* bytes per record, extra bytes included */
  int32_t extended;       /* 1 for formats 6-10 (4-bit returns in byte 14, the class in byte 16); 0 for 0-5 */
  double scale[3];        /* x = X * scale + offset in double, unfused, as LAS readers compute it */
  double offset[3];
  const uint8_t* classes; /* 256 flags: keep the points of class c where classes[c] != 0; null keeps all */
  const double* box;      /* keep points inside min x, y, z, max x, y, z (edges included); null keeps all */
  int32_t returns;        /* 0: every return; 1: first returns (number <= 1); 2: last (number >= count) */
  int32_t threads;        /* 0 = every hardware thread */
} xhd_las_job;

/* What a LAS read found. kind: */
#define XHD_LAS_OK 0
#define XHD_LAS_TRUNCATED 1    /* the file ended inside record `record`; `byte` is where its data ran out */
#define XHD_LAS_SYSTEM_ERROR 2 /* open or read failed with errno `error_number` */

typedef struct xhd_las_result {
  int32_t kind; /* XHD_LAS_* */
  int32_t error_number;
  uint64_t record;
  uint64_t byte;
  uint64_t kept;              /* points kept (filters, then every), packed in file order at the start of positions */
  uint64_t class_counts[256]; /* every record, by class */
  uint64_t return_counts[16]; /* and by return number */
  double raw_min[3];          /* every record's integer X, Y, Z: their bounds (+inf / -inf for none) */
  double raw_max[3];
  double min[3]; /* the kept points' bounds: in file order with `<` (the first of equal values stays) when */
  double max[3]; /* every <= 1, else as Math.min / Math.max over the thinned points; +inf / -inf for none */
} xhd_las_result;

/* Reads the LAS point records of the file at `path` on `job->threads` threads, each reading its own pieces with
 * positioned reads and decoding them in cache. attributes (may be null): 2 bytes a kept point, its class and
 * (return number | number of returns << 4), packed as the positions. Returns XHD_OK when the call ran, whatever
 * the file held: result->kind says whether the points are complete. Without XHD_CAP_FILE_READERS:
 * XHD_ERROR_UNAVAILABLE. */
XHD_API int32_t xhd_read_las(const char* path, const xhd_las_job* job, double* positions, uint8_t* attributes,
                             xhd_las_result* result);

/* ---- E57 (ASTM E2807) point data: one scan's binary section (a CompressedVector). src/io/e57*.ts reads the
 * header, the XML and the section header, and stays the reference: it decodes the same records, and it is the
 * one that names any problem (this reader only says that there is one). Offsets are logical: the bytes of
 * the file's 1024-byte pages without their 4-byte CRCs. ---- */

/* How a field's values are stored. */
#define XHD_E57_INTEGER 0 /* raw bits + minimum */
#define XHD_E57_SCALED 1  /* (raw bits + minimum) * scale + offset */
#define XHD_E57_FLOAT32 2 /* IEEE single, 32 bits */
#define XHD_E57_FLOAT64 3 /* IEEE double, 64 bits */

/* Four slots of fields: 0, 1, 2 the coordinates, x, y, z (cartesian) or range, azimuth, elevation (spherical);
 * 3 their invalid state (records where it is not 0 are skipped), or none (stream[3] = -1). */
typedef struct xhd_e57_job {
  uint64_t data_start;  /* logical offset of the section's first packet */
  uint64_t section_end; /* logical offset of the section's end */
  uint64_t records;     /* records the scan declares: positions has room for 3 * records doubles */
  uint64_t piece_bytes; /* logical bytes read at a time (a window); 0 = the default (32 MiB) */
  int64_t minimum[4];   /* integers: the raw minimum the stored bits count from */
  double scale[4];      /* XHD_E57_SCALED: value = (raw + minimum) * scale + offset */
  double offset[4];
  int32_t kind[4];     /* XHD_E57_* */
  int32_t bits[4];     /* bits a value takes in the field's bytestream (0 to 64; 32 and 64 for floats) */
  int32_t stream[4];   /* the field's place among a data packet's bytestreams (-1: no such field) */
  int32_t field_count; /* bytestreams a data packet holds: the prototype's fields */
  int32_t spherical;   /* 1: the valid records' range, azimuth, elevation are written as they are (the caller
                          converts them, with its own cos and sin); 0: x, y, z moved by the pose */
  const double* pose;  /* cartesian: the rotation matrix row by row, then the translation (12 doubles), or null */
  int32_t threads;     /* 0 = every hardware thread */
  int32_t reserved;
} xhd_e57_job;

/* What an E57 read found. kind: */
#define XHD_E57_OK 0
/* XHD_E57_PROBLEM: a page fails its CRC, a packet is not as the format says, the section ends early, or a
 * cartesian coordinate is not finite or beyond +-1e15; positions hold nothing to use. */
#define XHD_E57_PROBLEM 1
#define XHD_E57_SYSTEM_ERROR 2 /* open or read failed with errno `error_number` */

typedef struct xhd_e57_result {
  int32_t kind; /* XHD_E57_* */
  int32_t error_number;
  uint64_t kept;    /* valid records written, packed in file order at the start of positions */
  uint64_t invalid; /* records skipped for their invalid state */
  double min[3];    /* cartesian: the kept points' bounds, in file order with `<` (the first of equal values */
  double max[3];    /* stays); +inf / -inf for none. Spherical: not set */
} xhd_e57_result;

/* Reads and decodes one scan's section of the E57 file at `path` on `job->threads` threads, a window of pages
 * at a time: each page's CRC-32C checked, each data packet's bytestreams gathered by field, the records decoded
 * in blocks. Returns XHD_OK when the call ran, whatever the file held: result->kind says whether the points are
 * complete. Without XHD_CAP_FILE_READERS: XHD_ERROR_UNAVAILABLE. */
XHD_API int32_t xhd_read_e57(const char* path, const xhd_e57_job* job, double* positions, xhd_e57_result* result);

/* ---- LAZ (LASzip-compressed LAS) point data: point formats 0 to 3 (the version-2 items POINT10, GPSTIME11,
 * RGB12 and BYTE: extra bytes) and 6 to 8 (the layered version-3 items POINT14, RGB14, RGBNIR14 and BYTE14).
 * src/io/laz-chunks.ts reads and checks the chunk table; src/io/laz-*.ts decodes formats 0-3 in TypeScript
 * and stays their reference; laz-perf (WebAssembly) is the layered items' reference in the tests. ---- */

/* xhd_laz_job: with the points compare streamed from files, above. */


/* What a LAZ read found. kind: */
#define XHD_LAZ_OK 0
#define XHD_LAZ_TRUNCATED 1    /* chunk `chunk` runs past the file's end, which is at `byte` */
#define XHD_LAZ_SHORT_CHUNK 2  /* chunk `chunk` (from `byte`) ran out of bytes before its points did */
#define XHD_LAZ_DAMAGED 3      /* chunk `chunk` (from `byte`) holds data the format cannot hold */
#define XHD_LAZ_SYSTEM_ERROR 4 /* open or read failed with errno `error_number` */
#define XHD_LAZ_UNSUPPORTED 5  /* the items are not those of formats 0-3 or 6-8 (9 and 10 carry wave packets) */

typedef struct xhd_laz_result {
  int32_t kind; /* XHD_LAZ_*; on failure, the chunk is the lowest-numbered that failed */
  int32_t error_number;
  uint64_t chunk; /* 0-based */
  uint64_t byte;
  uint64_t kept; /* points the filters kept, packed in file order at the start of positions */
  uint64_t
      class_counts[256]; /* every record decoded, by class (formats 0-3: the low 5 bits of byte 15; 6-8: byte 16) */
  uint64_t return_counts[16]; /* and by return number (the low 3 bits of byte 14; 6-8: the low 4 bits) */
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
 * attributes (may be null): room for 2 * point_count bytes; each kept point's class and returns (return number | number
 * of returns << 4) come packed like the positions (an export that keeps them needs no other decoder).
 * Returns XHD_OK when the call ran, whatever the file held: result->kind says whether the points are complete. Without
 * XHD_CAP_FILE_READERS: XHD_ERROR_UNAVAILABLE. */
XHD_API int32_t xhd_read_laz(const char* path, const xhd_laz_job* job, double* positions, double* chunk_raw,
                             uint8_t* records, uint8_t* attributes, xhd_laz_result* result);

/* Compresses `count` raw LAS records of point format 6 to 8 (record_length bytes each, laid out as `items`: type,
 * size, version a item, POINT14 first, then RGB14 or RGBNIR14, then BYTE14, all version 3) as one layered LAZ chunk
 * into out. *written receives the chunk's length; when that is more than capacity, nothing is written and the call
 * returns XHD_ERROR_INVALID_ARGUMENT (call again with room for *written). Writers of LAZ and COPC files (tests,
 * benchmarks) lay the chunks out and write the chunk table themselves. Without XHD_CAP_FILE_READERS:
 * XHD_ERROR_UNAVAILABLE. */
XHD_API int32_t xhd_compress_laz_chunk(const uint8_t* records, uint64_t count, const uint16_t* items,
                                       uint32_t item_count, uint32_t record_length, uint8_t* out, uint64_t capacity,
                                       uint64_t* written);

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
/* On the CPU backend: each hierarchy is ordered, and each node's bounds (its box, and for the minimum its oriented
 * box, DOP and, for small nodes, distinct points) made, when a search first reaches the node, not all at creation;
 * only the top levels, which every search reaches, are split at creation. For one or a few queries, which reach a
 * small share of a mesh's nodes (about a hundred of a 1M-triangle mesh's million): creation then takes a fraction
 * of the time and the first queries longer. The answers are the same; the large nodes' bounds are looser (the
 * pairs searched may differ). Other backends ignore it. */
#define XHD_DISTANCE_ON_DEMAND 8
/* With XHD_DISTANCE_MIN, for two closed meshes (every edge run by exactly two triangles, in opposite directions):
 * whether the solids they bound (the even-odd rule) overlap, and bounds on their penetration depth, the length of
 * the shortest translation of B after which the solids' interiors are disjoint (xhd_distance_result.solids,
 * penetration_*; kernels/geometry/penetration.h says how each bound is made). Never a guess: the depth lies within
 * [lower, upper]; where both meshes are convex the two meet, to 1e-12 of the largest coordinate. B is posed in double
 * here (a float32 B's vertices converted exactly, then posed), not rounded to float as for the distances: a rigid pose
 * of a convex float32 mesh stays convex. CPU backend (bvh and brute methods give the same bits); the CUDA backend
 * refuses it. */
#define XHD_DISTANCE_PENETRATION 16

/* xhd_distance_result.solids: */
#define XHD_SOLIDS_NOT_ASKED 0
#define XHD_SOLIDS_OPEN 1      /* a mesh is not closed, or bounds no volume: no bounds (NaN) */
#define XHD_SOLIDS_APART 2     /* disjoint: upper 0, or the slack where the hulls touch to their rounding */
#define XHD_SOLIDS_OVERLAP 3   /* the interiors overlap: lower > 0 */
#define XHD_SOLIDS_UNDECIDED 4 /* the depth lies in [lower, upper], lower = 0: touching, or no deep point found */
/* xhd_distance_result.solids_flags: */
#define XHD_SOLIDS_A_CLOSED 1
#define XHD_SOLIDS_B_CLOSED 2
#define XHD_SOLIDS_CONVEX 4 /* both certified convex to their rounding, the hulls overlapping: lower and upper meet */

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
  /* XHD_DISTANCE_PENETRATION: XHD_SOLIDS_* and XHD_SOLIDS_A_CLOSED | ... bits; the depth lies in [lower, upper],
   * and moving B by upper along direction (unit) leaves the solids' interiors disjoint (NaN bounds when a mesh is
   * not closed; lower 0 and upper 0 or the slack when apart, direction 0 when apart). */
  int32_t solids;
  int32_t solids_flags;
  double penetration_lower;
  double penetration_upper;
  double penetration_direction[3];
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
 * *context is NULL and progress->message and xhd_last_error() say why. */
XHD_API int32_t xhd_distance_context_create(const xhd_mesh* a, const xhd_mesh* b, const xhd_distance_options* options,
                                            xhd_distance_context** context, double* build_ms, xhd_progress* progress);

/* The distances asked for at creation between A and B posed by pose_b: 12 doubles, the rows of a 3x4
 * affine transform [M | t], normally rigid (NULL: the identity). B's vertices (x, y, z) are posed per row as
 * ((m0*x + m1*y) + m2*z) + t, evaluated in double precision in that order (no fused multiply-add), then
 * rounded to float when B is float32 (xyz) and kept in double when B is double (xyz64); so a pose equals
 * passing the pre-posed vertices of the same type. B's boxes are refitted to them, its hierarchy is not
 * rebuilt. Points are reported in the input's coordinates. Threads: one query per context at a time.
 * progress may be NULL: only its message is written (why the query failed), the query being too short to
 * report or cancel. */
XHD_API int32_t xhd_distance_query(xhd_distance_context* context, const double* pose_b, xhd_distance_result* result,
                                   xhd_progress* progress);

/* n queries in one call, in order: pose i is the 12 doubles at poses + 12 * i (as pose_b above), and
 * results[i] receives exactly what xhd_distance_query would for it after the queries before it (a context starts
 * each search from the answer before, as it does across calls). A CPU context answers one pose at a time, query_ms
 * its own time; a CUDA context answers up to 64 poses in each launch of its search, query_ms a pose's own time on
 * the device plus an equal share of the rest of the batch's (so a batch's query_ms add up to its wall time).
 * progress may be NULL: total = n, done counts the poses answered, and cancel is honoured before each pose (CPU) or
 * batch of poses (CUDA) (XHD_ERROR_CANCELLED; a pose is never stopped halfway, and the context stays usable). On
 * any failure the poses before the failing one are answered in results and counted in done. poses and results may
 * be NULL only when n is 0. Threads: one query per context at a time, as for xhd_distance_query. */
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
  int32_t threads;    /* 0 = every hardware thread; on the CPU two directions run side by side, sharing them */
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
  int32_t threads;  /* host threads used (the directions side by side shared them); 0 on a GPU */
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

/* ---- Voxel masks: a segmentation's voxels as points, on every core (CPU library) or on the GPU ---- */

/* How xhd_voxel_mask.values is stored. 64-bit integers and scaled values are passed as XHD_VOXEL_F64. */
typedef enum xhd_voxel_type {
  XHD_VOXEL_U8 = 0,
  XHD_VOXEL_I8 = 1,
  XHD_VOXEL_U16 = 2,
  XHD_VOXEL_I16 = 3,
  XHD_VOXEL_U32 = 4,
  XHD_VOXEL_I32 = 5,
  XHD_VOXEL_F32 = 6,
  XHD_VOXEL_F64 = 7
} xhd_voxel_type;

/* A label volume and which of its voxels become points. Host memory, read-only. */
typedef struct xhd_voxel_mask {
  const void* values; /* dims[0]·dims[1]·dims[2] values of value_type, i fastest, then j, then k; finite */
  int32_t value_type; /* xhd_voxel_type */
  int32_t use_label;  /* 0: the foreground is every nonzero voxel; 1: the voxels whose value (as a double) == label */
  uint64_t dims[3];
  double label;
  double affine[12]; /* row-major 3x4: voxel centre (i, j, k) -> x = a[0]*i + a[1]*j + a[2]*k + a[3], ... */
  int32_t surface;   /* 1: only foreground voxels with a 6-connected background neighbour (outside the grid counts
                        as background); 0: every foreground voxel */
  int32_t threads;   /* worker threads (CPU library); 0 = every hardware thread */
  int32_t device;    /* GPU ordinal (device libraries); the CPU library ignores it */
  int32_t reserved;
} xhd_voxel_mask;

/* What xhd_mask_points found. xyz is the library's memory: release it with xhd_mask_points_free. */
typedef struct xhd_mask_points_result {
  double* xyz;                /* count points, x,y,z interleaved, in increasing linear voxel index; NULL when none */
  uint64_t count;             /* points (surface or foreground voxels) */
  uint64_t foreground;        /* foreground voxels in the whole volume */
  double upload_ms;           /* host -> device copy of the values (device libraries; 0 on the CPU) */
  double compute_ms;          /* the selection and the coordinates */
  double download_ms;         /* device -> host copy of the points */
  uint64_t peak_device_bytes; /* 0 on the CPU */
  int32_t device;             /* GPU ordinal used, or -1 on the CPU */
  int32_t threads;            /* host threads used (CPU library), else 1 */
  double bounds[6];           /* the points' smallest x, y, z then largest x, y, z, folded as JavaScript's Math.min
                                 and Math.max fold them (NaN when a coordinate is NaN, -0 below +0); +inf and -inf
                                 when there are no points */
} xhd_mask_points_result;

/* The centres of the mask's foreground voxels (or of its surface voxels) through the affine, in double, each
 * coordinate computed as (a[0]*i + (a[1]*j + a[2]*k)) + a[3] (the linear part first, the translation last, no
 * fused multiply-add): the points of the TypeScript reference (src/io/voxel-mask.ts maskToPoints) bit for bit, in
 * the same order, on every library. progress may be NULL; the call reports no progress and is not cancelled
 * through it: only progress->message is written. Returns an xhd_status; on failure progress->message and
 * xhd_last_error() say why and result->xyz is NULL. */
XHD_API int32_t xhd_mask_points(const xhd_voxel_mask* mask, xhd_mask_points_result* result, xhd_progress* progress);

/* Releases result->xyz (NULL allowed) and sets it to NULL. */
XHD_API void xhd_mask_points_free(xhd_mask_points_result* result);

/* ---- Statistics of per-point distances: on every core (CPU library) or on the GPU (device libraries) ---- */

typedef struct xhd_distance_stats_options {
  double percentile; /* 0..100: the percentile asked for (linear interpolation between closest ranks, NumPy's
                        default: rank h = (n - 1)·p/100); ignored when has_percentile is 0 */
  int32_t has_percentile;
  int32_t pooled;  /* 1: also the percentile of both directions' distances together */
  int32_t threads; /* worker threads (CPU library); 0 = every hardware thread */
  int32_t device;  /* GPU ordinal (device libraries); the CPU library ignores it */
  /* Surface agreement at tolerances (NSD, F-score): for each of tolerance_count distances tolerances[t] (finite,
   * >= 0), within_ab[t] and within_ba[t] receive how many of ab's and ba's distances are <= it. The arrays are
   * the caller's; tolerance_count 0 leaves all three unused (NULL allowed), and within_ba may be NULL when n_ba
   * is 0. Counted where the distances are (the GPU's copy on device libraries). */
  const double* tolerances;
  uint64_t* within_ab;
  uint64_t* within_ba;
  uint64_t tolerance_count;
} xhd_distance_stats_options;

/* One direction's distances summed up. The sums are exact, rounded once to the nearest double (ties to even), so
 * they do not depend on the order of the additions: every library and src/metrics/exact-sum.ts give the same bits. */
typedef struct xhd_directed_stats {
  uint64_t count;
  double max;        /* -inf when count is 0 */
  double sum;        /* of the distances */
  double sq_sum;     /* of each distance's square rounded to a double */
  double percentile; /* of this direction's distances (NaN when none was asked for or count is 0) */
} xhd_directed_stats;

typedef struct xhd_distance_stats_result {
  xhd_directed_stats ab;
  xhd_directed_stats ba;
  double pooled_percentile; /* of both directions together (NaN when not asked for) */
  double upload_ms;         /* host -> device copy of the distances (device libraries; 0 on the CPU) */
  double compute_ms;
  int32_t device;  /* GPU ordinal used, or -1 on the CPU */
  int32_t threads; /* host threads used (CPU library), else 1 */
} xhd_distance_stats_result;

/* The statistics of per-point distances ab (n_ab of them) and ba (n_ba; ba may be NULL when n_ba is 0): each
 * direction's count, max, exact sums and percentile, and the pooled percentile. Distances must be finite and >= 0.
 * progress may be NULL; the call reports no progress and is not cancelled through it: only progress->message is
 * written. Returns an xhd_status; on failure progress->message and xhd_last_error() say why. */
XHD_API int32_t xhd_distance_stats(const double* ab, uint64_t n_ab, const double* ba, uint64_t n_ba,
                                   const xhd_distance_stats_options* options, xhd_distance_stats_result* result,
                                   xhd_progress* progress);

/* xhd_points_compare and the statistics of the distances it measures, in one call: every point of each direction
 * in options->directions is measured, and *stats receives what xhd_distance_stats would give for those distances
 * (A -> B's as ab, a->count of them, or none when A -> B is not asked; B -> A's as ba likewise), bit for bit, the
 * counts within tolerances included. per_point may be NULL, and its distance arrays NULL: the distances are then
 * measured for the statistics alone. stats_options->threads and ->device are not used: the search's
 * (options->threads, options->device) are. Device libraries compute the statistics on the device, from the
 * distances the search left there: nothing is copied back but what per_point asks for (distances too many to keep
 * there, over an eighth of its memory or 2^31 - 1, come back and are summed up on the host). Runs where
 * xhd_points_compare runs (one device; for several, or a memory limit, xhd_points_compare_placed and then
 * xhd_distance_stats). Returns an xhd_status; on failure progress->message and xhd_last_error() say why. */
XHD_API int32_t xhd_points_compare_stats(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                                         const xhd_per_point* per_point,
                                         const xhd_distance_stats_options* stats_options,
                                         xhd_distance_stats_result* stats, xhd_hausdorff_result* result,
                                         xhd_progress* progress);

/* ---- Spatial join over collections of meshes (`xhd join`, after 3DPipe): every object of A against every
 * object of B, one call. Objects are surfaces: their distance is the smallest exact triangle-pair distance
 * (triangle_pair.h, in double over the input's coordinates), ties to the smallest triangle of the object of A,
 * then of B, as xhd_distance reports it. Object boxes in a tree filter the object pairs; each object's facets
 * are grouped (groups of up to group_size nearby triangles) and group boxes' lower bounds against the pair's
 * upper bound (distances between vertices) prune object pairs and group pairs; survivors are refined
 * exactly (on the CPU, or the GPU in the CUDA library), with the same answers on every backend. ---- */

#define XHD_JOIN_INTERSECTS 0 /* pairs whose surfaces share a point: distance 0 */
#define XHD_JOIN_WITHIN 1     /* pairs at distance <= options.distance */
#define XHD_JOIN_KNN 2        /* for each object of A, its k nearest of B, ties to the smaller index of B */

typedef enum xhd_join_method {
  XHD_JOIN_FILTERED = 0, /* the filter and refinement above */
  XHD_JOIN_BRUTE = 1     /* reference: every triangle pair of every object pair (XHD_CAP_REFERENCE_METHODS) */
} xhd_join_method;

/* A collection of objects: one vertex array (xyz, or xyz64 for double inputs) and one triangle array whose
 * indices point into it; object i is the triangles [object_faces[i], object_faces[i + 1]) (object_count + 1
 * offsets, counted in triangles, starting at 0). Every object needs at least one triangle. */
typedef struct xhd_join_set {
  const float* xyz;
  const double* xyz64;
  uint64_t vertex_count;
  const uint32_t* triangles;
  const uint64_t* object_faces;
  uint64_t object_count;
} xhd_join_set;

typedef struct xhd_join_options {
  int32_t predicate;   /* XHD_JOIN_INTERSECTS, XHD_JOIN_WITHIN or XHD_JOIN_KNN */
  int32_t method;      /* xhd_join_method */
  int32_t threads;     /* 0 = every hardware thread (host work on the CUDA backend) */
  int32_t device;      /* GPU ordinal (CUDA library) */
  double distance;     /* XHD_JOIN_WITHIN: D >= 0 */
  uint32_t k;          /* XHD_JOIN_KNN: k >= 1 */
  int32_t self_join;   /* 1: b is ignored and A is joined with itself, each unordered pair once (k-NN: never an
                          object with itself) */
  uint32_t group_size; /* triangles per facet group, 0 = the default (32) */
  uint32_t reserved;
} xhd_join_options;

/* The outcome; pairs are read with xhd_join_read and freed with xhd_join_free. Pairs are ordered by the object
 * of A, then (k-NN) by distance, then by the object of B. In a self-join a < b, except for k-NN. */
typedef struct xhd_join_result {
  uint64_t pair_count;
  uint64_t object_pairs;   /* object pairs the box filter kept */
  uint64_t group_pairs;    /* facet-group pairs refined */
  uint64_t triangle_pairs; /* exact triangle-pair distances computed */
  double build_ms;         /* facet groups and the object tree */
  double filter_ms;        /* object and group bounds */
  double refine_ms;        /* exact refinement (with the GPU's copies) */
  double upload_ms;        /* host -> device (0 on the CPU) */
  double download_ms;
  uint64_t peak_device_bytes;
  int32_t device;  /* GPU ordinal, -1 on the CPU */
  int32_t threads; /* host threads used */
  void* pairs;     /* owned by the library */
} xhd_join_result;

XHD_API int32_t xhd_join(const xhd_join_set* a, const xhd_join_set* b, const xhd_join_options* options,
                         xhd_join_result* result, xhd_progress* progress);

/* Copies pairs [first, first + count) of a result, column by column: objects (2 a pair: a, b), distance,
 * triangles (2 a pair, each the triangle's index within its object), points (6 a pair: on a, on b),
 * intersecting (1 when the pair shares a point). Any column may be NULL. */
XHD_API int32_t xhd_join_read(const xhd_join_result* result, uint64_t first, uint64_t count, uint64_t* objects,
                              double* distance, int64_t* triangles, double* points, int32_t* intersecting);

/* Frees the pairs of a result (NULL, or a result already freed, is ignored). */
XHD_API void xhd_join_free(xhd_join_result* result);

#ifdef __cplusplus
}
#endif

#endif /* XHD_H */
