// A point's nearest target in double precision over the input's own coordinates, with the float data
// as a filter: the float search's hint gives a first distance d, and then every target whose computed
// float squared distance is within reach(d) (FilterBounds: all those truly within d) is evaluated in
// double, d shrinking as better ones are found. Ties go to the smaller target index.
#pragma once

#include <cmath>
#include <cstdint>

#include "../geometry/box_math.h"
#include "../geometry/point_frame.h"
#include "directed.h"
#include "point_grid.h"

namespace xhd {

struct ExactSearch {
  static constexpr size_t kMaxCells = 64;

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

  // Through the grid: the cells within reach of p (widened by a millionth of a cell, far more than the
  // rounding of cell placement), or the chunk tree when reach spans more than kMaxCells cells.
  ExactNearest in_grid(const PointGrid& g, size_t i, uint32_t hint_sorted) {
    const float* p = &source.xyz[3 * i];
    ExactNearest best = start(i, g.ids[hint_sorted]);
    float reach = bounds.reach(std::sqrt(best.dist2));
    const double radius = std::sqrt(static_cast<double>(reach));
    int lo[3], hi[3];
    size_t cells = 1;
    for (int k = 0; k < 3; ++k) {
      const double t_lo = (p[k] - radius - g.origin[k]) * g.inv_cell - 1e-6;
      const double t_hi = (p[k] + radius - g.origin[k]) * g.inv_cell + 1e-6;
      lo[k] = t_lo <= 0.0 ? 0 : static_cast<int>(std::min<double>(t_lo, g.dims[k] - 1));
      hi[k] = t_hi <= 0.0 ? 0 : static_cast<int>(std::min<double>(t_hi, g.dims[k] - 1));
      cells *= static_cast<size_t>(hi[k] - lo[k] + 1);
    }
    if (cells > kMaxCells) return in_tree(g, i, best, reach);
    for (int z = lo[2]; z <= hi[2]; ++z)
      for (int y = lo[1]; y <= hi[1]; ++y)
        for (int x = lo[0]; x <= hi[0]; ++x) {
          const size_t c = g.cell_index(x, y, z);
          for (uint32_t chunk = g.cell_chunks[c]; chunk < g.cell_chunks[c + 1]; ++chunk)
            if (min_dist2(p, g.chunk_boxes[chunk]) <= reach) scan_chunk(g, chunk, i, best, reach);
        }
    return best;
  }

  // Through the grid's chunk tree, nearer child first.
  ExactNearest in_tree(const PointGrid& g, size_t i, ExactNearest best, float reach) {
    const float* p = &source.xyz[3 * i];
    descend_chunk_tree(
        g, p, [&](const Box& box) { return min_dist2(p, box) > reach ? TreeStep::kSkip : TreeStep::kDescend; },
        [&](uint32_t chunk) {
          scan_chunk(g, chunk, i, best, reach);
          return false;
        });
    return best;
  }

  // Evaluates in double the chunk's points whose computed distance is within reach.
  void scan_chunk(const PointGrid& g, uint32_t chunk, size_t i, ExactNearest& best, float& reach) {
    const float* p = &source.xyz[3 * i];
    for (uint32_t k = g.chunk_points[chunk], end = g.chunk_points[chunk + 1]; k < end; ++k) {
      const float* t = &g.xyz[3 * static_cast<size_t>(k)];
      if (dist2(p[0], p[1], p[2], t[0], t[1], t[2]) > reach) continue;
      if (offer(i, g.ids[k], best)) reach = bounds.reach(std::sqrt(best.dist2));
    }
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
