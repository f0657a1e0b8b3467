// The per-point search's first pass (points_gpu.cu): kGroup lanes of a warp per query.
//
// Why: one thread per query made every query a chain of dependent global reads (a cell's start, then its
// points, then the next cell; a tree node's box, then its children's), which the few warps of a
// 60,000-query launch could not hide: on a BraTS-sized mask pair a query took 95,000 cycles at the median
// for four non-empty cells, and the launch 1-1.5 ms on an H200. Here the lanes of a group share the cells of
// one query, each lane's reads independent of the others', and the launch has kGroup times the warps.
//
// The float pass: the cells within r of the query are stepped over (r one, then two of the grid's smallest
// cell sides), shared out among the lanes, each keeping the smallest computed squared distance of its cells;
// the group's smallest, c, is the query's float nearest once c <= r * r (every cell with a point that near
// was scanned by some lane). A query whose nearest lies beyond the last ring, or whose ring spans more than
// kGroupCells cells, is listed for the hard passes (hard_queries.cuh), which measure it against every
// target, or for the one-thread grid pass when too many are listed.
//
// The exact pass: every target within reach(upper(c)) evaluated in double over the input's own coordinates
// (offer_target), its cells shared out among the lanes, each lane's reach shrinking with its own best (which
// is never nearer than the group's, so no lane drops the nearest); then the group's best by the tie rule,
// and the query's end (finish_query) on its first lane. A reach spanning more cells than kGroupCells takes
// the grid's tree on the first lane alone, as the one-thread pass does.
#pragma once

#include <cstdint>

#include "../geometry/box_math.h"
#include "exact_visit.cuh"
#include "nearest_query.cuh"

