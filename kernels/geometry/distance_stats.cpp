// The host half of xhd_distance_stats: checks, the percentile's arithmetic, and the CPU library's statistics: each
// thread sums a block of distances into an exact accumulator (kernels/geometry/exact_sum.h), the accumulators are
// merged and rounded once, so the sums are the same bits on any number of threads and on the GPU; the order
// statistics come from a selection on a copy (std::nth_element), which finds the same values as any other method.
#include "distance_stats.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "../abi/parallel.h"
#include "../abi/validate.h"
#include "exact_sum.h"

namespace xhd {

void check_distance_stats(const double* ab, uint64_t n_ab, const double* ba, uint64_t n_ba,
                          const xhd_distance_stats_options* options, xhd_distance_stats_result* result) {
  if (options == nullptr || result == nullptr) throw InvalidArgument("options and result must not be null");
  if ((ab == nullptr && n_ab > 0) || (ba == nullptr && n_ba > 0)) throw InvalidArgument("distances must not be null");
  check_stats_request(n_ab, n_ba, options, result);
}

void check_stats_request(uint64_t n_ab, uint64_t n_ba, const xhd_distance_stats_options* options,
                         xhd_distance_stats_result* result) {
  if (options == nullptr || result == nullptr) throw InvalidArgument("options and result must not be null");
  if (options->has_percentile != 0 && !(options->percentile >= 0.0 && options->percentile <= 100.0))
    throw InvalidArgument("the percentile must lie in [0, 100]");
  if (options->threads < 0) throw InvalidArgument("threads must be >= 0");
  if (options->tolerance_count > 0) {
    if (options->tolerances == nullptr || options->within_ab == nullptr || (options->within_ba == nullptr && n_ba > 0))
      throw InvalidArgument("tolerances and their counts' arrays must not be null");
    for (uint64_t t = 0; t < options->tolerance_count; ++t)
      if (!(options->tolerances[t] >= 0.0 && options->tolerances[t] <= std::numeric_limits<double>::max()))
        throw InvalidArgument("tolerance " + std::to_string(t) + " is negative or not finite");
  }
  *result = xhd_distance_stats_result{};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (xhd_directed_stats* d : {&result->ab, &result->ba}) {
    d->max = -std::numeric_limits<double>::infinity();
    d->percentile = nan;
  }
  result->ab.count = n_ab;
  result->ba.count = n_ba;
  result->pooled_percentile = nan;
  result->device = -1;
}

PercentileRank percentile_rank(uint64_t n, double p) {
  const double h = (static_cast<double>(n - 1) * p) / 100.0;
  const double k = std::floor(h);
  return {static_cast<uint64_t>(k), h - k};
}

double interpolate_percentile(const PercentileRank& rank, uint64_t n, double kth, double next) {
  if (rank.fraction == 0.0 || rank.k + 1 >= n) return kth;
  return kth + rank.fraction * (next - kth);
}

namespace {

constexpr size_t kSumBlock = size_t(1) << 16;  // distances a thread sums before taking the next block

// Max, exact sum and exact sum of squares of one array, on `threads` threads; refuses a negative or non-finite value.
void sum_up(const double* d, uint64_t n, int threads, xhd_directed_stats& out) {
  std::mutex merge_mutex;
  ExactSum sum, sq;
  exact_sum_clear(sum);
  exact_sum_clear(sq);
  double max = -std::numeric_limits<double>::infinity();
  parallel_blocks(n, kSumBlock, threads, [&](size_t begin, size_t end, int) {
    ExactSum block_sum, block_sq;  // at most 2^16 additions a limb: far below the 2^31 an accumulator takes
    exact_sum_clear(block_sum);
    exact_sum_clear(block_sq);
    double block_max = -std::numeric_limits<double>::infinity();
    for (size_t i = begin; i < end; ++i) {
      const double v = d[i];
      if (!(v >= 0.0 && v <= std::numeric_limits<double>::max()))
        throw InvalidArgument("distance " + std::to_string(i) + " is negative or not finite");
      exact_sum_add(block_sum, v);
      exact_sum_add(block_sq, v * v);
      block_max = std::max(block_max, v);
    }
    exact_sum_normalize(block_sum);  // each limb below 2^32 again: the merged total stays far from overflow
    exact_sum_normalize(block_sq);
    std::lock_guard<std::mutex> lock(merge_mutex);
    exact_sum_merge(sum, block_sum);
    exact_sum_merge(sq, block_sq);
    max = std::max(max, block_max);
  });
  out.max = max;
  out.sum = exact_sum_round(sum);
  out.sq_sum = exact_sum_round(sq);
}

// within[t] = how many of d[0, n) are <= tolerances[t], on `threads` threads (the values were checked by sum_up).
void count_within(const double* d, uint64_t n, const double* tolerances, uint64_t taus, int threads, uint64_t* within) {
  std::mutex merge_mutex;
  std::fill(within, within + taus, uint64_t(0));
  parallel_blocks(n, kSumBlock, threads, [&](size_t begin, size_t end, int) {
    std::vector<uint64_t> block(taus, 0);
    for (uint64_t t = 0; t < taus; ++t) {
      const double tau = tolerances[t];
      uint64_t near = 0;
      for (size_t i = begin; i < end; ++i) near += d[i] <= tau ? 1 : 0;
      block[t] = near;
    }
    std::lock_guard<std::mutex> lock(merge_mutex);
    for (uint64_t t = 0; t < taus; ++t) within[t] += block[t];
  });
}

// The percentile of the values (copied: the caller's order stays).
double percentile_of(std::vector<double> values, double p) {
  const uint64_t n = values.size();
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  const PercentileRank rank = percentile_rank(n, p);
  std::nth_element(values.begin(), values.begin() + rank.k, values.end());
  const double kth = values[rank.k];
  double next = kth;
  if (rank.k + 1 < n) next = *std::min_element(values.begin() + rank.k + 1, values.end());
  return interpolate_percentile(rank, n, kth, next);
}

}  // namespace

namespace {

void host_statistics(const double* ab, uint64_t n_ab, const double* ba, uint64_t n_ba,
                     const xhd_distance_stats_options& options, int threads, xhd_distance_stats_result& result) {
  sum_up(ab, n_ab, threads, result.ab);
  sum_up(ba, n_ba, threads, result.ba);
  const uint64_t taus = options.tolerance_count;
  if (taus > 0) {
    count_within(ab, n_ab, options.tolerances, taus, threads, options.within_ab);
    if (options.within_ba != nullptr) count_within(ba, n_ba, options.tolerances, taus, threads, options.within_ba);
  }
  if (options.has_percentile == 0) return;
  const double p = options.percentile;
  if (n_ab > 0) result.ab.percentile = percentile_of(std::vector<double>(ab, ab + n_ab), p);
  if (n_ba > 0) result.ba.percentile = percentile_of(std::vector<double>(ba, ba + n_ba), p);
  if (options.pooled != 0) {
    std::vector<double> both(ab, ab + n_ab);
    both.insert(both.end(), ba, ba + n_ba);
    result.pooled_percentile = percentile_of(std::move(both), p);
  }
}

}  // namespace

void host_distance_stats(const double* ab, uint64_t n_ab, const double* ba, uint64_t n_ba,
                         const xhd_distance_stats_options& options, int threads, xhd_distance_stats_result& result) {
  const auto started = std::chrono::steady_clock::now();
  host_statistics(ab, n_ab, ba, n_ba, options, threads, result);
  result.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  result.threads = threads;
}

}  // namespace xhd
