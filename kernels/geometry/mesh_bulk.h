// Where most of a mesh is, and how large its typical triangle is, robust to a few wild vertices (a
// byte-flipped file with one vertex at 6.5e10): quantiles of a fixed, evenly strided sample of the
// triangles, so the host and the GPU build size the same grid and put the frame's origin at the same point.
#pragma once

#include <cstdint>

#include "point_truth.h"

namespace xhd {

struct MeshBulk {
  double lo[3] = {0.0, 0.0, 0.0};  // the box of the bulk of the vertices, in the input's coordinates,
  double hi[3] = {0.0, 0.0, 0.0};  // given a margin of a quarter of its extent on every side
  double median_area = 0.0;        // of the sampled triangles
  bool empty = true;
};

// Triangle corners are read from truth; vertex indices must already be checked.
MeshBulk mesh_bulk(const PointTruth& truth, const uint32_t* triangles, uint64_t count);

}  // namespace xhd
