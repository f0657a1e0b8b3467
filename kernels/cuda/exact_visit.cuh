// Visiting every target point of a device grid whose computed squared distance to a query is within a
// reach (filter_bounds.h: a superset of the targets truly within a distance): the candidates of the GPU's
// searches in double (exact_refine.cu, points_gpu.cu). The visitor may shrink the reach as it goes.
#pragma once

#include <cstdint>

#include "../geometry/box_math.h"
#include "device_grid.h"

namespace xhd {

// A reach that spans more cells than this is not stepped over cell by cell (visit_within_reach_tree instead).
constexpr int kMaxRangeCells = 64;
// Visits every target point of the grid whose computed squared distance to p is within reach (which
// visit may shrink as it goes): visit(t, reach) for each, cell by cell. Returns false, visiting nothing,
// when reach spans more than kMaxRangeCells cells. Every target within reach has |t - p| <= r on each
// axis (r covers the computed distance's relative error), and cell_coord is monotone, so its cell lies in
// [lo, hi]; the pad only widens that.
template <class Visit>
__device__ bool visit_within_reach(const GridView& g, const float p[3], float& reach, Visit visit) {
  const float r = __fmul_ru(__fsqrt_ru(reach), 1.0f + 1.0f / (1 << 20));
  const GridFrame& f = g.frame;
  int lo[3], hi[3], cells = 1;
  for (int i = 0; i < 3; ++i) {
    lo[i] = f.cell_coord(__fsub_rd(__fsub_rd(p[i], r), f.pad[i]), i);
    hi[i] = f.cell_coord(__fadd_ru(__fadd_ru(p[i], r), f.pad[i]), i);
    cells *= hi[i] - lo[i] + 1;
  }
  if (cells > kMaxRangeCells) return false;
  int c[3];
  for (c[2] = lo[2]; c[2] <= hi[2]; ++c[2])
    for (c[1] = lo[1]; c[1] <= hi[1]; ++c[1])
      for (c[0] = lo[0]; c[0] <= hi[0]; ++c[0]) {
        if (min_dist2(p, f.cell_box(c)) > reach) continue;
        const uint32_t key = f.key_of_cell(c);
        for (uint32_t j = g.cell_start[key], end = g.cell_start[key + 1]; j < end; ++j) {
          const float4 t = g.points[j];
          if (dist2(p[0], p[1], p[2], t.x, t.y, t.z) <= reach) visit(t);
        }
      }
  return true;
}

// The same through the grid's tree of node MBRs, nearer child first, for a reach too wide for grid stepping.
// A node is skipped only when its computed squared MinDist exceeds the reach, which no box holding a point
// within reach has (filter_bounds.h); cells as in visit_within_reach. Returns false when the descent would
// need more stack than it has (it does not drop nodes: a caller settles that query another way).
template <class Visit>
__device__ bool visit_within_reach_tree(const GridView& g, const float p[3], float& reach, Visit visit) {
  const GridFrame& f = g.frame;
  const auto scan_cell = [&](uint32_t key, const int c[3]) {
    if (min_dist2(p, f.cell_box(c)) > reach) return;
    for (uint32_t j = g.cell_start[key], end = g.cell_start[key + 1]; j < end; ++j) {
      const float4 t = g.points[j];
      if (dist2(p[0], p[1], p[2], t.x, t.y, t.z) <= reach) visit(t);
    }
  };
  if (f.levels == 0) {
    const int c[3] = {0, 0, 0};
    scan_cell(0, c);
    return true;
  }
  constexpr int kStack = 128;
  uint32_t stack[kStack];  // level in the top 5 bits, node below
  int top = 0;
  stack[top++] = static_cast<uint32_t>(f.levels) << 27;
  const uint32_t fan = 1u << f.fanout_bits;
  while (top > 0) {
    const uint32_t entry = stack[--top];
    const int level = static_cast<int>(entry >> 27);
    const uint32_t node = entry & ((1u << 27) - 1);
    const Box box = g.nodes[g.level_offset[level] + node];
    if (box_is_empty(box) || min_dist2(p, box) > reach) continue;  // the reach may have shrunk since the push
    const uint32_t first = node << f.fanout_bits;
    if (level == 1) {
      const uint32_t last = min(first + fan, f.cell_count());
      for (uint32_t key = first; key < last; ++key) {
        int c[3];
        f.cell_of_key(key, c);
        scan_cell(key, c);
      }
      continue;
    }
    const uint32_t last = min(first + fan, f.level_count(level - 1));
    const uint32_t child_base = g.level_offset[level - 1];
    uint32_t order[8];
    float dist[8];
    int k = 0;
    for (uint32_t child = first; child < last; ++child) {
      const Box cb = g.nodes[child_base + child];
      if (box_is_empty(cb)) continue;
      const float d = min_dist2(p, cb);
      if (d > reach) continue;
      int at = k++;
      while (at > 0 && dist[at - 1] < d) {  // descending by distance: the nearest is pushed last, popped first
        dist[at] = dist[at - 1];
        order[at] = order[at - 1];
        --at;
      }
      dist[at] = d;
      order[at] = child;
    }
    if (top + k > kStack) return false;
    for (int i = 0; i < k; ++i) stack[top++] = (static_cast<uint32_t>(level - 1) << 27) | order[i];
  }
  return true;
}

}  // namespace xhd
