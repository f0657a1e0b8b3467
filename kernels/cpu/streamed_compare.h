// xhd_points_compare_files: the Hausdorff distance of two binary PLY point sets larger than the host memory
// given, streamed from the files (the page cache, when they fit it) rather than held.
//
// The space is cut into slabs along the axis where a sample of both sets spreads most (slab_split.h), as
// many as it takes for one slab's queries and their state to fit a third of the memory. For each direction
// and slab, the slab's queries are read in (one pass over the source file) and the target file is passed
// once, its points within a halo of the slab gathered into tiles of what fits, each tile's exact nearest of
// every open query taken (nearest_points.h: double precision over the files' own values, ties to the
// smallest index) and kept if nearer, ties to the smaller input index. A query is settled when its
// nearest so far is proven: nearer than anything beyond the halo can be (halo_gap, halo_settles), or
// unable to be the witness (below, or tied with a larger index than, the witness of the slabs before). The
// rest are searched again over the annulus between that halo and one as wide as their farthest nearest so
// far, which proves them all. So the answer is the in-memory compare's, witnesses included; a first halo
// too narrow costs a second pass, never a wrong answer.
#pragma once

#include "../abi/progress.h"
#include "xhd.h"

namespace xhd {

void streamed_points_compare(const xhd_point_file& a, const xhd_point_file& b, const xhd_hausdorff_options& options,
                             xhd_streamed& streamed, const Progress& progress, xhd_hausdorff_result& result);

}  // namespace xhd
