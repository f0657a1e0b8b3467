// The queries of a direction whose island holds none of the direction's targets (island_orphaned, point_islands.h):
// 1,000 or 10,000 points of A a billion units from everything else, with none of B there. Their island cannot be
// searched alone, and searching everything in one frame is what the islands are there to avoid, so they are
// searched in double against the targets of the islands that may hold their nearest (orphans_target_islands): a
// few of them one target after another, more through a TargetTree (target_tree.h).
#pragma once

#include <cstdint>
#include <vector>

#include "point_islands.h"
#include "../abi/progress.h"
#include "xhd.h"

namespace xhd {

struct OrphanAnswers {
  std::vector<int64_t> query;    // the orphaned queries' indices in the source set
  std::vector<double> dist2;     // each one's exact_dist2 to its nearest target
  std::vector<int64_t> nearest;  // that target's index in the target set, the smallest among ties
  uint64_t evals = 0;
  double build_ms = 0.0, query_ms = 0.0;
};

// The direction from A (from_a: source a, target b) or from B (source b, target a), over `islands`, the
// assignment of a and b. progress counts the queries as they are answered and is checked for cancel.
OrphanAnswers search_orphans(const xhd_points& a, const xhd_points& b, const IslandAssignment& islands, bool from_a,
                             int threads, const Progress& progress);

}  // namespace xhd
