// X-HD on the CPU: queries from the source set walk the target grid ring by ring, pruning with the
// paper's MBR estimators (case 1: MaxDist <= cmax settles the query; case 2: MinDist >= cmin skips a
// chunk; case 3: rings beyond the current radius are never opened) and an early break inside chunk
// scans. Queries still unresolved after max_ring rings continue in the chunk tree (the paper's BVH
// over cells), so far-away points cost a logarithmic search instead of a sweep of empty cells.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>

#include "../abi/elapsed.h"
#include "directed.h"
#include "exact_nearest.h"
#include "loose_points.h"
#include "../abi/parallel.h"
#include "point_grid.h"
#include "point_grid_query.h"

namespace xhd {

// One direction: queries from the points of `source` (in its own grid's cell order, so consecutive
// queries touch neighbouring cells of `grid`) against `grid`, the target set's grid. The float search
// sets aside the queries it proves cannot be the witness; the rest are settled in double. Loose points
// (far outliers, loose_points.h) are in neither grid: loose queries are settled in double at the end.
static void directed_queries(const DirectedJob& job, const PointGrid& source, const PointGrid& grid,
                             const LooseContext& loose, xhd_directed& out) {
  const size_t n = job.source->count;
  out.cell_size = static_cast<float>(grid.cell);
  for (int i = 0; i < 3; ++i) out.grid_dims[i] = static_cast<uint32_t>(grid.dims[i]);

  const auto t_query = std::chrono::steady_clock::now();
  const FilterBounds& bounds = *loose.tight;
  SharedMax cmax(bounds);
  const auto threshold = [&cmax] { return cmax.threshold(); };
  std::vector<std::vector<Survivor>> survivors(job.threads);
  std::vector<uint64_t> evals(job.threads * 8, 0), pruned(job.threads * 8, 0), fallback(job.threads * 8, 0);

  // Settles the queries at positions [begin, end) of (xyz, ids); `count` is false for the warm-up, whose
  // queries come again in the main pass and are only there to raise cmax.
  auto run = [&](size_t begin, size_t end, int tid, const float* xyz, const uint32_t* ids, bool count) {
    job.progress->check_cancel();
    uint64_t local_evals = 0, local_pruned = 0, local_fallback = 0;
    for (size_t k = begin; k < end; ++k) {
      GridQuery q;
      for (int i = 0; i < 3; ++i) q.p[i] = xyz[3 * k + i];
      if (loose.is_loose(q.p)) continue;  // a warm-up sample: loose queries come last
      local_fallback += query_nearest(grid, threshold, q) ? 1 : 0;
      local_evals += q.evals;
      if (q.pruned || (q.cmin2 == 0.f && settled_at_zero(job, ids[k], grid.ids[q.best]))) {
        ++local_pruned;
        continue;
      }
      if (count) survivors[tid].push_back({ids[k], q.best, q.cmin2});
      // Its float result stands for its nearest distance only if no loose target can be nearer.
      if (!loose.may_reach(q.p, bounds.upper(q.cmin2))) cmax.raise(q.cmin2);
    }
    if (!count) return;
    evals[tid * 8] += local_evals;
    pruned[tid * 8] += local_pruned;
    fallback[tid * 8] += local_fallback;
  };

  // Warm-up: a few random queries first lift cmax close to its final value, as the EB shuffle does,
  // so the ordered pass below prunes from its first block on.
  const size_t samples = std::min<size_t>(n, 64 * static_cast<size_t>(job.threads));
  std::vector<float> sample_xyz(3 * samples);
  std::vector<uint32_t> sample_ids(samples);
  std::mt19937_64 rng(job.seed);
  for (size_t s = 0; s < samples; ++s) {
    sample_ids[s] = static_cast<uint32_t>(rng() % n);
    for (int i = 0; i < 3; ++i) sample_xyz[3 * s + i] = job.source->xyz[3 * static_cast<size_t>(sample_ids[s]) + i];
  }
  parallel_blocks(samples, 16, job.threads,
                  [&](size_t b, size_t e, int tid) { run(b, e, tid, sample_xyz.data(), sample_ids.data(), false); });

  parallel_blocks(source.ids.size(), 1024, job.threads, [&](size_t b, size_t e, int tid) {
    run(b, e, tid, source.xyz.data(), source.ids.data(), true);
    job.progress->add(e - b);
  });

  // Loose queries: a float search through the grid only for a first candidate; never set aside.
  const auto nothing_pruned = [] { return -1.f; };
  for (uint32_t i : job.source->loose) {
    GridQuery q;
    for (int k = 0; k < 3; ++k) q.p[k] = job.source->xyz[3 * static_cast<size_t>(i) + k];
    query_nearest(grid, nothing_pruned, q);
    evals[0] += q.evals;
    survivors[0].push_back({i, q.best, INFINITY});
  }
  job.progress->add(job.source->loose.size());
  // Many loose queries descend the chunk tree (loose_points.h): built here by every thread, not by the
  // one thread of the survivor that would first need it.
  if (job.source->loose.size() > kFarScanQueries) grid.ensure_tree();

  std::vector<ExactSearch> exact(job.threads, ExactSearch{*job.source, *job.target, bounds});
  std::vector<ExactSearch> exact_loose(job.threads, ExactSearch{*job.source, *job.target, *loose.any_pair});
  finish_directed(
      job, survivors, cmax,
      [&](const Survivor& s, int tid) { return exact_with_loose(grid, s, loose, exact[tid], exact_loose[tid]); }, out);
  out.query_ms = elapsed_ms(t_query);
  for (int t = 0; t < job.threads; ++t) {
    out.distance_evals += evals[t * 8] + exact[t].evals + exact_loose[t].evals;
    out.pruned_queries += pruned[t * 8];
    out.fallback_queries += fallback[t * 8];
  }
}

// Over the points of `set` inside the frame's cube (all of them on ordinary data).
static double build_inside_grid(const FramedSet& set, const HausdorffJob& job, PointGrid& grid) {
  const auto t0 = std::chrono::steady_clock::now();
  build_inside_grid(set, job.cell_size, job.threads, grid);
  return elapsed_ms(t0);
}

void grid_hausdorff(const HausdorffJob& job, xhd_hausdorff_result& result) {
  // Each set's grid serves twice: as the index of the direction that targets it, and as the query order
  // of the direction that starts from it (its points are already sorted by cell).
  PointGrid grid_a, grid_b;
  const double build_a_ms = build_inside_grid(job.frame->a, job, grid_a);
  const double build_b_ms = build_inside_grid(job.frame->b, job, grid_b);
  if (job.directions & XHD_DIRECTION_AB) {
    const DirectedJob ab = job.direction_ab();
    result.ab.build_ms = build_b_ms + ((job.directions & XHD_DIRECTION_BA) ? 0.0 : build_a_ms);
    directed_queries(ab, grid_a, grid_b, LooseContext::of(*job.frame, job.frame->b), result.ab);
  }
  if (job.directions & XHD_DIRECTION_BA) {
    const DirectedJob ba = job.direction_ba();
    result.ba.build_ms = build_a_ms + ((job.directions & XHD_DIRECTION_AB) ? 0.0 : build_b_ms);
    directed_queries(ba, grid_b, grid_a, LooseContext::of(*job.frame, job.frame->a), result.ba);
  }
}

}  // namespace xhd
