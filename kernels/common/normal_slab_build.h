// Host side of the normal slabs (normal_slab.h): built once per mesh in its own frame, moved with B's pose.
#pragma once

#include "f12_bvh.h"
#include "large_buffer.h"
#include "normal_slab.h"

namespace xhd {

// One slab per node of the f12 hierarchy, in the mesh's own frame: its mean normal and an extent along
// it (exact for leaves, from the children for the others). boxes: the hierarchy's boxes in that frame.
LargeVector<Slab> build_slabs(const F12Mesh& mesh, const Box* boxes, int threads);

// Whether the pose's 3x3 part is orthogonal (to 1e-9), so slabs move with it; otherwise B goes without.
bool is_rigid(const double* pose);

}  // namespace xhd
