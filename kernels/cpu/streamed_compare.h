// xhd_points_compare_files: the Hausdorff distance of two point sets in files (binary PLY, LAS, LAZ:
// point_file_reader.h) larger than the host memory given, streamed from the files (the page cache, when they
// fit it) rather than held.
//
// The space is cut into slabs along the axis where a sample of both sets spreads most (slab_split.h), as
// many as it takes for one slab's queries and their state to fit a third of the memory and its halo a tile. For each direction and
// slab, one pass over the source file reads the slab's queries, one pass over the target file gathers its
// points within a halo of the slab into a tile, and the slab's X-HD over that tile (xhd_hausdorff: early
// break, pruning, the witness in double) gives its answer, which is at least its queries' true one. When the
// largest is below the halo's gap (halo_gap, halo_settles), every query's nearest lay within its halo and
// the largest is the direction's answer. Otherwise (or where a halo holds more than a tile) the direction is
// searched again keeping every query's nearest: each tile's exact nearest of every open query kept if
// nearer, ties to the smaller record; a query settled when its halo proves its nearest or it cannot be the
// witness; the rest searched over the annulus between that halo and one as wide as their farthest nearest
// so far, which proves them all. Either way the answer is the in-memory compare's, witnesses included.
#pragma once

#include "../abi/progress.h"
#include "xhd.h"

namespace xhd {

void streamed_points_compare(const xhd_point_file& a, const xhd_point_file& b, const xhd_hausdorff_options& options,
                             xhd_streamed& streamed, const Progress& progress, xhd_hausdorff_result& result);

}  // namespace xhd
