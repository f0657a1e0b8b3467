#include "island_orphans.h"

#include <chrono>
#include <memory>

#include "point_frame.h"
#include "point_truth.h"
#include "target_tree.h"
#include "../abi/elapsed.h"
#include "../abi/parallel.h"

namespace xhd {
namespace {

// Up to this many queries scan the targets one after another: a single far outlier cut off as an island of its own
// costs a pass over the targets instead of a tree's build.
constexpr size_t kScannedQueries = 8;

constexpr size_t kQueryGrain = 256;

// The nearest of every target to source point i, by the same formula and tie rule as the tree.
NearestTarget scan_nearest(const PointTruth& source, size_t i, const PointTruth& target,
                           const std::vector<int64_t>& ids) {
  NearestTarget best{INFINITY, -1};
  for (const int64_t id : ids) {
    const double d2 = exact_dist2(source, i, target, static_cast<size_t>(id));
    if (d2 < best.dist2 || (d2 == best.dist2 && id < best.target)) best = {d2, id};
  }
  return best;
}

}  // namespace

OrphanAnswers search_orphans(const xhd_points& a, const xhd_points& b, const IslandAssignment& islands, bool from_a,
                             int threads, const Progress& progress) {
  const xhd_points& source = from_a ? a : b;
  const xhd_points& target = from_a ? b : a;
  const std::vector<uint8_t>& source_labels = from_a ? islands.a_island : islands.b_island;
  const std::vector<uint8_t>& target_labels = from_a ? islands.b_island : islands.a_island;
  const std::vector<uint64_t>& source_first = from_a ? islands.a_first : islands.b_first;
  const std::vector<uint64_t>& target_first = from_a ? islands.b_first : islands.a_first;
  const std::vector<uint64_t>& source_count = from_a ? islands.a_count : islands.b_count;
  const std::vector<uint64_t>& target_count = from_a ? islands.b_count : islands.a_count;

  OrphanAnswers out;
  for (int w = 0; w < islands.islands; ++w) {
    if (!island_orphaned(islands, w, from_a)) continue;
    const IslandPoints queries =
        island_points(source, source_labels, source_first, source_count[w], islands.islands, w, threads, false);
    out.query.insert(out.query.end(), queries.index.begin(), queries.index.end());
  }
  if (out.query.empty()) return out;
  std::vector<int64_t> ids;
  for (const int h : orphans_target_islands(islands, from_a)) {
    const IslandPoints targets =
        island_points(target, target_labels, target_first, target_count[h], islands.islands, h, threads, false);
    ids.insert(ids.end(), targets.index.begin(), targets.index.end());
  }

  const auto built = std::chrono::steady_clock::now();
  const PointTruth source_truth = truth_of(source), target_truth = truth_of(target);
  const bool scan = out.query.size() <= kScannedQueries;
  std::unique_ptr<TargetTree> tree;
  if (!scan) tree = std::make_unique<TargetTree>(target_truth, ids, threads);
  out.build_ms = elapsed_ms(built);

  const auto searched = std::chrono::steady_clock::now();
  const size_t n = out.query.size();
  out.dist2.resize(n);
  out.nearest.resize(n);
  std::vector<uint64_t> evals(static_cast<size_t>(std::max(threads, 1)), 0);
  parallel_blocks(n, kQueryGrain, threads, [&](size_t begin, size_t end, int tid) {
    progress.check_cancel();
    for (size_t i = begin; i < end; ++i) {
      const size_t at = static_cast<size_t>(out.query[i]);
      NearestTarget best;
      if (scan) {
        best = scan_nearest(source_truth, at, target_truth, ids);
        evals[tid] += ids.size();
      } else {
        const double q[3] = {source_truth.coord(at, 0), source_truth.coord(at, 1), source_truth.coord(at, 2)};
        best = tree->nearest(q, evals[tid]);
      }
      out.dist2[i] = best.dist2;
      out.nearest[i] = best.target;
    }
    progress.add(end - begin);
  });
  for (const uint64_t e : evals) out.evals += e;
  out.query_ms = elapsed_ms(searched);
  return out;
}

}  // namespace xhd
