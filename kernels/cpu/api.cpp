// The C ABI entry points of the CPU backend: validate, dispatch, and turn every C++ exception into a
// status code plus a last-error message, since nothing may unwind into the FFI caller.
#include <cmath>
#include <utility>
#include <string>
#include <vector>

#include "directed.h"
#include "../abi/distance_context.h"
#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "../geometry/island_compare.h"
#include "../geometry/surface_compare.h"
#include "../geometry/unique_points.h"
#include "../abi/validate.h"
#include "mesh_distance.h"
#include "nearest_points.h"
#include "points_compare.h"
#include "../abi/measured_distances.h"
#include "../abi/per_point.h"
#include "../abi/work_split.h"
#include "streamed_compare.h"
#include "surface_distance.h"
#include "xhd.h"

namespace {

using xhd::InvalidArgument;

void run_method(const xhd::HausdorffJob& job, int method, xhd_hausdorff_result& result) {
  if (method == XHD_METHOD_GRID) return xhd::grid_hausdorff(job, result);
  void (*directed)(const xhd::DirectedJob&, xhd_directed&) = nullptr;
  if (method == XHD_METHOD_EB) directed = xhd::directed_eb;
  if (method == XHD_METHOD_BRUTE) directed = xhd::directed_brute;
  if (directed == nullptr) throw InvalidArgument("unknown method " + std::to_string(method));
  if (job.directions & XHD_DIRECTION_AB) directed(job.direction_ab(), result.ab);
  if (job.directions & XHD_DIRECTION_BA) directed(job.direction_ba(), result.ba);
}

// xhd_hausdorff over one frame of both sets, its arguments checked.
void whole_hausdorff(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                     xhd_hausdorff_result* result, xhd_progress* progress_slot) {
  const int directions = options->directions;
  const xhd::Progress progress(progress_slot);
  progress.set_total(((directions & XHD_DIRECTION_AB) ? a->count : 0) +
                     ((directions & XHD_DIRECTION_BA) ? b->count : 0));
  const int threads = xhd::resolve_thread_count(options->threads);
  xhd::PointFrame frame;
  xhd::frame_points(*a, b, threads, frame);
  xhd::trust_distinct(frame, *options);
  for (int k = 0; k < 3; ++k) result->origin[k] = frame.origin[k];
  // The fast methods search each set's unique points (unique_points.h); brute stays the plain reference.
  if (options->method != XHD_METHOD_BRUTE) {
    xhd::drop_duplicates(frame, threads);
    progress.set_total(((directions & XHD_DIRECTION_AB) ? frame.a.count : 0) +
                       ((directions & XHD_DIRECTION_BA) ? frame.b.count : 0));
  }
  const xhd::HausdorffJob job{&frame, directions, threads, options->seed, options->cell_size, &progress};
  run_method(job, options->method, *result);
  xhd::report_input_indices(frame, *result);
}

// Sets that part into islands far apart are searched an island at a time (island_compare.h), each in a frame of its
// own; otherwise in one frame.
int32_t hausdorff(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                  xhd_hausdorff_result* result, xhd_progress* progress_slot) {
  xhd::check_hausdorff_call(a, b, options, result);
  const auto island = [&](const xhd_points& ia, const xhd_points& ib, const xhd_per_point&, xhd_hausdorff_result& r,
                          xhd_progress* p) { whole_hausdorff(&ia, &ib, options, &r, p); };
  if (!xhd::compare_by_islands(*a, *b, *options, nullptr, *result, progress_slot, island))
    whole_hausdorff(a, b, options, result, progress_slot);
  return XHD_OK;
}

// points_compare over one frame of both sets, its queries shared among `workers` groups of threads.
void whole_points_compare(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                          const xhd_per_point& per_point, xhd_hausdorff_result* result, xhd_progress* progress_slot,
                          int workers) {
  const xhd::Progress progress(progress_slot);
  const int threads = xhd::resolve_thread_count(options->threads);
  xhd::PointFrame frame;
  xhd::frame_points(*a, b, threads, frame);
  xhd::trust_distinct(frame, *options);
  for (int k = 0; k < 3; ++k) result->origin[k] = frame.origin[k];
  xhd::cpu_points_compare(frame, *options, per_point, threads, workers, progress, *result);
}

// points_compare once its arguments are checked: island by island where the sets part so (island_compare.h).
void checked_points_compare(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                            const xhd_per_point& per_point, xhd_hausdorff_result* result, xhd_progress* progress_slot,
                            int workers = 1) {
  const auto island = [&](const xhd_points& ia, const xhd_points& ib, const xhd_per_point& outputs,
                          xhd_hausdorff_result& r, xhd_progress* p) {
    whole_points_compare(&ia, &ib, options, outputs, &r, p, workers);
  };
  if (!xhd::compare_by_islands(*a, *b, *options, &per_point, *result, progress_slot, island))
    whole_points_compare(a, b, options, per_point, result, progress_slot, workers);
}

// The search's outputs with distance arrays of its own where the caller gave none (measured_distances.h), then
// the statistics of those distances on the same threads (kernels/geometry/distance_stats.cpp).
int32_t points_compare_stats(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                             const xhd_per_point* per_point, const xhd_distance_stats_options* stats_options,
                             xhd_distance_stats_result* stats, xhd_hausdorff_result* result,
                             xhd_progress* progress_slot) {
  xhd::check_hausdorff_call(a, b, options, result);  // before any allocation sized by the counts
  const xhd::MeasuredDistances measured(*a, *b, *options, per_point, stats_options, stats);
  checked_points_compare(a, b, options, measured.outputs, result, progress_slot);
  xhd::host_distance_stats(measured.outputs.distance_ab, measured.n_ab, measured.outputs.distance_ba, measured.n_ba,
                           *stats_options, xhd::resolve_thread_count(options->threads), *stats);
  return XHD_OK;
}

// Without per-point outputs, xhd_hausdorff itself; with them, every point measured (points_compare.h) over one
// frame of both inputs, as xhd_hausdorff frames them.
int32_t points_compare(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                       const xhd_per_point* per_point, xhd_hausdorff_result* result, xhd_progress* progress_slot) {
  if (!xhd::wants_per_point(per_point)) return hausdorff(a, b, options, result, progress_slot);
  xhd::check_hausdorff_call(a, b, options, result);
  xhd::check_per_point(*per_point, options->directions);
  checked_points_compare(a, b, options, *per_point, result, progress_slot);
  return XHD_OK;
}

// Several workers: each direction's grid queries split among groups of threads (work_split.h), every point
// measured as xhd_points_compare measures it with outputs, whose witnesses are xhd_hausdorff's. One worker
// (or none listed) is xhd_points_compare itself. The ordinals and the memory limit are the devices'.
int32_t points_compare_placed(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                              xhd_placement* placement, const xhd_per_point* per_point, xhd_hausdorff_result* result,
                              xhd_progress* progress_slot) {
  const std::vector<int> devices = xhd::placement_devices(placement, options != nullptr ? options->device : 0);
  const int workers = static_cast<int>(devices.size());
  if (workers <= 1 || (options != nullptr && options->method == XHD_METHOD_BRUTE)) {
    const int32_t status = points_compare(a, b, options, per_point, result, progress_slot);
    if (placement != nullptr) {
      placement->workers = 1;
      placement->target_tiles = 1;
    }
    return status;
  }
  xhd::check_hausdorff_call(a, b, options, result);
  const xhd_per_point none{};
  const xhd_per_point& outputs = per_point != nullptr ? *per_point : none;
  xhd::check_per_point(outputs, options->directions);
  checked_points_compare(a, b, options, outputs, result, progress_slot, workers);
  placement->workers = static_cast<uint32_t>(workers);
  placement->target_tiles = 1;
  return XHD_OK;
}

void run_surface_method(int method, const xhd::SurfaceJob& job, xhd_surface_result& result) {
  if (method == XHD_SURFACE_BRUTE) xhd::surface_distance_brute(job, result);
  else if (method == XHD_SURFACE_GRID) xhd::surface_distance_grid(job, result);
  else xhd::surface_distance_bvh(job, result);
}

int32_t point_surface_distance(const xhd_points* points, const xhd_mesh* mesh, const xhd_surface_options* options,
                               double* distance, uint32_t* nearest_triangle, double* closest,
                               xhd_surface_result* result, xhd_progress* progress_slot) {
  xhd::check_surface_call(points, mesh, options, result);
  const xhd::Progress progress(progress_slot);
  progress.set_total(points->count);
  const xhd::SurfaceJob job{points,           mesh,   xhd::resolve_thread_count(options->threads), &progress, distance,
                            nearest_triangle, closest};
  run_surface_method(options->method, job, *result);
  return XHD_OK;
}

// A surface compare through the CPU searches: each direction's distances alone, by the method asked for.
int32_t surface_compare(const xhd_mesh* a, const xhd_mesh* b, const xhd_surface_compare_options* options,
                        xhd_surface_compare_result* result, xhd_progress* progress) {
  const int method = options != nullptr ? options->method : XHD_SURFACE_GRID;
  const xhd::SurfaceBackend cpu{[method](const xhd::SurfaceMeasureJob& m, xhd_surface_result& r) {
                                  const xhd::SurfaceJob job{&m.queries, m.target, m.threads, m.progress,
                                                            m.distance, nullptr,  nullptr,   m.lane};
                                  run_surface_method(method, job, r);
                                },
                                true};
  xhd::surface_compare(a, b, options, result, progress, cpu);
  return XHD_OK;
}

int32_t nearest_points(const xhd_points* queries, const xhd_points* targets, const xhd_hausdorff_options* options,
                       double* distance, int64_t* nearest, xhd_nearest_result* result, xhd_progress* progress_slot) {
  if (options == nullptr || result == nullptr) throw InvalidArgument("options and result must not be null");
  *result = xhd_nearest_result{};
  result->device = -1;
  if (options->threads < 0) throw InvalidArgument("threads must be >= 0");
  if (!(options->cell_size >= 0.0) || !std::isfinite(options->cell_size))
    throw InvalidArgument("cell_size must be a finite number >= 0");
  if (options->method != XHD_METHOD_GRID && options->method != XHD_METHOD_BRUTE)
    throw InvalidArgument("nearest points: method must be grid or brute");
  xhd::check_distinct_flag(*options);
  const int threads = xhd::resolve_thread_count(options->threads);
  xhd::check_points(queries, "of queries", threads);
  xhd::check_points(targets, "of targets", threads);
  const xhd::Progress progress(progress_slot);
  progress.set_total(queries->count);
  xhd::PointFrame frame;
  xhd::frame_points(*queries, targets, threads, frame);
  xhd::trust_distinct(frame, *options);
  // Only the targets: every query needs its own answer, and a copied query costs what a distinct one does.
  if (options->method != XHD_METHOD_BRUTE) xhd::drop_duplicates(frame.b, threads);
  const xhd::NearestJob job{&frame,    &frame.a, &frame.b, &frame.bounds, threads, options->cell_size,
                            &progress, distance, nearest};
  if (options->method == XHD_METHOD_BRUTE) xhd::nearest_points_brute(job, *result);
  else xhd::nearest_points_grid(job, *result);
  return XHD_OK;
}

int32_t points_compare_files(const xhd_point_file* a, const xhd_point_file* b, const xhd_hausdorff_options* options,
                             xhd_streamed* streamed, xhd_hausdorff_result* result, xhd_progress* progress_slot) {
  if (a == nullptr || b == nullptr || streamed == nullptr) throw InvalidArgument("a, b and streamed must not be null");
  xhd::check_hausdorff_options(options, result);
  const uint64_t limit = streamed->memory_limit;
  *streamed = xhd_streamed{};
  streamed->memory_limit = limit;
  streamed->bad_file = -1;
  if (options->method != XHD_METHOD_GRID) throw InvalidArgument("a streamed compare runs the grid method alone");
  for (const auto& [file, name] : {std::pair{a, "A"}, std::pair{b, "B"}}) {
    if (file->path == nullptr) throw InvalidArgument(std::string("point file ") + name + " has no path");
    if (file->layout.count == 0) throw InvalidArgument(std::string("point set ") + name + " is empty");
  }
  const xhd::Progress progress(progress_slot);
  xhd::streamed_points_compare(*a, *b, *options, *streamed, progress, *result);
  return XHD_OK;
}

}  // namespace

