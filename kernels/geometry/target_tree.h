// Nearest targets in double for queries far from every target: an island of one set that holds none of the other
// (a second object scanned in one epoch alone, a burst of stray returns; point_islands.h). A frame over such queries
// and their targets together would size its grid and its float copies by the whole span, which is what made a
// compare with 5% of one set a billion units away take 50 s; this tree needs no frame. It is built over the targets'
// own coordinates, its boxes are their exact extents, and its pruning bound is relative to the distances it
// compares, so it gives exact_dist2's answer (point_frame.h) at any distance, ties to the smallest index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "point_truth.h"

namespace xhd {

struct NearestTarget {
  double dist2;    // exact_dist2 between the query and the target
  int64_t target;  // its index in the target set; the smallest among equal dist2
};

class TargetTree {
 public:
  // Over the targets of `truth` named by `ids` (any order, no repeats); threads share the build.
  TargetTree(const PointTruth& truth, const std::vector<int64_t>& ids, int threads);

  // The nearest of the tree's targets to q (a query's coordinates in double); evals counts the distances evaluated.
  NearestTarget nearest(const double q[3], uint64_t& evals) const;

  size_t size() const { return targets_.size(); }

 private:
  struct Node {
    double lo[3], hi[3];
    uint64_t begin, end;  // its targets' positions in targets_
  };
  struct Target {
    double v[3];
    int64_t id;
  };
  // Measures the node's box and parts its targets at the median of its widest side, down to depth `stop`.
  void split(size_t node, uint64_t begin, uint64_t end, int depth, int stop);
  double lower(const Node& node, const double q[3]) const;

  std::vector<Target> targets_;  // in tree order: every leaf's targets together, parted in place as it is built
  std::vector<Node> nodes_;      // a complete binary tree: node i's children are 2i + 1 and 2i + 2
  int depth_ = 0;                // of the leaves, all at one depth
};

}  // namespace xhd
