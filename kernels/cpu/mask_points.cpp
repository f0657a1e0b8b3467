// xhd_mask_points of the CPU library: the selection on every core (kernels/geometry/voxel_mask_points.cpp).
#include <chrono>

#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "../geometry/voxel_mask_points.h"
#include "xhd.h"

extern "C" XHD_API int32_t xhd_mask_points(const xhd_voxel_mask* mask, xhd_mask_points_result* result,
                                           xhd_progress* progress) {
  return xhd::guarded(progress, [&] {
    xhd::check_voxel_mask(mask, result);
    const int threads = xhd::resolve_thread_count(mask->threads);
    const auto started = std::chrono::steady_clock::now();
    xhd::host_mask_points(*mask, threads, *result);
    xhd::fill_point_bounds(*result, threads);
    result->compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    result->threads = threads;
    return int32_t(XHD_OK);
  });
}
