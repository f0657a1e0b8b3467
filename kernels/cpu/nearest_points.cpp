#include "nearest_points.h"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "../abi/elapsed.h"
#include "../abi/parallel.h"
#include "exact_nearest.h"
#include "loose_points.h"
#include "point_grid.h"
#include "point_grid_query.h"

namespace xhd {

PerPointWitness nearest_through_grid(const PointFrame& frame, const FramedSet& queries, const FramedSet& targets,
                                     const PointGrid& grid, int threads, const Progress& progress, double* distance,
                                     int64_t* nearest, uint64_t* evals_out) {
  return nearest_through_grid(frame, queries, targets, grid, 0, queries.count, threads, progress, distance, nearest,
                              evals_out);
}

PerPointWitness nearest_through_grid(const PointFrame& frame, const FramedSet& queries, const FramedSet& targets,
                                     const PointGrid& grid, size_t first, size_t last, int threads,
                                     const Progress& progress, double* distance, int64_t* nearest,
                                     uint64_t* evals_out) {
  // Loose targets (far outliers) are not in the grid: checked in double where they may be nearer (loose_points.h).
  const LooseContext loose = LooseContext::of(frame, targets);
  // Below every squared distance, so no query is ever settled early: with 0, a target point equal to the
  // query (MaxDist 0 <= 0) would settle it before any point was taken as its nearest.
  const auto nothing_pruned = [] { return -1.f; };
  std::vector<uint64_t> evals(8 * static_cast<size_t>(threads), 0);
  std::vector<PerPointWitness> witness(threads);
  std::vector<ExactSearch> exact(threads, ExactSearch{queries, targets, *loose.tight});
  std::vector<ExactSearch> exact_loose(threads, ExactSearch{queries, targets, *loose.any_pair});
  const bool shortcut = nearest == nullptr && frame.exact_below > 0.f && !frame.has_loose();
  parallel_blocks(last - first, 1024, threads, [&](size_t begin, size_t end, int tid) {
    progress.check_cancel();
    for (size_t i = first + begin; i < first + end; ++i) {
      GridQuery q;
      for (int k = 0; k < 3; ++k) q.p[k] = queries.xyz[3 * i + k];
      query_nearest(grid, nothing_pruned, q);
      evals[8 * tid] += q.evals;
      if (q.best == UINT32_MAX) throw std::logic_error("nearest points: a query found no target");
      // A lattice's float value below exact_below is the exact one (point_frame.h): the distance needs no pass in
      // double. Its target may not be the smallest index among equal ones, so the pass still runs where the
      // index is asked for (nearest) or where the query may become the witness.
      if (shortcut && q.cmin2 < frame.exact_below && static_cast<double>(q.cmin2) < witness[tid].dist2) {
        if (distance != nullptr) distance[i] = std::sqrt(static_cast<double>(q.cmin2));
        continue;
      }
      const ExactNearest e =
          exact_with_loose(grid, {static_cast<uint32_t>(i), q.best, q.cmin2}, loose, exact[tid], exact_loose[tid]);
      const int64_t target = targets.input_of(e.target);
      if (nearest != nullptr) nearest[i] = target;
      if (distance != nullptr) distance[i] = std::sqrt(e.dist2);
      witness[tid].offer(e.dist2, queries.input_of(static_cast<int64_t>(i)), target);
    }
    progress.add(end - begin);
  });
  uint64_t total = 0;
  for (int t = 0; t < threads; ++t) total += evals[8 * t] + exact[t].evals + exact_loose[t].evals;
  if (evals_out != nullptr) *evals_out = total;
  PerPointWitness best;
  for (const PerPointWitness& w : witness) best.merge(w);
  return best;
}

void nearest_points_grid(const NearestJob& job, xhd_nearest_result& result) {
  auto start = std::chrono::steady_clock::now();
  PointGrid grid;
  build_inside_grid(*job.targets, job.cell_size, job.threads, grid);
  result.build_ms = elapsed_ms(start);
  start = std::chrono::steady_clock::now();
  uint64_t evals = 0;
  nearest_through_grid(*job.frame, *job.queries, *job.targets, grid, job.threads, *job.progress, job.distance,
                       job.nearest, &evals);
  result.query_ms = elapsed_ms(start);
  result.distance_evals = evals;
}

}  // namespace xhd
