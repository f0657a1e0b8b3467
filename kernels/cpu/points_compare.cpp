#include "points_compare.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <cmath>
#include <vector>

#include "../abi/elapsed.h"
#include "../abi/host_phases.h"
#include "../abi/parallel.h"
#include "../abi/work_split.h"
#include "../geometry/unique_points.h"
#include "loose_points.h"
#include "nearest_points.h"
#include "point_grid.h"

namespace xhd {
namespace {

// One direction through the grid over the unique targets: one grid build, one pass over every source point.
void grid_direction(const PointFrame& frame, const FramedSet& source, const FramedSet& target_set, double cell_size,
                    int threads, int workers, const Progress& progress, PerPointOut out, xhd_directed& result) {
  auto start = std::chrono::steady_clock::now();
  HostPhases phases("cpu direction");
  const FramedSet target = unique_targets(target_set, threads);
  phases.mark("unique targets");
  PointGrid grid;
  build_inside_grid(target, cell_size, threads, grid);
  phases.mark("grid");
  result.build_ms = elapsed_ms(start);
  result.cell_size = static_cast<float>(grid.cell);
  for (int k = 0; k < 3; ++k) result.grid_dims[k] = static_cast<uint32_t>(grid.dims[k]);
  start = std::chrono::steady_clock::now();
  PerPointWitness w;
  if (workers <= 1) {
    w = nearest_through_grid(frame, source, target, grid, threads, progress, out.distance, out.nearest,
                             &result.distance_evals);
  } else {
    // The pieces of the source shared among worker groups of threads, as devices share them (work_split.h):
    // each group's witness over what it took, the best of them the answer.
    PieceQueue queue(source.count, piece_size(source.count, workers, UINT64_MAX));
    std::vector<PerPointWitness> found(workers);
    std::vector<uint64_t> evals(workers, 0);
    std::vector<std::string> labels;
    for (int k = 0; k < workers; ++k) labels.push_back(worker_label(-1, k, workers));
    const int group_threads = std::max(1, threads / workers);
    run_workers(
        labels,
        [&](int k) {
          Piece piece;
          while (queue.next(piece)) {
            uint64_t piece_evals = 0;
            found[k].merge(nearest_through_grid(frame, source, target, grid, piece.first, piece.first + piece.count,
                                                group_threads, progress, out.distance, out.nearest, &piece_evals));
            evals[k] += piece_evals;
            injected_fault(k);
          }
        },
        [&] { queue.abandon(); });
    for (int k = 0; k < workers; ++k) {
      w.merge(found[k]);
      result.distance_evals += evals[k];
    }
  }
  result.query_ms = result.exact_ms = elapsed_ms(start);
  phases.mark("every query");
  result.exact_checks = source.count;
  w.write(result);
}

// The reference: every pair in double (nearest_brute.cpp), the witness from each point's nearest pair,
// its squared distance evaluated again by the same formula.
void brute_direction(const PointFrame& frame, const FramedSet& source, const FramedSet& target, int threads,
                     const Progress& progress, PerPointOut out, xhd_directed& result) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<int64_t> own_nearest(out.nearest == nullptr ? source.count : 0);
  int64_t* nearest = out.nearest != nullptr ? out.nearest : own_nearest.data();
  const NearestJob job{&frame, &source, &target, &frame.bounds, threads, 0.0, &progress, out.distance, nearest};
  xhd_nearest_result r{};
  nearest_points_brute(job, r);
  PerPointWitness w;
  for (size_t i = 0; i < source.count; ++i)
    w.offer(exact_dist2(source.truth, i, target.truth, static_cast<size_t>(nearest[i])), static_cast<int64_t>(i),
            nearest[i]);
  w.write(result);
  result.distance_evals = r.distance_evals;
  result.query_ms = result.exact_ms = elapsed_ms(start);
  result.exact_checks = source.count;
}

}  // namespace

void cpu_points_compare(PointFrame& frame, const xhd_hausdorff_options& options, const xhd_per_point& per_point,
                        int threads, int workers, const Progress& progress, xhd_hausdorff_result& result) {
  const int directions = options.directions;
  progress.set_total(((directions & XHD_DIRECTION_AB) ? frame.a.count : 0) +
                     ((directions & XHD_DIRECTION_BA) ? frame.b.count : 0));
  const bool brute = options.method == XHD_METHOD_BRUTE;
  // Each set is a target in one direction: both samples at once, up front (the brute reference drops nothing).
  if (!brute) sample_duplicates(frame, threads);
  if (directions & XHD_DIRECTION_AB) {
    if (brute) brute_direction(frame, frame.a, frame.b, threads, progress, per_point_ab(per_point), result.ab);
    else
      grid_direction(frame, frame.a, frame.b, options.cell_size, threads, workers, progress, per_point_ab(per_point),
                     result.ab);
  }
  if (directions & XHD_DIRECTION_BA) {
    if (brute) brute_direction(frame, frame.b, frame.a, threads, progress, per_point_ba(per_point), result.ba);
    else
      grid_direction(frame, frame.b, frame.a, options.cell_size, threads, workers, progress, per_point_ba(per_point),
                     result.ba);
  }
}

}  // namespace xhd
