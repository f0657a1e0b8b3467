#include "loose_refine.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "../common/inside_cube.h"
#include "../common/parallel.h"
#include "../cpu/exact_nearest.h"
#include "../cpu/loose_points.h"
#include "../cpu/point_grid.h"
#include "../cpu/point_grid_query.h"

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

// Through a CPU grid of the inside targets with bounds in double (loose_points.h), as the CPU backend
// settles its loose queries: for many loose sources or many targets, where the scan would be quadratic.
static std::vector<SourceNearest> through_host_grid(const PointFrame& frame, const FramedSet& source, const FramedSet& target,
                                                    int threads) {
  PointGrid grid;
  {
    const InsideCube inside(target);
    build_point_grid(inside.xyz, inside.count, 0.0, threads, grid);
    restore_grid_ids(target, grid, threads);
  }
  if (source.loose.size() > kFarScanQueries) grid.ensure_tree();
  const LooseContext loose = LooseContext::of(frame, target);
  std::vector<ExactSearch> inside(threads, ExactSearch{source, target, frame.tight});
  std::vector<ExactSearch> outside(threads, ExactSearch{source, target, frame.bounds});
  const auto nothing_pruned = [] { return -1.f; };
  std::vector<SourceNearest> best(source.loose.size());
  parallel_blocks(best.size(), 1, threads, [&](size_t begin, size_t end, int tid) {
    for (size_t k = begin; k < end; ++k) {
      const uint32_t i = source.loose[k];
      GridQuery q;
      for (int c = 0; c < 3; ++c) q.p[c] = source.xyz[3ull * i + c];
      query_nearest(grid, nothing_pruned, q);
      const ExactNearest e = exact_with_loose(grid, {i, q.best, INFINITY}, loose, inside[tid], outside[tid]);
      best[k] = {i, e.dist2, e.target};
    }
  });
  return best;
}

std::vector<SourceNearest> settle_loose_sources(const PointFrame& frame, const FramedSet& source, const FramedSet& target,
                                                int threads) {
  const size_t n = source.loose.size();
  if (n == 0) return {};
  threads = std::max(threads, 1);
  // A scan costs n x targets evaluations, a grid a build over the targets and a few chunks a source.
  if (static_cast<double>(n) * static_cast<double>(target.count) <= max_scan_pairs(threads))
    return scan_every_target(source, target, threads);
  return through_host_grid(frame, source, target, threads);
}

}  // namespace xhd
