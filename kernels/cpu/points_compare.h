// xhd_points_compare on the CPU with per-point outputs: each direction measures every source point's nearest
// target (nearest_points.h) and takes its Hausdorff distance and witness from those values (per_point.h).
#pragma once

#include "../abi/per_point.h"
#include "../geometry/point_frame.h"
#include "../abi/progress.h"
#include "xhd.h"

namespace xhd {

// frame: both inputs framed together (frame_points), nothing dropped. options as checked by
// check_hausdorff_call; per_point as checked by check_per_point. workers > 1 splits each direction's grid
// queries among that many groups of threads (work_split.h), as xhd_points_compare_placed splits them among
// devices: the same answers, which tests of the split and merge compare. Brute ignores it.
void cpu_points_compare(PointFrame& frame, const xhd_hausdorff_options& options, const xhd_per_point& per_point,
                        int threads, int workers, const Progress& progress, xhd_hausdorff_result& result);

}  // namespace xhd
