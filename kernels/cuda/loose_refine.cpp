#include "loose_refine.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "../abi/parallel.h"
#include "../cpu/loose_points.h"
#include "refine_on_host.h"

namespace xhd {
namespace {

// Loose-source x target pairs a thread scans before a grid of the targets is cheaper (about 10 ms of
// double evaluations). XHD_CUDA_LOOSE_SCAN_PAIRS sets the total instead (tests reach the grid path so).
double max_scan_pairs(int threads) {
  const char* limit = std::getenv("XHD_CUDA_LOOSE_SCAN_PAIRS");
  return limit != nullptr ? std::strtod(limit, nullptr) : static_cast<double>(1 << 24) * threads;
}

void offer(SourceNearest& best, double d2, uint32_t j) {
  if (d2 < best.dist2 || (d2 == best.dist2 && j < best.target)) {
    best.dist2 = d2;
    best.target = j;
  }
}

}  // namespace

void offer_loose_targets(const PointFrame& frame, const FramedSet& source, const FramedSet& target,
                         std::vector<SourceNearest>& survivors, int threads) {
  if (target.loose.empty()) return;
  const LooseContext loose = LooseContext::of(frame, target);
  parallel_blocks(survivors.size(), 256, threads, [&](size_t begin, size_t end, int) {
    uint64_t evals = 0;
    for (size_t s = begin; s < end; ++s) {
      SourceNearest& best = survivors[s];
      if (!loose.may_reach(&source.xyz[3ull * best.source], std::sqrt(best.dist2))) continue;
      ExactNearest e{best.dist2, best.target};
      loose.offer_all(source, best.source, e, evals);
      best.dist2 = e.dist2;
      best.target = e.target;
    }
  });
}

// Every loose source against every target in double: blocks of targets, each evaluated against every loose
// source while in cache; blocks in ascending order per thread, and the merge keeps the smaller index on
// ties, so any split gives the same answer.
static std::vector<SourceNearest> scan_every_target(const FramedSet& source, const FramedSet& target, int threads) {
  const size_t n = source.loose.size();
  const int parts = std::max(threads, 1);
  std::vector<std::vector<SourceNearest>> partial(parts, std::vector<SourceNearest>(n));
  for (auto& list : partial)
    for (size_t k = 0; k < n; ++k) list[k] = {source.loose[k], INFINITY, UINT32_MAX};
  parallel_blocks(target.count, 4096, threads, [&](size_t begin, size_t end, int tid) {
    std::vector<SourceNearest>& mine = partial[tid];
    for (size_t k = 0; k < n; ++k)
      for (size_t j = begin; j < end; ++j)
        offer(mine[k], exact_dist2(source.truth, mine[k].source, target.truth, j), static_cast<uint32_t>(j));
  });
  std::vector<SourceNearest> best = partial[0];
  for (int t = 1; t < parts; ++t)
    for (size_t k = 0; k < n; ++k) offer(best[k], partial[t][k].dist2, partial[t][k].target);
  return best;
}

std::vector<SourceNearest> settle_loose_sources(const PointFrame& frame, const FramedSet& source,
                                                const FramedSet& target, int threads) {
  const size_t n = source.loose.size();
  if (n == 0) return {};
  threads = std::max(threads, 1);
  // A scan costs n x targets evaluations, a grid a build over the targets and a few chunks a source.
  if (static_cast<double>(n) * static_cast<double>(target.count) <= max_scan_pairs(threads))
    return scan_every_target(source, target, threads);
  std::vector<double> dist2(n);
  std::vector<uint32_t> nearest(n);
  nearest_on_host(frame, source, target, source.loose, threads, dist2, nearest);
  std::vector<SourceNearest> best(n);
  for (size_t k = 0; k < n; ++k) best[k] = {source.loose[k], dist2[k], nearest[k]};
  return best;
}

}  // namespace xhd
