// A point's nearest target in double precision over the input's own coordinates, with the float data
// as a filter: the float search's hint gives a first distance d, and then every target whose computed
// float squared distance is within reach(d) (FilterBounds: all those truly within d) is evaluated in
// double, d shrinking as better ones are found. Ties go to the smaller target index.
#pragma once

#include <cmath>
#include <cstdint>

#include "../common/box_math.h"
#include "../common/point_frame.h"
#include "directed.h"
#include "point_grid.h"

namespace xhd {

struct ExactSearch {
  const FramedSet& source;
  const FramedSet& target;
  const FilterBounds& bounds;
  uint64_t evals = 0;  // double-precision distances evaluated

  // Offers target j to the running best (d2, index); returns true when it became the best.
  bool offer(size_t i, uint32_t j, ExactNearest& best) {
    ++evals;
    const double d2 = exact_dist2(source.truth, i, target.truth, j);
    if (d2 < best.dist2 || (d2 == best.dist2 && j < best.target)) {
      best = {d2, j};
      return true;
    }
    return false;
  }

  ExactNearest start(size_t i, uint32_t hint) {
    ExactNearest best{INFINITY, UINT32_MAX};
    offer(i, hint, best);
    return best;
  }

  // Through the grid's chunk tree, nearer child first.
  ExactNearest in_grid(const PointGrid& g, size_t i, uint32_t hint_sorted) {
    const float* p = &source.xyz[3 * i];
    ExactNearest best = start(i, g.ids[hint_sorted]);
    float reach = bounds.reach(std::sqrt(best.dist2));
    g.ensure_tree();
    uint32_t stack[64];
    int top = 0;
    stack[top++] = 1;
    while (top > 0) {
      const uint32_t node = stack[--top];
      if (min_dist2(p, g.tree[node]) > reach) continue;
      if (node >= g.leaf_slots) {
        const uint32_t chunk = g.leaf_chunk[node - g.leaf_slots];
        for (uint32_t k = g.chunk_points[chunk], end = g.chunk_points[chunk + 1]; k < end; ++k) {
          const float* t = &g.xyz[3 * static_cast<size_t>(k)];
          if (dist2(p[0], p[1], p[2], t[0], t[1], t[2]) > reach) continue;
          if (offer(i, g.ids[k], best)) reach = bounds.reach(std::sqrt(best.dist2));
        }
        continue;
      }
      const uint32_t left = 2 * node, right = left + 1;
      const bool left_nearer = min_dist2(p, g.tree[left]) <= min_dist2(p, g.tree[right]);
      stack[top++] = left_nearer ? right : left;
      stack[top++] = left_nearer ? left : right;
    }
    return best;
  }

  // A scan of the whole target (the early-break method has no index).
  ExactNearest by_scan(size_t i, uint32_t hint) {
    const float* p = &source.xyz[3 * i];
    ExactNearest best = start(i, hint);
    float reach = bounds.reach(std::sqrt(best.dist2));
    for (size_t j = 0; j < target.count; ++j) {
      const float* t = &target.xyz[3 * j];
      if (dist2(p[0], p[1], p[2], t[0], t[1], t[2]) > reach) continue;
      if (offer(i, static_cast<uint32_t>(j), best)) reach = bounds.reach(std::sqrt(best.dist2));
    }
    return best;
  }
};

}  // namespace xhd
