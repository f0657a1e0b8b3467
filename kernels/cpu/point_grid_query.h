// One query point's nearest-neighbour search through a PointGrid, with the X-HD estimators: given the
// current pruning threshold (cmax, or the bound FilterBounds proves from it), a query stops as soon as some
// computed squared distance is within it (pruned); with a threshold of -1 it always finds its nearest
// neighbour as computed in float. Shared by the Hausdorff search and the per-point distances.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include "../geometry/box_math.h"
#include "point_grid.h"

namespace xhd {

struct GridQuery {
  float p[3];
  float cmin2 = std::numeric_limits<float>::infinity();
  uint32_t best = UINT32_MAX;  // sorted index in the grid
  bool pruned = false;
  uint64_t evals = 0;
};

// Case 1, case 2, then the scan with early break. Returns true once the search is over: the query is
// pruned, or it met a computed distance of 0, below which nothing can be found.
inline bool visit_chunk(const PointGrid& g, uint32_t chunk, float cmax2, GridQuery& q) {
  const Box& box = g.chunk_boxes[chunk];
  if (max_dist2(q.p, box) <= cmax2) return q.pruned = true;
  if (min_dist2(q.p, box) >= q.cmin2) return false;
  const uint32_t end = g.chunk_points[chunk + 1];
  for (uint32_t i = g.chunk_points[chunk]; i < end; ++i) {
    const float* t = &g.xyz[3 * static_cast<size_t>(i)];
    const float d2 = dist2(q.p[0], q.p[1], q.p[2], t[0], t[1], t[2]);
    ++q.evals;
    if (d2 < q.cmin2) {
      q.cmin2 = d2;
      q.best = i;
    }
    if (d2 <= cmax2) return q.pruned = true;
    if (d2 == 0.f) return true;
  }
  return false;
}

// Returns true once the search is over (see visit_chunk), as do the visits below.
inline bool visit_cell(const PointGrid& g, int x, int y, int z, float cmax2, GridQuery& q) {
  const size_t c = g.cell_index(x, y, z);
  for (uint32_t k = g.cell_chunks[c], end = g.cell_chunks[c + 1]; k < end; ++k)
    if (visit_chunk(g, k, cmax2, q)) return true;
  return false;
}

// Cells at Chebyshev distance exactly r from the centre cell (the shell of ring r), clipped to the grid,
// leaving out those inside the box `done` (already visited).
inline bool visit_ring(const PointGrid& g, const int c[3], int r, const int done_lo[3], const int done_hi[3],
                       float cmax2, GridQuery& q) {
  const int z0 = std::max(c[2] - r, 0), z1 = std::min(c[2] + r, g.dims[2] - 1);
  const int y0 = std::max(c[1] - r, 0), y1 = std::min(c[1] + r, g.dims[1] - 1);
  const int x0 = std::max(c[0] - r, 0), x1 = std::min(c[0] + r, g.dims[0] - 1);
  auto visit = [&](int x, int y, int z) {
    const bool done =
        x >= done_lo[0] && x <= done_hi[0] && y >= done_lo[1] && y <= done_hi[1] && z >= done_lo[2] && z <= done_hi[2];
    return !done && visit_cell(g, x, y, z, cmax2, q);
  };
  for (int z = z0; z <= z1; ++z) {
    const bool z_face = (z == c[2] - r) || (z == c[2] + r);
    for (int y = y0; y <= y1; ++y) {
      if (z_face || y == c[1] - r || y == c[1] + r) {
        for (int x = x0; x <= x1; ++x)
          if (visit(x, y, z)) return true;
      } else {
        if (c[0] - r >= 0 && visit(c[0] - r, y, z)) return true;
        if (r > 0 && c[0] + r < g.dims[0] && visit(c[0] + r, y, z)) return true;
      }
    }
  }
  return false;
}

// The cells next to the query's own cell that lie within the search radius sqrt(cmax2) of it (the X-HD
// search radius, seeded with cmax). When nearest distances are close to cmax, as for a slightly moved copy,
// the neighbour is almost always among these one to eight cells, so the query settles without opening
// the 26 cells of the first ring. Returns the visited box in lo/hi.
inline bool visit_search_radius(const PointGrid& g, const int c[3], float cmax2, GridQuery& q, int lo[3], int hi[3]) {
  const double radius = std::sqrt(std::max(0.0, static_cast<double>(cmax2)));  // cmax2 < 0: nothing pruned
  for (int i = 0; i < 3; ++i) {
    const double t_lo = (q.p[i] - radius - g.origin[i]) * g.inv_cell;
    const double t_hi = (q.p[i] + radius - g.origin[i]) * g.inv_cell;
    // Clamped to [-1, 1e9] (a grid has at most 1e9 cells an axis) before the conversion: a query far outside
    // the grid has cell coordinates beyond an int's range, and converting those is undefined behaviour.
    lo[i] = std::max({c[i] - 1, 0, static_cast<int>(std::floor(std::clamp(t_lo, -1.0, 1e9)))});
    hi[i] = std::min({c[i] + 1, g.dims[i] - 1, static_cast<int>(std::clamp(t_hi, -1.0, 1e9))});
    lo[i] = std::min(lo[i], c[i]);
    hi[i] = std::max(hi[i], c[i]);
  }
  for (int z = lo[2]; z <= hi[2]; ++z)
    for (int y = lo[1]; y <= hi[1]; ++y)
      for (int x = lo[0]; x <= hi[0]; ++x)
        if ((x != c[0] || y != c[1] || z != c[2]) && visit_cell(g, x, y, z, cmax2, q)) return true;
  return false;
}

// Lower bound on the squared distance from p to any cell outside the block of rings 0..r: the
// nearest of the (up to six) slabs of the grid beyond the block's faces. Infinite when none remain.
inline float beyond_block_dist2(const PointGrid& g, const int c[3], int r, const float p[3]) {
  double lo[3], hi[3], axis_gap2[3];
  for (int i = 0; i < 3; ++i) {
    lo[i] = g.origin[i];
    hi[i] = g.origin[i] + g.dims[i] * g.cell;
    const double gap = std::max({0.0, lo[i] - p[i], p[i] - hi[i]});
    axis_gap2[i] = gap * gap;
  }
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i) {
    double others = 0.0;
    for (int j = 0; j < 3; ++j)
      if (j != i) others += axis_gap2[j];
    if (c[i] - r - 1 >= 0) {  // slab of cells below the block on axis i
      const double edge = g.origin[i] + (c[i] - r) * g.cell;
      const double d = std::max(0.0, p[i] - edge);
      best = std::min(best, others + d * d);
    }
    if (c[i] + r + 1 <= g.dims[i] - 1) {  // slab above
      const double edge = g.origin[i] + (c[i] + r + 1) * g.cell;
      const double d = std::max(0.0, edge - p[i]);
      best = std::min(best, others + d * d);
    }
  }
  return static_cast<float>(best);
}

