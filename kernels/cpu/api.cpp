// The C ABI entry points of the CPU backend: validate, dispatch, and turn every C++ exception into a
// status code plus a last-error message, since nothing may unwind into the FFI caller.
#include <chrono>
#include <memory>
#include <string>

#include "directed.h"
#include "../common/status_guard.h"
#include "../common/validate.h"
#include "../common/elapsed.h"
#include "../common/parallel.h"
#include "mesh_distance.h"
#include "surface_distance.h"
#include "../common/mesh_distance_common.h"
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

int32_t hausdorff(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                  xhd_hausdorff_result* result, xhd_progress* progress_slot) {
  xhd::check_hausdorff_call(a, b, options, result);
  const int directions = options->directions;
  const xhd::Progress progress(progress_slot);
  progress.set_total(((directions & XHD_DIRECTION_AB) ? a->count : 0) +
                     ((directions & XHD_DIRECTION_BA) ? b->count : 0));
  const xhd::HausdorffJob job{a->xyz, a->count, b->xyz, b->count, directions,
                              xhd::resolve_thread_count(options->threads), options->seed, options->cell_size, &progress};
  run_method(job, options->method, *result);
  return XHD_OK;
}

int32_t point_surface_distance(const xhd_points* points, const xhd_mesh* mesh, const xhd_surface_options* options,
                               double* distance, uint32_t* nearest_triangle, double* closest, xhd_surface_result* result,
                               xhd_progress* progress_slot) {
  xhd::check_surface_call(points, mesh, options, result);
  const xhd::Progress progress(progress_slot);
  progress.set_total(points->count);
  const xhd::SurfaceJob job{points->xyz, points->count, mesh, xhd::resolve_thread_count(options->threads), &progress,
                            distance, nearest_triangle, closest};
  if (options->method == XHD_SURFACE_BRUTE) xhd::surface_distance_brute(job, *result);
  else if (options->method == XHD_SURFACE_GRID) xhd::surface_distance_grid(job, *result);
  else xhd::surface_distance_bvh(job, *result);
  return XHD_OK;
}

}  // namespace

// The opaque context of the C ABI: the CPU backend's is one distance engine.
struct xhd_distance_context {
  std::unique_ptr<xhd::MeshDistanceEngine> engine;
};

extern "C" {

XHD_API int32_t xhd_abi_version(void) { return XHD_ABI_VERSION; }

XHD_API const char* xhd_backend_name(void) { return "cpu"; }

XHD_API int32_t xhd_device_count(void) {
  xhd::clear_last_error();
  return 0;
}

XHD_API int32_t xhd_device_info_get(int32_t, xhd_device_info*) {
  return xhd::guarded([]() -> int32_t { throw xhd::Unavailable("the CPU backend has no devices"); });
}

XHD_API int32_t xhd_hausdorff(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                              xhd_hausdorff_result* result, xhd_progress* progress) {
  return xhd::guarded([&] { return hausdorff(a, b, options, result, progress); });
}

XHD_API int32_t xhd_point_surface_distance(const xhd_points* points, const xhd_mesh* mesh,
                                           const xhd_surface_options* options, double* distance,
                                           uint32_t* nearest_triangle, double* closest,
                                           xhd_surface_result* result, xhd_progress* progress) {
  return xhd::guarded([&] {
    return point_surface_distance(points, mesh, options, distance, nearest_triangle, closest, result, progress);
  });
}

XHD_API int32_t xhd_distance_context_create(const xhd_mesh* a, const xhd_mesh* b, const xhd_distance_options* options,
                                            xhd_distance_context** context, double* build_ms) {
  if (context != nullptr) *context = nullptr;
  return xhd::guarded([&] {
    if (context == nullptr) throw InvalidArgument("context must not be null");
    xhd::check_distance_call(a, b, options);
    const auto start = std::chrono::steady_clock::now();
    auto made = std::make_unique<xhd_distance_context>();
    made->engine = options->method == XHD_DISTANCE_BRUTE ? xhd::make_brute_distance(*a, *b, *options)
                                                         : xhd::make_cpu_f12_distance(*a, *b, *options);
    if (build_ms != nullptr) *build_ms = xhd::elapsed_ms(start);
    *context = made.release();
    return int32_t(XHD_OK);
  });
}

XHD_API int32_t xhd_distance_query(xhd_distance_context* context, const double* pose_b, xhd_distance_result* result,
                                   xhd_progress*) {
  return xhd::guarded([&] {
    if (context == nullptr || result == nullptr) throw InvalidArgument("context and result must not be null");
    xhd::reset_distance_result(*result);
    xhd::check_pose(pose_b);
    context->engine->query(pose_b, *result);
    return int32_t(XHD_OK);
  });
}

XHD_API void xhd_distance_context_destroy(xhd_distance_context* context) { delete context; }

}  // extern "C"
