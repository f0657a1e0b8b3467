// xhd_points_compare on one GPU with per-point outputs: every source point's nearest target found on the
// device (a float search with nothing pruned, then its candidates in double) and downloaded into the
// caller's arrays, each direction's Hausdorff distance and witness taken from those values.
#pragma once

#include <cstdint>
#include <vector>

#include "../abi/progress.h"
#include "placement.h"
#include "xhd.h"

namespace xhd {

// options as checked by check_hausdorff_call (grid or eb: both measure every point through the grid),
// per_point by check_per_point (all null: only the witnesses). Runs on the placement's workers (one host
// thread each, each making its device current), each direction's queries split among them (work_split.h);
// a target larger than the smallest worker budget is searched in tiles, each query keeping its nearest over
// them. The answers do not depend on the workers or the tiles.
//
// kept (xhd_points_compare_stats; one device, the placement's): each direction's distances stay on that device,
// at kept->device[0] (A -> B) and [1] (B -> A), and reach per_point's host arrays (which must then be given) only
// where kept->returned says so. What the host settles (loose sources, queries the device could not finish) is
// listed in kept->settled for the caller to write over the device's copy; a direction searched in tiles has its
// distances on the host alone (kept->whole_on_host).
struct KeptDistances {
  double* device[2] = {nullptr, nullptr};
  bool returned[2] = {true, true};
  struct Settled {
    std::vector<uint32_t> index;  // source indices
    std::vector<double> value;    // their distances
  } settled[2];
  bool whole_on_host[2] = {false, false};
};

void gpu_points_compare(const xhd_points& a, const xhd_points& b, const xhd_hausdorff_options& options,
                        const xhd_per_point& per_point, const Progress& progress, xhd_hausdorff_result& result,
                        const Placement& placement, PlacementReport& report, KeptDistances* kept = nullptr);

}  // namespace xhd
