// xhd_distance_stats of the CPU library: the statistics on every core (kernels/geometry/distance_stats.cpp).
#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "../geometry/distance_stats.h"
#include "xhd.h"

extern "C" XHD_API int32_t xhd_distance_stats(const double* ab, uint64_t n_ab, const double* ba, uint64_t n_ba,
                                              const xhd_distance_stats_options* options,
                                              xhd_distance_stats_result* result, xhd_progress* progress) {
  return xhd::guarded(progress, [&] {
    xhd::check_distance_stats(ab, n_ab, ba, n_ba, options, result);
    xhd::host_distance_stats(ab, n_ab, ba, n_ba, *options, xhd::resolve_thread_count(options->threads), *result);
    return int32_t(XHD_OK);
  });
}
