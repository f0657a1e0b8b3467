// One query point's search through a grid (X-HD's CalculateMinDist, Algorithm 4, per cell or node):
// the three estimator cases, early break inside cell scans, and the hand-off of heavy cells.
#pragma once

#include "device_grid.h"
#include "query_state.cuh"

namespace xhd {

struct Probe {
  float p[3];
  uint32_t source_index;     // original index of the query point
  uint32_t slot;             // position of the query in QueryState arrays
  float cmin;                // best squared distance found so far
  unsigned long long cmax;   // cached global cmax word, refreshed per cell
  uint32_t evals = 0;
  bool discarded = false;    // settled: cannot raise cmax
  bool pushed_heavy = false; // some of its cells wait in WL_Heavy
  bool abandoned = false;    // met a heavy cell where offloading was not allowed (warm-up)
};

// What a search may visit: cells with r_prev^2 < MinDist^2 <= r^2 (the annulus not yet searched).
struct Radius {
  float r2;
  float prev2;  // -1 when nothing was searched before
};

enum class HeavyCells { kOffload, kAbandon };

__device__ __forceinline__ bool beats_cmax(const Probe& q, float d2) {
  return pack_candidate(d2, q.source_index) >= q.cmax;
}

// Visits one cell (key, coordinates c). Returns false once the query is settled or abandoned.
__device__ __forceinline__ bool visit_cell(const GridView& g, uint32_t key, const int c[3], Radius rad,
                                           Probe& q, const QueryState& st, uint32_t heavy_threshold,
                                           HeavyCells heavy) {
  const uint32_t begin = g.cell_start[key], end = g.cell_start[key + 1];
  if (begin == end) return true;
  const Box box = g.frame.cell_box(c);
  const float near2 = min_dist2(q.p, box);
  if (near2 > rad.r2 || near2 >= q.cmin || near2 <= rad.prev2) return true;  // case 3, case 2, done before
  q.cmax = load_cmax(st.cmax);
  if (!beats_cmax(q, max_dist2(q.p, box))) {  // case 1: some point of the cell is within cmax
    q.discarded = true;
    return false;
  }
  if (end - begin > heavy_threshold) {
    if (heavy == HeavyCells::kAbandon) {
      q.abandoned = true;
      return false;
    }
    const uint32_t at = atomicAdd(&st.counters[kHeavyEntries], 1u);
    if (at < st.heavy_capacity) {
      st.heavy[at] = make_uint2(q.slot, key);
      q.pushed_heavy = true;
      return true;
    }
    // WL_Heavy is full: scan the cell here (slower, still exact).
  }
  for (uint32_t j = begin; j < end; ++j) {
    const float4 b = g.points[j];
    const float d2 = dist2(q.p[0], q.p[1], q.p[2], b.x, b.y, b.z);
    ++q.evals;
    if (d2 < q.cmin) {
      q.cmin = d2;
      if (!beats_cmax(q, d2)) {  // early break
        q.discarded = true;
        return false;
      }
    }
  }
  return true;
}

// Searches the annulus through the tree of node MBRs (the "BVH over cells"), depth first.
__device__ __forceinline__ void tree_search(const GridView& g, Radius rad, Probe& q, const QueryState& st,
                                            uint32_t heavy_threshold, HeavyCells heavy) {
  const GridFrame& f = g.frame;
  if (f.levels == 0) {
    const int c[3] = {0, 0, 0};
    visit_cell(g, 0, c, rad, q, st, heavy_threshold, heavy);
    return;
  }
  constexpr int kStack = 112;
  uint32_t stack[kStack];  // level in the top 5 bits, node below
  int top = 0;
  stack[top++] = static_cast<uint32_t>(f.levels) << 27;
  const uint32_t fan = 1u << f.fanout_bits;
  while (top > 0) {
    const uint32_t entry = stack[--top];
    const int level = static_cast<int>(entry >> 27);
    const uint32_t node = entry & ((1u << 27) - 1);
    const Box box = g.nodes[g.level_offset[level] + node];
    if (box_is_empty(box)) continue;
    const float near2 = min_dist2(q.p, box);
    if (near2 > rad.r2 || near2 >= q.cmin) continue;
    const float far2 = max_dist2(q.p, box);
    if (far2 <= rad.prev2) continue;  // every cell inside was searched in an earlier iteration
    q.cmax = load_cmax(st.cmax);
    if (!beats_cmax(q, far2)) {
      q.discarded = true;
      return;
    }
    const uint32_t first = node << f.fanout_bits;
    if (level == 1) {
      const uint32_t last = min(first + fan, f.cell_count());
      for (uint32_t key = first; key < last; ++key) {
        int c[3];
        f.cell_of_key(key, c);
        if (!visit_cell(g, key, c, rad, q, st, heavy_threshold, heavy)) return;
      }
    } else {
      const uint32_t last = min(first + fan, f.level_count(level - 1));
      // Pushed in reverse so children pop in Morton order.
      for (uint32_t k = last; k > first && top < kStack; --k)
        stack[top++] = (static_cast<uint32_t>(level - 1) << 27) | (k - 1);
    }
  }
}

}  // namespace xhd