namespace xhd {

constexpr int kGroup = 8;
constexpr int kGroupCells = 216;  // cells a ring or a reach may span for the group to step over them

// The cells [lo, hi] on each axis whose (padded) boxes may lie within r of p.
struct CellRange {
  int lo[3];
  int size[3];
  int cells;
};

__device__ __forceinline__ CellRange ring_cells(const GridFrame& f, const float p[3], float r) {
  CellRange range;
  range.cells = 1;
  for (int i = 0; i < 3; ++i) {
    range.lo[i] = f.cell_coord(p[i] - r - f.pad[i], i);
    range.size[i] = f.cell_coord(p[i] + r + f.pad[i], i) - range.lo[i] + 1;
    range.cells *= range.size[i];
  }
  return range;
}

// As visit_within_reach bounds its cells: r covers the computed distance's relative error, rounded outwards.
__device__ __forceinline__ CellRange reach_cells(const GridFrame& f, const float p[3], float reach) {
  const float r = __fmul_ru(__fsqrt_ru(reach), 1.0f + 1.0f / (1 << 20));
  CellRange range;
  range.cells = 1;
  for (int i = 0; i < 3; ++i) {
    range.lo[i] = f.cell_coord(__fsub_rd(__fsub_rd(p[i], r), f.pad[i]), i);
    range.size[i] = f.cell_coord(__fadd_ru(__fadd_ru(p[i], r), f.pad[i]), i) - range.lo[i] + 1;
    range.cells *= range.size[i];
  }
  return range;
}

__device__ __forceinline__ void nth_cell(const CellRange& range, int t, int c[3]) {
  c[0] = range.lo[0] + t % range.size[0];
  t /= range.size[0];
  c[1] = range.lo[1] + t % range.size[1];
  c[2] = range.lo[2] + t / range.size[1];
}

__device__ __forceinline__ float group_min(float v) {
  for (int o = kGroup / 2; o > 0; o >>= 1) v = fminf(v, __shfl_xor_sync(0xffffffffu, v, o, kGroup));
  return v;
}

// The group's best by the tie rule (every lane of the warp must call it).
__device__ __forceinline__ ExactBest group_nearest(ExactBest b) {
  for (int o = kGroup / 2; o > 0; o >>= 1) {
    const ExactBest other{__shfl_xor_sync(0xffffffffu, b.dist2, o, kGroup),
                          __shfl_xor_sync(0xffffffffu, b.index, o, kGroup), __shfl_xor_sync(0xffffffffu, b.to, o, kGroup)};
    if (nearer(other, b)) b = other;
  }
  return b;
}

// This lane's share of the float pass over the cells of range within r2 of p: its smallest computed squared
// distance (infinite when none).
__device__ __forceinline__ float lane_float_nearest(const GridView& g, const float p[3], const CellRange& range,
                                                    float r2, int lane, uint32_t& evals) {
  float c = __int_as_float(0x7f800000);
  for (int t = lane; t < range.cells; t += kGroup) {
    int cell[3];
    nth_cell(range, t, cell);
    const uint32_t key = g.frame.key_of_cell(cell);
    const uint32_t begin = g.cell_start[key], end = g.cell_start[key + 1];
    if (begin == end) continue;
    const float near2 = min_dist2(p, g.frame.cell_box(cell));
    if (near2 > r2 || near2 >= c) continue;
    for (uint32_t j = begin; j < end; ++j) {
      const float4 b = g.points[j];
      c = fminf(c, dist2(p[0], p[1], p[2], b.x, b.y, b.z));
    }
    evals += end - begin;
  }
  return c;
}

// This lane's share of the exact pass: its nearest in double among the targets of its cells within reach.
__device__ __forceinline__ ExactBest lane_exact_nearest(const NearestArgs& a, const float p[3], double x, double y,
                                                        double z, const CellRange& range, float reach, int lane,
                                                        uint32_t& evals) {
  ExactBest best = no_best();
  const GridView& g = a.target;
  for (int t = lane; t < range.cells; t += kGroup) {
    int cell[3];
    nth_cell(range, t, cell);
    if (min_dist2(p, g.frame.cell_box(cell)) > reach) continue;
    const uint32_t key = g.frame.key_of_cell(cell);
    for (uint32_t j = g.cell_start[key], end = g.cell_start[key + 1]; j < end; ++j) {
      const float4 target = g.points[j];
      if (dist2(p[0], p[1], p[2], target.x, target.y, target.z) > reach) continue;
      ++evals;
      if (offer_target(a, x, y, z, target, best)) reach = a.bounds.reach(sqrt(best.dist2));
    }
  }
  return best;
}

// Rings the float pass steps over before it lists a query (XHD_CUDA_STEP_RINGS for the tests: 0 lists
// every query).
constexpr int kStepRings = 2;

// One query per kGroup lanes, in chunk order; the block's witness to block_best[blockIdx.x].
template <int kBlock>
__global__ void __launch_bounds__(kBlock) nearest_group_kernel(NearestArgs a, int rings) {
  const int lane = threadIdx.x % kGroup;
  // In 64 bits: the launch has kGroup threads a query, past 2^32 from a chunk of 2^29 queries.
  const uint32_t slot = static_cast<uint32_t>((static_cast<uint64_t>(blockIdx.x) * kBlock + threadIdx.x) / kGroup);
  const bool active = slot < a.query_count;
  const GridView& g = a.target;
  const GridFrame& f = g.frame;
  float p[3] = {0.f, 0.f, 0.f};
  uint32_t source_index = 0;
  if (active) {
    const float4 qp = a.queries[slot];
    p[0] = qp.x, p[1] = qp.y, p[2] = qp.z;
    source_index = __float_as_uint(qp.w);
  }
  uint32_t evals = 0;
  const long long t0 = a.clocks ? clock64() : 0;
  float side = __int_as_float(0x7f800000);
  for (int i = 0; i < 3; ++i)
    if (f.bits[i] > 0) side = fminf(side, f.cell[i]);
  if (!(side < __int_as_float(0x7f800000))) side = fmaxf(f.cell[0], fmaxf(f.cell[1], f.cell[2]));  // one cell
  // The float pass, ring by ring; every lane of the warp goes through the same rings (the shuffles).
  float c = __int_as_float(0x7f800000);
  bool found = false;
  for (int ring = 1; ring <= rings; ++ring) {
    const float r = side * ring;
    const CellRange range = ring_cells(f, p, r);
    const bool steps = active && !found && range.cells <= kGroupCells;
    const float r2 = r * r;
    const float mine = steps ? lane_float_nearest(g, p, range, r2, lane, evals) : __int_as_float(0x7f800000);
    const float group = group_min(mine);
    if (steps) {
      c = group;
      found = c <= r2;
    }
  }
  const long long t1 = a.clocks ? clock64() : 0;
  if (active && !found && lane == 0) {
    const uint32_t k = atomicAdd(a.hard_count, 1u);
    a.hard[k] = slot;
    a.hard_c[k] = __int_as_float(0x7f800000);
  }
  // The exact pass.
  double x = 0, y = 0, z = 0;
  if (active) source_truth_of(a, p, source_index, x, y, z);
  const float reach = found ? a.bounds.reach(a.bounds.upper(c)) : -1.f;
  const CellRange range = found ? reach_cells(f, p, reach) : CellRange{};
  const bool shared = found && range.cells <= kGroupCells;
  ExactBest best = shared ? lane_exact_nearest(a, p, x, y, z, range, reach, lane, evals) : no_best();
  best = group_nearest(best);
  DeviceWitness mine{-1.0, kNoQueryIndex, kNoQueryIndex};
  if (found && lane == 0) {
    bool settled = true;
    if (!shared) {
      // A reach too wide to step over: the tree, on this lane alone, as the one-thread pass does.
      float tree_reach = reach;
      const auto visit = [&](const float4& t) {
        ++evals;
        if (offer_target(a, x, y, z, t, best)) tree_reach = a.bounds.reach(sqrt(best.dist2));
      };
      settled = visit_within_reach_tree(g, p, tree_reach, visit);
    }
    mine = finish_query(a, p, source_index, x, y, z, best, settled, evals);
  }
  if (a.clocks && active && lane == 0) {
    a.clocks[3ull * slot] = t1 - t0;
    a.clocks[3ull * slot + 1] = clock64() - t1;
    a.clocks[3ull * slot + 2] = found ? 1 : 0;
  }
  add_evals(a.evals, evals);
  block_witness<kBlock>(mine, a.block_best + blockIdx.x);
}

}  // namespace xhd
