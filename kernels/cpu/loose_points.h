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

#include "../common/inside_cube.h"
#include "../common/parallel.h"
#include "../common/point_frame.h"
#include "directed.h"
#include "exact_nearest.h"
#include "point_grid.h"

namespace xhd {

// What a search needs to know of the loose points of one direction.
struct LooseContext {
  const FilterBounds* tight;      // for pairs of points inside the cube
  const FilterBounds* any_pair;   // for every pair (a loose query's search)
  LooseGate gate;
  const FramedSet* target = nullptr;

  static LooseContext of(const PointFrame& frame, const FramedSet& target) {
    return LooseContext{&frame.tight, &frame.bounds, loose_gate(frame, target), &target};
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

// A grid built over InsideCube's points names them by their position there: back to the set's indices.
inline void restore_grid_ids(const FramedSet& set, PointGrid& g, int threads) {
  if (set.loose.empty()) return;
  const uint32_t* loose = set.loose.data();
  const uint32_t n = static_cast<uint32_t>(set.loose.size());
  parallel_blocks(g.ids.size(), 1 << 16, threads, [&](size_t begin, size_t end, int) {
    for (size_t k = begin; k < end; ++k) g.ids[k] = original_index(loose, n, g.ids[k]);
  });
}

// A query's nearest target in double: through the grid (from the float search's hint), with the tight
// bounds for a query inside the cube and the any-pair bounds for a loose one, then the loose targets
// wherever they may be nearer.
inline ExactNearest exact_with_loose(const PointGrid& grid, const Survivor& s, const LooseContext& loose, ExactSearch& inside,
                                     ExactSearch& outside) {
  const float* p = &inside.source.xyz[3 * static_cast<size_t>(s.source)];
  const bool far = loose.is_loose(p);
  ExactSearch& search = far ? outside : inside;
  ExactNearest best = search.in_grid(grid, s.source, s.hint);
  if (far || loose.may_reach(p, std::sqrt(best.dist2))) loose.offer_all(search.source, s.source, best, search.evals);
  return best;
}

}  // namespace xhd
