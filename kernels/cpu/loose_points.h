// Far outliers in the CPU grid searches. The frame lists the points whose copies leave its cube as loose
// (point_frame.h). They stay out of the grids, so one point at 1e9 no longer stretches a grid over a
// billion units, and out of the float search, whose tight bounds hold only inside the cube:
//  - a loose query is searched in double through the grid (with the bounds that hold for every pair),
//    and checked against every loose target;
//  - a query inside the cube is searched in float as usual, but its result may stand for its nearest
//    distance (raise cmax, be taken as final) only when no loose target can be nearer: every loose target
//    lies truly outside the cube, so at least depth(p) away. Otherwise the loose targets are checked in
//    double too.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "../common/large_buffer.h"
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
  float cube = INFINITY;
  double copy_error = 0.0;        // how far a copy inside the cube can be from its point (per coordinate)
  const FramedSet* target = nullptr;

  static LooseContext of(const PointFrame& frame, const FramedSet& target) {
    LooseContext c{&frame.tight, &frame.bounds, frame.cube, 0.0, &target};
    if (frame.has_loose()) c.copy_error = frame.tight.copies_exact ? 0.0 : float_copy_error(frame.cube);
    return c;
  }

  bool is_loose(const float p[3]) const {
    return std::fabs(p[0]) > cube || std::fabs(p[1]) > cube || std::fabs(p[2]) > cube;
  }

  // A lower bound on the true distance from a query whose copy p lies inside the cube to every loose
  // target: a loose target has some coordinate with |t_k - o_k| > cube (its copy does, and rounding is
  // monotone), where the query has |q_k - o_k| <= |p_k| + copy_error. The double arithmetic rounds by far
  // less than the 2^-40 taken off.
  double depth(const float p[3]) const {
    const double m = std::max({std::fabs(p[0]), std::fabs(p[1]), std::fabs(p[2])});
    const double d = (static_cast<double>(cube) - m - copy_error) * (1.0 - std::ldexp(1.0, -40));
    return d > 0.0 ? d : 0.0;
  }

  // Whether some loose target might be within distance d of the query with copy p (inside the cube).
  bool may_reach(const float p[3], double d) const { return !target->loose.empty() && !(d < depth(p)); }

  // Offers every loose target to best, in double; ties to the smaller index.
  void offer_all(const FramedSet& source, size_t i, ExactNearest& best, uint64_t& evals) const {
    for (uint32_t j : target->loose) {
      ++evals;
      const double d2 = exact_dist2(source.truth, i, target->truth, j);
      if (d2 < best.dist2 || (d2 == best.dist2 && j < best.target)) best = {d2, j};
    }
  }
};

// A set's points inside the cube, as the grid is built over them: the copies themselves when the set has
// no loose points, or else a compacted copy.
struct InsideCube {
  const float* xyz = nullptr;
  size_t count = 0;
  UninitLargeVector<float> owned;

  explicit InsideCube(const FramedSet& set) {
    if (set.loose.empty()) {
      xyz = set.xyz;
      count = set.count;
      return;
    }
    count = set.count - set.loose.size();
    owned.resize(3 * count);
    size_t from = 0, to = 0;
    for (size_t k = 0; k <= set.loose.size(); ++k) {
      const size_t stop = k < set.loose.size() ? set.loose[k] : set.count;
      std::memcpy(&owned[3 * to], &set.xyz[3 * from], 3 * sizeof(float) * (stop - from));
      to += stop - from;
      from = stop + 1;
    }
    xyz = owned.data();
  }
};

// A grid built over InsideCube's points names them by their position there: back to the set's indices.
inline void restore_grid_ids(const FramedSet& set, PointGrid& g, int threads) {
  if (set.loose.empty()) return;
  const std::vector<uint32_t>& loose = set.loose;
  parallel_blocks(g.ids.size(), 1 << 16, threads, [&](size_t begin, size_t end, int) {
    for (size_t k = begin; k < end; ++k) {
      // Position j among the inside points is index j + (loose indices at or below it), found by bisection
      // on loose[m] - m, the inside points before the m-th loose one.
      const uint32_t j = g.ids[k];
      size_t lo = 0, hi = loose.size();
      while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (loose[mid] - mid <= j) lo = mid + 1;
        else hi = mid;
      }
      g.ids[k] = j + static_cast<uint32_t>(lo);
    }
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
