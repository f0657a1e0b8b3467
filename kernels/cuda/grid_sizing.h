// Chooses the grid over a point set from the X-HD cost model (its Eq. 6):
//   l_opt = (2 r c_hit / (rho c_dist))^(1 / (D + 1))
// with c_hit / c_dist measured on the GPU (cost_model.cu), D the data's local dimension and rho its
// density in that dimension, both measured from a sample's cell occupancy at two resolutions (so a
// surface in 3D counts as 2D data), and r the search radius: the lower bound r0 of the directed HD, or
// the radius of a ball expected to hold 32 points where r0 is smaller (r0 = 0 for overlapping sets,
// where Eq. 6 alone would ask for cells of size 0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "grid_frame.h"

namespace xhd {

struct GridRequest {
  double min[3], max[3];  // bounding box of the indexed points
  size_t count;           // points indexed
  const float* sample;    // interleaved x,y,z of a spread sample of them
  size_t sample_count;
  double cost_ratio;  // c_hit / c_dist
  double radius;      // r0: lower bound of the directed HD the grid serves (0 if none)
  double cell_size;   // > 0: the caller's cell side instead of the model's
};

GridFrame choose_grid_frame(const GridRequest& request);

// How many distinct values keys holds, through an open-addressing table of at least twice as many slots. The
// sizing above counts a sample's occupied cells this way before every grid a call builds (four for a compare of
// two sets); sorting the keys took most of its 0.47 ms (std::sort of 2 × 4,096 keys), this 0.17 ms in all.
size_t distinct_count(const std::vector<uint64_t>& keys);

}  // namespace xhd
