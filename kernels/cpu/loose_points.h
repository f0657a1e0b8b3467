// Far outliers in the CPU grid searches. The frame lists the points whose copies leave its cube as loose
// (point_frame.h). They stay out of the grids, so one point at 1e9 no longer stretches a grid over a
// billion units, and out of the float search, whose tight bounds hold only inside the cube:
//  - a loose query is searched in double through the grid (with the bounds that hold for every pair),
//    and checked against every loose target;
//  - a query inside the cube is searched in float as usual, but its result may stand for its nearest
//    distance (raise cmax, be taken as final) only when no loose target can be nearer: every loose target
//    lies truly beyond a face of the cube, so at least LooseGate::depth away. Otherwise the loose targets
//    are checked in double too.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "../geometry/inside_cube.h"
#include "../abi/parallel.h"
#include "../geometry/point_frame.h"
#include "directed.h"
#include "exact_nearest.h"
#include "point_grid.h"

namespace xhd {

// What a search needs to know of the loose points of one direction.
struct LooseContext {
  const FilterBounds* tight;     // for pairs of points inside the cube
  const FilterBounds* any_pair;  // for every pair (a loose query's search)
  LooseGate gate;
  const FramedSet* target = nullptr;
  const double* origin = nullptr;  // the frame's

  static LooseContext of(const PointFrame& frame, const FramedSet& target) {
    return LooseContext{&frame.tight, &frame.bounds, loose_gate(frame, target), &target, frame.origin};
  }

  bool is_loose(const float p[3]) const { return gate.is_loose(p); }
  bool may_reach(const float p[3], double d) const { return gate.may_reach(p, d); }

  // Offers every loose target to best, in double; ties to the smaller index.
  void offer_all(const FramedSet& source, size_t i, ExactNearest& best, uint64_t& evals) const {
    for (uint32_t j : target->loose) {
      ++evals;
      const double d2 = exact_dist2(source.truth, i, target->truth, j);
      if (d2 < best.dist2 || (d2 == best.dist2 && j < best.target)) best = {d2, j};
    }
  }
};

// The grid over the set's points inside the frame's cube (all of them on ordinary data), its points named
// by the set's indices.
inline void build_inside_grid(const FramedSet& set, double cell_size, int threads, PointGrid& g) {
  const InsideCube inside(set);
  build_point_grid(inside.xyz, inside.count, cell_size, threads, g);
  if (set.loose.empty()) return;
  // The grid named the points by their positions in the inside copy.
  const uint32_t* loose = set.loose.data();
  const uint32_t n = static_cast<uint32_t>(set.loose.size());
  parallel_blocks(g.ids.size(), 1 << 16, threads, [&](size_t begin, size_t end, int) {
    for (size_t k = begin; k < end; ++k) g.ids[k] = original_index(loose, n, g.ids[k]);
  });
}

// A loose query's nearest target in double. From so far away, float distances cannot tell the targets
// apart (at 1e9 a float's step is 64), so chunks are pruned with bounds in double instead: q, the query's
// difference to the origin in double, is within 2^-50 |q| of the truth, and every target in a chunk lies
// truly within inside_error of the chunk's box (its copies do), so the distance from q to the box, computed
// in double (a few roundings of 2^-53 each), less both, bounds the chunk's targets from below. A chunk is
// skipped only when that bound exceeds the best distance so far by more than the rounding of the best's
// own evaluation: targets that tie with it are still evaluated.
struct FarBound {
  double q[3];
  double error;

  FarBound(const PointTruth& truth, size_t i, const double origin[3], double inside_error) {
    for (int k = 0; k < 3; ++k) q[k] = truth.coord(i, k) - origin[k];
    error = std::ldexp(std::max({std::fabs(q[0]), std::fabs(q[1]), std::fabs(q[2])}), -50) + inside_error;
  }
  double lower(const Box& box) const {
    double gap2 = 0.0;
    for (int k = 0; k < 3; ++k) {
      const double d = std::max({0.0, box.min[k] - q[k], q[k] - box.max[k]});
      gap2 += d * d;
    }
    return std::sqrt(gap2) * (1.0 - std::ldexp(1.0, -48)) - error;
  }
  static bool beyond(double lower, const ExactNearest& best) {
    return lower > std::sqrt(best.dist2) * (1.0 + std::ldexp(1.0, -48));
  }
};

// Through the chunk tree, nearer child first: for many loose queries, once the tree is built.
inline ExactNearest far_nearest_in_tree(const PointGrid& g, ExactSearch& search, size_t i, uint32_t hint_sorted,
                                        const FarBound& far) {
  ExactNearest best = search.start(i, g.ids[hint_sorted]);
  descend_chunk_tree(
      g, &search.source.xyz[3 * i],
      [&](const Box& box) { return FarBound::beyond(far.lower(box), best) ? TreeStep::kSkip : TreeStep::kDescend; },
      [&](uint32_t chunk) {
        for (uint32_t k = g.chunk_points[chunk], end = g.chunk_points[chunk + 1]; k < end; ++k)
          search.offer(i, g.ids[k], best);
        return false;
      });
  return best;
}

// Over the chunks in turn, the nearest chunk's targets first so the bound is tight from the start: for a
// few loose queries, cheaper than building the tree.
inline ExactNearest far_nearest_by_scan(const PointGrid& g, ExactSearch& search, size_t i, uint32_t hint_sorted,
                                        const FarBound& far) {
  ExactNearest best = search.start(i, g.ids[hint_sorted]);
  const auto scan = [&](size_t chunk) {
    for (uint32_t k = g.chunk_points[chunk], end = g.chunk_points[chunk + 1]; k < end; ++k)
      search.offer(i, g.ids[k], best);
  };
  size_t nearest = 0;
  double nearest_lower = INFINITY;
  for (size_t c = 0; c < g.chunk_boxes.size(); ++c) {
    const double l = far.lower(g.chunk_boxes[c]);
    if (l < nearest_lower) {
      nearest_lower = l;
      nearest = c;
    }
  }
  scan(nearest);
  for (size_t c = 0; c < g.chunk_boxes.size(); ++c)
    if (c != nearest && !FarBound::beyond(far.lower(g.chunk_boxes[c]), best)) scan(c);
  return best;
}

// Loose queries up to this many scan the chunks; more share the chunk tree.
constexpr size_t kFarScanQueries = 16;

// A query's nearest target in double: through the grid (from the float search's hint), with the tight
// bounds for a query inside the cube and the any-pair bounds for a loose one, then the loose targets
// wherever they may be nearer.
inline ExactNearest exact_with_loose(const PointGrid& grid, const Survivor& s, const LooseContext& loose,
                                     ExactSearch& inside, ExactSearch& outside) {
  const float* p = &inside.source.xyz[3 * static_cast<size_t>(s.source)];
  if (loose.is_loose(p)) {
    const FarBound far(outside.source.truth, s.source, loose.origin, loose.gate.copy_error);
    ExactNearest best = outside.source.loose.size() <= kFarScanQueries
                            ? far_nearest_by_scan(grid, outside, s.source, s.hint, far)
                            : far_nearest_in_tree(grid, outside, s.source, s.hint, far);
    loose.offer_all(outside.source, s.source, best, outside.evals);
    return best;
  }
  ExactNearest best = inside.in_grid(grid, s.source, s.hint);
  if (loose.may_reach(p, std::sqrt(best.dist2))) loose.offer_all(inside.source, s.source, best, inside.evals);
  return best;
}

}  // namespace xhd
