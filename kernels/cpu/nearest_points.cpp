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

void nearest_points_grid(const NearestJob& job, xhd_nearest_result& result) {
  auto start = std::chrono::steady_clock::now();
  // Over the targets inside the frame's cube; loose ones (far outliers) are checked in double where they
  // may be nearer (loose_points.h).
  const LooseContext loose = LooseContext::of(*job.frame, *job.targets);
  PointGrid grid;
  build_inside_grid(*job.targets, job.cell_size, job.threads, grid);
  result.build_ms = elapsed_ms(start);
  start = std::chrono::steady_clock::now();
  // Below every squared distance, so no query is ever settled early: with 0, a target point equal to the
  // query (MaxDist 0 <= 0) would settle it before any point was taken as its nearest.
  const auto nothing_pruned = [] { return -1.f; };
  std::vector<uint64_t> evals(8 * static_cast<size_t>(job.threads), 0);
  std::vector<ExactSearch> exact(job.threads, ExactSearch{*job.queries, *job.targets, *loose.tight});
  std::vector<ExactSearch> exact_loose(job.threads, ExactSearch{*job.queries, *job.targets, *loose.any_pair});
  parallel_blocks(job.queries->count, 1024, job.threads, [&](size_t begin, size_t end, int tid) {
    job.progress->check_cancel();
    for (size_t i = begin; i < end; ++i) {
      GridQuery q;
      for (int k = 0; k < 3; ++k) q.p[k] = job.queries->xyz[3 * i + k];
      query_nearest(grid, nothing_pruned, q);
      evals[8 * tid] += q.evals;
      if (q.best == UINT32_MAX) throw std::logic_error("nearest points: a query found no target");
      const ExactNearest e = exact_with_loose(grid, {static_cast<uint32_t>(i), q.best, q.cmin2}, loose, exact[tid], exact_loose[tid]);
      if (job.nearest != nullptr) job.nearest[i] = job.targets->input_of(e.target);
      if (job.distance != nullptr) job.distance[i] = std::sqrt(e.dist2);
    }
    job.progress->add(end - begin);
  });
  result.query_ms = elapsed_ms(start);
  for (int t = 0; t < job.threads; ++t) result.distance_evals += evals[8 * t] + exact[t].evals + exact_loose[t].evals;
}

}  // namespace xhd
