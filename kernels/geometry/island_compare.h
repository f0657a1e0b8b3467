// A points compare searched island by island (point_islands.h) where the sets lie in groups far apart: each
// island of both sets in a frame and grid of its own, through the backend's own compare; the queries of an island
// of one set alone in double against the other set's targets, on the host (island_orphans.h); and the answers put
// together as the whole compare would give them, bit for bit.
#pragma once

#include <functional>

#include "xhd.h"

namespace xhd {

// The backend's compare of one island's points (a whole compare, with the caller's options and per-point outputs
// sized for the island; progress is the island's own).
using IslandSearch = std::function<void(const xhd_points& a, const xhd_points& b, const xhd_per_point& outputs,
                                        xhd_hausdorff_result& result, xhd_progress* progress)>;

// Inputs smaller than this are searched whole: a grid over a few thousand points costs little however they lie.
constexpr uint64_t kIslandMinPoints = 4096;

// Answers the compare through `search` island by island and returns true, or returns false having searched nothing
// when the sets do not part into islands whose answers are the whole compare's (island_compare_settled), the
// method is the brute-force reference, or XHD_ISLANDS=0 is set. per_point may be null. The caller has checked the
// call's arguments; coordinates_checked false: all but the coordinates' values (check_hausdorff_call's
// scan_coordinates), which are then checked here before any island is searched, so that a bad one is named by its
// index in the input. The result's counters and times are the islands' summed, its grid and origin the largest
// island's. row_cuts: whether rows of groups are cut too (plan_islands; the GPU backends leave them whole).
bool compare_by_islands(const xhd_points& a, const xhd_points& b, const xhd_hausdorff_options& options,
                        const xhd_per_point* per_point, xhd_hausdorff_result& result, xhd_progress* progress,
                        const IslandSearch& search, bool coordinates_checked = true, bool row_cuts = true);

}  // namespace xhd
