// One query point's search through a grid (X-HD's CalculateMinDist, Algorithm 4, per cell or node):
// the three estimator cases, early break inside cell scans, and the hand-off of heavy cells.
#pragma once

#include "device_grid.h"
#include "query_state.cuh"

namespace xhd {

struct Probe {
  float p[3];
  uint32_t source_index;  // original index of the query point
  uint32_t slot;          // position of the query in QueryState arrays
  float cmin;             // best squared distance found so far
  float threshold;        // cached pruning threshold of the global cmax, refreshed every few cells
  uint32_t evals = 0;
  uint32_t visits = 0;        // cells scanned: cmax is re-read every few, not every time
  bool discarded = false;     // settled: cannot raise cmax
  bool pushed_heavy = false;  // some of its cells wait in WL_Heavy
  bool abandoned = false;     // met a heavy cell where offloading was not allowed (warm-up)
};

// What a search may visit: cells whose bound L lies in (r_prev^2, r^2], the annulus not yet searched.
// A cell's L is the largest MinDist^2 from the query to its box and to the MBRs of the tree nodes above
// it: exactly the cells with L <= r^2 are reached by a descent with radius r, so "L <= r_prev^2" means
// "searched in an earlier iteration" whichever path (grid stepping or tree) searched it.
struct Radius {
  float r2;
  float prev2;  // -1 when nothing was searched before
};

// Cells with more points than the heavy threshold are offloaded to WL_Heavy (kOffload), or make the
// query give up (kAbandon: the warm-up, which has no WL_Heavy and must stay short).
enum class HeavyCells { kOffload, kAbandon };

// Points of a heavy cell scanned by the query's own thread before the rest goes to WL_Heavy.
constexpr uint32_t kHeavyPrefix = 32;

// False once a computed squared distance (or MaxDist) is within the pruning threshold: the query stops.
__device__ __forceinline__ bool beats_cmax(const Probe& q, float d2) { return d2 > q.threshold; }

// No cmax word (the per-point search, which prunes nothing): no threshold, and no volatile read of global
// memory at every node of every query's descent.
__device__ __forceinline__ float current_threshold(const QueryState& st) {
  return st.cmax == nullptr ? -1.f : threshold_of(load_cmax(st.cmax), st.bounds);
}

// A computed distance of 0: nothing lower can be found, so the search is over (false: stop), the query set
// aside when that zero is certain (settled_at_zero).
__device__ __forceinline__ bool met_zero(Probe& q, const QueryState& st, const float4& b) {
  if (settled_at_zero(st.bounds, q.p, b, q.source_index)) q.discarded = true;
  return false;
}

// Visits one cell (key, coordinates c); floor2 is the largest MinDist^2 of the tree nodes above it (0
// when reached by grid stepping). Returns false once the query is settled or abandoned.
__device__ __forceinline__ bool visit_cell(const GridView& g, uint32_t key, const int c[3], float floor2, Radius rad,
                                           Probe& q, const QueryState& st, uint32_t heavy_threshold, HeavyCells heavy) {
  const uint32_t begin = g.cell_start[key], end = g.cell_start[key + 1];
  if (begin == end) return true;
  const Box box = g.frame.cell_box(c);
  const float near2 = fmaxf(min_dist2(q.p, box), floor2);
  if (near2 > rad.r2 || near2 >= q.cmin || near2 <= rad.prev2) return true;  // case 3, case 2, done before
  // One global word read by every query: re-reading it per cell makes its L2 slice the bottleneck.
  // A stale threshold only prunes less, so it is refreshed every 8th cell.
  if ((++q.visits & 7u) == 0) q.threshold = current_threshold(st);
  if (!beats_cmax(q, max_dist2(q.p, box))) {  // case 1: some point of the cell is within cmax
    q.discarded = true;
    return false;
  }
  uint32_t scan_end = end;
  if (heavy == HeavyCells::kAbandon) {
    if (end - begin > heavy_threshold) {
      q.abandoned = true;
      return false;
    }
  } else if (end - begin > heavy_threshold) {
    // A heavy cell goes to WL_Heavy, but its first points are scanned here: one of them is usually
    // within cmax (early break), which spares the block-cooperative kernel most entries.
    scan_end = begin + kHeavyPrefix;
  }
  for (uint32_t j = begin; j < scan_end; ++j) {
    const float4 b = g.points[j];
    const float d2 = dist2(q.p[0], q.p[1], q.p[2], b.x, b.y, b.z);
    ++q.evals;
    if (d2 < q.cmin) {
      q.cmin = d2;
      if (!beats_cmax(q, d2)) {  // early break
        q.discarded = true;
        return false;
      }
      if (d2 == 0.f) return met_zero(q, st, b);
    }
  }
  if (scan_end != end) {
    const uint32_t at = atomicAdd(&st.counters[kHeavyEntries], 1u);
    if (at < st.heavy_capacity) {
      st.heavy[at] = make_uint2(q.slot, key);
      q.pushed_heavy = true;
      return true;
    }
    for (uint32_t j = scan_end; j < end; ++j) {  // WL_Heavy is full: finish the cell here (slower, exact)
      const float4 b = g.points[j];
      const float d2 = dist2(q.p[0], q.p[1], q.p[2], b.x, b.y, b.z);
      ++q.evals;
      if (d2 < q.cmin) {
        q.cmin = d2;
        if (!beats_cmax(q, d2)) {
          q.discarded = true;
          return false;
        }
        if (d2 == 0.f) return met_zero(q, st, b);
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
    visit_cell(g, 0, c, 0.f, rad, q, st, heavy_threshold, heavy);
    return;
  }
  constexpr int kStack = 112;
  uint32_t stack[kStack];  // level in the top 5 bits, node below
  float floors[kStack];    // the parent's bound L
  int top = 0;
  stack[top] = static_cast<uint32_t>(f.levels) << 27;
  floors[top++] = 0.f;
  const uint32_t fan = 1u << f.fanout_bits;
  while (top > 0) {
    --top;
    const uint32_t entry = stack[top];
    const float floor2 = floors[top];
    const int level = static_cast<int>(entry >> 27);
    const uint32_t node = entry & ((1u << 27) - 1);
    const Box box = g.nodes[g.level_offset[level] + node];
    if (box_is_empty(box)) continue;
    const float near2 = fmaxf(min_dist2(q.p, box), floor2);
    if (near2 > rad.r2 || near2 >= q.cmin) continue;
    const float far2 = max_dist2(q.p, box);
    if (far2 <= rad.prev2) continue;  // every cell inside was searched in an earlier iteration
    q.threshold = current_threshold(st);
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
        if (!visit_cell(g, key, c, near2, rad, q, st, heavy_threshold, heavy)) return;
      }
    } else {
      // Children nearest first (pushed farthest first): the first leaves reached hold close points,
      // so cmin falls early and prunes the rest of the descent.
      const uint32_t last = min(first + fan, f.level_count(level - 1));
      const uint32_t child_base = g.level_offset[level - 1];
      uint32_t order[8];
      float dist[8];
      int k = 0;
      for (uint32_t child = first; child < last; ++child) {
        const Box cb = g.nodes[child_base + child];
        if (box_is_empty(cb)) continue;
        const float d = fmaxf(min_dist2(q.p, cb), near2);
        if (d > rad.r2 || d >= q.cmin) continue;
        int at = k++;
        while (at > 0 && dist[at - 1] < d) {  // descending by distance
          dist[at] = dist[at - 1];
          order[at] = order[at - 1];
          --at;
        }
        dist[at] = d;
        order[at] = child;
      }
      for (int i = 0; i < k && top < kStack; ++i) {
        stack[top] = (static_cast<uint32_t>(level - 1) << 27) | order[i];
        floors[top++] = near2;
      }
    }
  }
}

}  // namespace xhd
