// The reference for per-point nearest distances: every pair, in double precision, no pruning.
#include <chrono>
#include <cmath>
#include <limits>

#include "../abi/elapsed.h"
#include "../abi/parallel.h"
#include "../cpu/nearest_points.h"

namespace xhd {

void nearest_points_brute(const NearestJob& job, xhd_nearest_result& result) {
  const auto start = std::chrono::steady_clock::now();
  const PointTruth& queries = job.queries->truth;
  const PointTruth& targets = job.targets->truth;
  parallel_blocks(queries.count, 16, job.threads, [&](size_t begin, size_t end, int) {
    job.progress->check_cancel();
    for (size_t i = begin; i < end; ++i) {
      double best = std::numeric_limits<double>::infinity();
      int64_t best_j = XHD_NO_INDEX;
      for (size_t j = 0; j < targets.count; ++j) {
        const double d2 = exact_dist2(queries, i, targets, j);
        if (d2 < best) {
          best = d2;
          best_j = static_cast<int64_t>(j);
        }
      }
      if (job.nearest != nullptr) job.nearest[i] = best_j;
      if (job.distance != nullptr) job.distance[i] = std::sqrt(best);
    }
    job.progress->add(end - begin);
  });
  result.query_ms = elapsed_ms(start);
  result.distance_evals = static_cast<uint64_t>(queries.count) * targets.count;
}

}  // namespace xhd
