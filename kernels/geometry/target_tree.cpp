#include "target_tree.h"

#include <algorithm>
#include <cmath>

#include "point_frame.h"
#include "../abi/parallel.h"

namespace xhd {
namespace {

constexpr uint64_t kLeafTargets = 16;

// A box's squared gap to a query bounds exact_dist2 to any target in it from below, once shrunk by this: the box's
// faces are coordinates of its targets, so each computed gap is at most (1 + u) times the true gap, itself at most
// the true difference to any target, and the squares and sums of the gap and of exact_dist2 round by at most
// (1 + u)^5 each (u = 2^-53; all terms positive). 2^-48 is 32 u, over the 10 u that needs. The absolute part covers
// squares that fall below the normal doubles, where rounding is no longer relative.
constexpr double kShrink = 1.0 - 0x1p-48;
constexpr double kUnderflow = 0x1p-1000;

}  // namespace

TargetTree::TargetTree(const PointTruth& truth, const std::vector<int64_t>& ids, int threads) {
  const uint64_t n = ids.size();
  // The targets' coordinates beside their ids, so that parting them reads memory in order.
  targets_.resize(n);
  parallel_blocks(n, size_t(1) << 16, threads, [&](size_t begin, size_t end, int) {
    for (size_t i = begin; i < end; ++i) {
      const size_t j = static_cast<size_t>(ids[i]);
      targets_[i] = Target{{truth.coord(j, 0), truth.coord(j, 1), truth.coord(j, 2)}, ids[i]};
    }
  });
  while ((n >> depth_) > kLeafTargets) ++depth_;
  nodes_.resize((size_t(2) << depth_) - 1);
  // The top levels on one thread, each of their nodes' targets parted in place; below, the subtrees side by side,
  // a few for each thread.
  int top_levels = 0;
  while (top_levels < depth_ && (1 << top_levels) < 4 * std::max(threads, 1)) ++top_levels;
  split(0, 0, n, 0, top_levels);
  const size_t first = (size_t(1) << top_levels) - 1;
  parallel_blocks(size_t(1) << top_levels, 1, threads, [&](size_t begin, size_t end, int) {
    for (size_t node = first + begin; node < first + end; ++node)
      split(node, nodes_[node].begin, nodes_[node].end, top_levels, depth_);
  });
}

void TargetTree::split(size_t node, uint64_t begin, uint64_t end, int depth, int stop) {
  Node& at = nodes_[node];
  at.begin = begin;
  at.end = end;
  for (int k = 0; k < 3; ++k) {
    at.lo[k] = INFINITY;
    at.hi[k] = -INFINITY;
  }
  for (uint64_t i = begin; i < end; ++i)
    for (int k = 0; k < 3; ++k) {
      at.lo[k] = std::min(at.lo[k], targets_[i].v[k]);
      at.hi[k] = std::max(at.hi[k], targets_[i].v[k]);
    }
  if (depth == stop) return;  // a leaf, or a subtree left for a thread of its own
  int axis = 0;
  for (int k = 1; k < 3; ++k)
    if (at.hi[k] - at.lo[k] > at.hi[axis] - at.lo[axis]) axis = k;
  const uint64_t middle = begin + (end - begin) / 2;
  std::nth_element(targets_.begin() + begin, targets_.begin() + middle, targets_.begin() + end,
                   [axis](const Target& x, const Target& y) { return x.v[axis] < y.v[axis]; });
  split(2 * node + 1, begin, middle, depth + 1, stop);
  split(2 * node + 2, middle, end, depth + 1, stop);
}

double TargetTree::lower(const Node& node, const double q[3]) const {
  double gap2 = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double d = std::max({0.0, node.lo[k] - q[k], q[k] - node.hi[k]});
    gap2 += d * d;
  }
  return gap2 * kShrink - kUnderflow;
}

NearestTarget TargetTree::nearest(const double q[3], uint64_t& evals) const {
  NearestTarget best{INFINITY, -1};
  struct Pending {
    size_t node;
    double lower;
  };
  Pending stack[2 * 64 + 2];
  int top = 0;
  stack[top++] = {0, lower(nodes_[0], q)};
  const size_t first_leaf = (size_t(1) << depth_) - 1;
  while (top > 0) {
    const Pending p = stack[--top];
    if (p.lower > best.dist2) continue;  // equal may still tie with a smaller index
    if (p.node >= first_leaf) {
      const Node& leaf = nodes_[p.node];
      for (uint64_t i = leaf.begin; i < leaf.end; ++i) {
        const Target& t = targets_[i];
        const double d2 = exact_dist2(q, t.v);
        if (d2 < best.dist2 || (d2 == best.dist2 && t.id < best.target)) best = {d2, t.id};
      }
      evals += leaf.end - leaf.begin;
      continue;
    }
    const size_t left = 2 * p.node + 1, right = left + 1;
    const double l = lower(nodes_[left], q), r = lower(nodes_[right], q);
    // The nearer child on top, searched first, so the bound is tight before the farther one is looked at.
    if (l <= r) {
      stack[top++] = {right, r};
      stack[top++] = {left, l};
    } else {
      stack[top++] = {left, l};
      stack[top++] = {right, r};
    }
  }
  return best;
}

}  // namespace xhd
