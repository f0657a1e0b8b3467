// xhd_distance_stats on the host: the argument checks every library shares, the percentile's interpolation from its
// two order statistics (the same double operations as src/metrics/order-statistics.ts), and the CPU statistics.
#pragma once

#include <cstdint>

#include "xhd.h"

namespace xhd {

// Refuses null pointers, a percentile outside [0, 100], negative thread counts; sets *result to its empty state.
void check_distance_stats(const double* ab, uint64_t n_ab, const double* ba, uint64_t n_ba,
                          const xhd_distance_stats_options* options, xhd_distance_stats_result* result);

// The same checks of options and result for n_ab and n_ba distances not measured yet (xhd_points_compare_stats).
void check_stats_request(uint64_t n_ab, uint64_t n_ba, const xhd_distance_stats_options* options,
                         xhd_distance_stats_result* result);

// Rank h = (n − 1)·p/100 split into its floor k and fraction.
struct PercentileRank {
  uint64_t k;
  double fraction;
};
PercentileRank percentile_rank(uint64_t n, double p);

// The percentile from the k-th and (k+1)-th smallest values (next unused when the fraction is 0 or k + 1 = n).
double interpolate_percentile(const PercentileRank& rank, uint64_t n, double kth, double next);

// Everything on the host, on `threads` threads: exact sums, maxima, order statistics; result's compute_ms and
// threads say how long and on how many.
void host_distance_stats(const double* ab, uint64_t n_ab, const double* ba, uint64_t n_ba,
                         const xhd_distance_stats_options& options, int threads, xhd_distance_stats_result& result);

}  // namespace xhd
