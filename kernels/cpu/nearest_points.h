// Every query point's nearest neighbour in a target set: the per-point distances behind percentile
// Hausdorff distances, average distances and per-point export.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../abi/per_point.h"
#include "../geometry/point_frame.h"
#include "../abi/progress.h"
#include "point_grid.h"
#include "xhd.h"

namespace xhd {

struct NearestJob {
  const PointFrame* frame;  // queries are its a, targets its b
  const FramedSet* queries;
  const FramedSet* targets;
  const FilterBounds* bounds;
  int threads;
  double cell_size;
  const Progress* progress;
  double* distance;  // query_count entries, or null
  int64_t* nearest;  // query_count entries, or null
};

// Through the X-HD grid over the targets, with nothing pruned: the float search's nearest is the start of
// an exact search in double (exact_nearest.h), so the answers are the reference's, ties included.
void nearest_points_grid(const NearestJob& job, xhd_nearest_result& result);

// Every query's nearest target through `grid`, a grid already built over the targets inside the frame's cube
// (build_inside_grid), with nothing pruned: each query's float nearest starts an exact search in double
// (exact_nearest.h; loose points as loose_points.h settles them), unless its float value is exact already (a
// lattice's, PointFrame::exact_below) and neither its nearest index nor the witness needs that search. Writes
// distance and nearest (input indices of the targets; either may be null), counts the double evaluations in
// *evals, and returns the direction's witness over the queries' own indices (per_point.h).
PerPointWitness nearest_through_grid(const PointFrame& frame, const FramedSet& queries, const FramedSet& targets,
                                     const PointGrid& grid, int threads, const Progress& progress, double* distance,
                                     int64_t* nearest, uint64_t* evals);

// The same for the queries [first, last) alone (the others' outputs untouched), the witness over them.
PerPointWitness nearest_through_grid(const PointFrame& frame, const FramedSet& queries, const FramedSet& targets,
                                     const PointGrid& grid, size_t first, size_t last, int threads,
                                     const Progress& progress, double* distance, int64_t* nearest, uint64_t* evals);

// The reference: every pair in double precision, ties to the smallest target index.
void nearest_points_brute(const NearestJob& job, xhd_nearest_result& result);

}  // namespace xhd
