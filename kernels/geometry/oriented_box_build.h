// Host side of the oriented boxes (oriented_box.h): one per node of an f12 hierarchy, in the mesh's own
// frame, built once.
#pragma once

#include "f12_bvh.h"
#include "../abi/large_buffer.h"
#include "oriented_box.h"
#include "oriented_dop.h"

namespace xhd {

class Progress;

// Both builds go level by level, every level over every vertex, and honour the caller's cancel between
// levels (throwing Cancelled).

// Axes from the covariance of the node's vertices, extents exact from those vertices.
LargeVector<OrientedBox> build_oriented_boxes(const F12Mesh& mesh, int threads, const Progress& progress);

// Every node's reaches along the 26 directions of its box's axes (rounded up), for the same mesh's boxes.
LargeVector<DopReaches> build_dop_reaches(const F12Mesh& mesh, const LargeVector<OrientedBox>& boxes, int threads,
                                          const Progress& progress);

// Whether the pose's 3x3 part is orthogonal (to 1e-9), so oriented boxes move with it as boxes.
bool is_rigid(const double* pose);

}  // namespace xhd
