#include "loose_refine.h"

#include <algorithm>
#include <cmath>

#include "../common/parallel.h"

namespace xhd {
namespace {

void offer(SourceNearest& best, double d2, uint32_t j) {
  if (d2 < best.dist2 || (d2 == best.dist2 && j < best.target)) {
    best.dist2 = d2;
    best.target = j;
  }
}

}  // namespace

void offer_loose_targets(const FramedSet& source, const FramedSet& target, const LooseGate& gate,
                         std::vector<SourceNearest>& survivors, int threads) {
  if (target.loose.empty()) return;
  parallel_blocks(survivors.size(), 256, threads, [&](size_t begin, size_t end, int) {
    for (size_t s = begin; s < end; ++s) {
      SourceNearest& best = survivors[s];
      if (!gate.may_reach(&source.xyz[3ull * best.source], std::sqrt(best.dist2))) continue;
      for (uint32_t j : target.loose) offer(best, exact_dist2(source.truth, best.source, target.truth, j), j);
    }
  });
}

std::vector<SourceNearest> settle_loose_sources(const FramedSet& source, const FramedSet& target, int threads) {
  const size_t n = source.loose.size();
  if (n == 0) return {};
  const int parts = std::max(threads, 1);
  std::vector<std::vector<SourceNearest>> partial(parts, std::vector<SourceNearest>(n));
  for (auto& list : partial)
    for (size_t k = 0; k < n; ++k) list[k] = {source.loose[k], INFINITY, UINT32_MAX};
  // Blocks of targets, each evaluated against every loose source while in cache; blocks in ascending order
  // per thread, and the merge below keeps the smaller index on ties, so any split gives the same answer.
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

}  // namespace xhd