// Depth-first, nearer child first, over the chunk tree; resumes from the query's current cmin.
inline void search_tree(const PointGrid& g, float cmax2, GridQuery& q) {
  descend_chunk_tree(
      g, q.p,
      [&](const Box& box) {
        if (min_dist2(q.p, box) >= q.cmin2) return TreeStep::kSkip;
        if (max_dist2(q.p, box) <= cmax2) {
          q.pruned = true;
          return TreeStep::kStop;
        }
        return TreeStep::kDescend;
      },
      [&](uint32_t chunk) { return visit_chunk(g, chunk, cmax2, q); });
}

// Nearest neighbour of q.p, or pruned as soon as some computed distance is within threshold() (a
// callable returning the current pruning threshold; it only grows). Returns true when the tree fallback
// was needed.
template <class Threshold>
inline bool query_nearest(const PointGrid& g, const Threshold& threshold, GridQuery& q) {
  int c[3];
  g.cell_of(q.p, c);
  float cmax2 = threshold();
  if (visit_cell(g, c[0], c[1], c[2], cmax2, q)) return false;
  int lo[3], hi[3];
  if (visit_search_radius(g, c, cmax2, q, lo, hi)) return false;
  for (int r = 0;; ++r) {
    if (beyond_block_dist2(g, c, r, q.p) >= q.cmin2) return false;
    if (r >= g.max_ring) {
      search_tree(g, threshold(), q);
      return true;
    }
    cmax2 = threshold();  // refreshed per ring: it only grows
    if (visit_ring(g, c, r + 1, lo, hi, cmax2, q)) return false;
  }
}

}  // namespace xhd
