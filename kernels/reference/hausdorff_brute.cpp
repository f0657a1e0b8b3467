// The reference every fast method is tested against: every pair, in double precision, no pruning.
// Ties go to the smallest index on both sides, so its witnesses are fully deterministic.
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include "../abi/elapsed.h"
#include "../cpu/directed.h"
#include "../abi/parallel.h"

namespace xhd {

void directed_brute(const DirectedJob& job, xhd_directed& out) {
  const auto t0 = std::chrono::steady_clock::now();
  const size_t n = job.source->count, m = job.target->count;
  const PointTruth& source = job.source->truth;
  const PointTruth& target = job.target->truth;
  std::vector<double> nearest2(n);
  std::vector<int64_t> nearest_index(n);
  parallel_blocks(n, 16, job.threads, [&](size_t begin, size_t end, int) {
    job.progress->check_cancel();
    for (size_t i = begin; i < end; ++i) {
      double best = std::numeric_limits<double>::infinity();
      int64_t best_j = XHD_NO_INDEX;
      for (size_t j = 0; j < m; ++j) {
        const double d2 = exact_dist2(source, i, target, j);
        if (d2 < best) {
          best = d2;
          best_j = static_cast<int64_t>(j);
        }
      }
      nearest2[i] = best;
      nearest_index[i] = best_j;
    }
    job.progress->add(end - begin);
  });
  size_t worst = 0;
  for (size_t i = 1; i < n; ++i)
    if (nearest2[i] > nearest2[worst]) worst = i;
  out.distance = std::sqrt(nearest2[worst]);
  out.from_index = static_cast<int64_t>(worst);
  out.to_index = nearest_index[worst];
  out.distance_evals = static_cast<uint64_t>(n) * m;
  out.exact_checks = n;
  out.query_ms = elapsed_ms(t0);
  out.exact_ms = out.query_ms;  // all of it is in double
}

}  // namespace xhd