extern "C" {

XHD_API int32_t xhd_abi_version(void) { return XHD_ABI_VERSION; }

// Nothing to do: the CPU library reads inputs in place, wherever they are.
XHD_API int32_t xhd_host_pin(const void* memory, uint64_t) {
  return xhd::guarded([&]() -> int32_t {
    if (memory == nullptr) throw xhd::InvalidArgument("memory must not be null");
    return XHD_OK;
  });
}

XHD_API void xhd_host_unpin(const void*) {}

XHD_API int32_t xhd_points_compare_files(const xhd_point_file* a, const xhd_point_file* b,
                                         const xhd_hausdorff_options* options, xhd_streamed* streamed,
                                         xhd_hausdorff_result* result, xhd_progress* progress) {
  return xhd::guarded(progress, [&] { return points_compare_files(a, b, options, streamed, result, progress); });
}

XHD_API const char* xhd_backend_name(void) { return "cpu"; }

// Every optional part of the ABI but devices: the readers and the nearest-point search are host code built
// into this library alone, and the brute-force references are this library's.
XHD_API uint64_t xhd_capabilities(void) {
  return XHD_CAP_NEAREST_POINTS | XHD_CAP_FILE_READERS | XHD_CAP_DELIMITED_TEXT | XHD_CAP_REFERENCE_METHODS |
         XHD_CAP_STREAMED_COMPARE;
}

XHD_API int32_t xhd_device_count(void) {
  xhd::clear_last_error();
  return 0;
}

XHD_API int32_t xhd_device_info_get(int32_t, xhd_device_info*) {
  return xhd::guarded([]() -> int32_t { throw xhd::Unavailable("the CPU backend has no devices"); });
}

XHD_API int32_t xhd_hausdorff(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                              xhd_hausdorff_result* result, xhd_progress* progress) {
  return xhd::guarded(progress, [&] { return hausdorff(a, b, options, result, progress); });
}

XHD_API int32_t xhd_points_compare(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                                   const xhd_per_point* per_point, xhd_hausdorff_result* result,
                                   xhd_progress* progress) {
  return xhd::guarded(progress, [&] { return points_compare(a, b, options, per_point, result, progress); });
}

XHD_API int32_t xhd_points_compare_stats(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                                         const xhd_per_point* per_point,
                                         const xhd_distance_stats_options* stats_options,
                                         xhd_distance_stats_result* stats, xhd_hausdorff_result* result,
                                         xhd_progress* progress) {
  return xhd::guarded(progress, [&] {
    return points_compare_stats(a, b, options, per_point, stats_options, stats, result, progress);
  });
}

XHD_API int32_t xhd_points_compare_placed(const xhd_points* a, const xhd_points* b,
                                          const xhd_hausdorff_options* options, xhd_placement* placement,
                                          const xhd_per_point* per_point, xhd_hausdorff_result* result,
                                          xhd_progress* progress) {
  return xhd::guarded(progress,
                      [&] { return points_compare_placed(a, b, options, placement, per_point, result, progress); });
}

XHD_API int32_t xhd_nearest_points(const xhd_points* queries, const xhd_points* targets,
                                   const xhd_hausdorff_options* options, double* distance, int64_t* nearest,
                                   xhd_nearest_result* result, xhd_progress* progress) {
  return xhd::guarded(progress,
                      [&] { return nearest_points(queries, targets, options, distance, nearest, result, progress); });
}

XHD_API int32_t xhd_point_surface_distance(const xhd_points* points, const xhd_mesh* mesh,
                                           const xhd_surface_options* options, double* distance,
                                           uint32_t* nearest_triangle, double* closest, xhd_surface_result* result,
                                           xhd_progress* progress) {
  return xhd::guarded(progress, [&] {
    return point_surface_distance(points, mesh, options, distance, nearest_triangle, closest, result, progress);
  });
}

XHD_API int32_t xhd_surface_compare(const xhd_mesh* a, const xhd_mesh* b, const xhd_surface_compare_options* options,
                                    xhd_surface_compare_result* result, xhd_progress* progress) {
  return xhd::guarded(progress, [&] { return surface_compare(a, b, options, result, progress); });
}

XHD_API int32_t xhd_distance_context_create(const xhd_mesh* a, const xhd_mesh* b, const xhd_distance_options* options,
                                            xhd_distance_context** context, double* build_ms, xhd_progress* progress) {
  return xhd::create_distance_context(
      a, b, options, context, build_ms, progress, -1, [&](const xhd_distance_options& o, const xhd::Progress& p) {
        return o.method == XHD_DISTANCE_BRUTE ? xhd::make_brute_distance(*a, *b, o)
                                              : xhd::make_cpu_f12_distance(*a, *b, o, p);
      });
}

XHD_API int32_t xhd_distance_query(xhd_distance_context* context, const double* pose_b, xhd_distance_result* result,
                                   xhd_progress* progress) {
  return xhd::query_distance_context(context, pose_b, result, progress, [](xhd_distance_context&) {});
}

XHD_API int32_t xhd_distance_query_many(xhd_distance_context* context, const double* poses, uint64_t n,
                                        xhd_distance_result* results, xhd_progress* progress) {
  return xhd::query_many_distance_context(context, poses, n, results, progress, [](xhd_distance_context&) {});
}

XHD_API void xhd_distance_context_destroy(xhd_distance_context* context) { delete context; }

}  // extern "C"
