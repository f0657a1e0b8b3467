// Every query point's nearest neighbour in a target set: the per-point distances behind percentile
// Hausdorff distances, average distances and per-point export.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../common/progress.h"
#include "xhd.h"

namespace xhd {

struct NearestJob {
  const float* queries;
  size_t query_count;
  const float* targets;
  size_t target_count;
  int threads;
  double cell_size;
  const Progress* progress;
  double* distance;  // query_count entries, or null
  int64_t* nearest;  // query_count entries, or null
};

// Through the X-HD grid over the targets, with nothing pruned (cmax below every distance).
void nearest_points_grid(const NearestJob& job, xhd_nearest_result& result);

// The reference: every pair in double precision, ties to the smallest target index.
void nearest_points_brute(const NearestJob& job, xhd_nearest_result& result);

}  // namespace xhd
