// The queries of the per-point search that lie far from every target (points_gpu.cu).
//
// Why: a query's search is one thread's work, and a query far from the target (a false-positive island in a
// segmentation, a stray return) scans hundreds or thousands of cells before its nearest is proven, while its
// neighbours finish after a few dozen: the launch lasts as long as its slowest thread. On a BraTS-sized mask
// pair about one query in a hundred did so, and the grid pass took 1.0-1.5 ms where the rest needed a tenth.
//
// How: the grid pass stops a query after visit_budget cells and lists it. The listed queries are then
// measured against every target of the grid, the targets cut into slices so that many blocks share each
// query (a block holds 128 listed queries and one slice, the slice read through shared memory):
//  1. the smallest computed float squared distance c over all targets (an actual pair's, like the grid
//     search's own nearest, which is all the exact pass needs of it);
//  2. per slice, every target whose computed squared distance is within reach(upper(c)) in double, by the
//     grid pass's formula and tie rule (offer_target), the reach shrinking with the best;
//  3. per query, a warp reduces the slices' best (ties to the smaller index), then the loose targets and the
//     outputs as in the grid pass (finish_query).
// So each listed query gets the answer the grid pass would have given it, bit for bit. When listed queries x
// targets exceed brute_cap (a whole set far from the other: these passes would cost more than the grid's
// tree), the grid pass runs again over the listed queries alone with no budget, as before these passes.
//
// The number of listed queries is known on the device only: every pass is launched with a fixed grid of
// kHardBlocks blocks that reads it and shares out the work, so no host round trip waits on the grid pass.
#pragma once

#include <cstdint>

#include "../geometry/box_math.h"
#include "nearest_query.cuh"

namespace xhd {

constexpr int kHardThreads = 128;
constexpr unsigned kHardBlocks = 1024;
// (query block, target slice) items a pass aims at: about eight blocks an SM of a large GPU.
constexpr uint32_t kHardItems = 1024;
constexpr uint32_t kLeastSlice = 256;  // targets a slice holds at least

// Entries of hard_best a chunk of n queries may need: listed x slices <= 128 (tiles + kHardItems).
constexpr uint64_t hard_best_capacity(uint64_t n) { return kHardThreads * (uint64_t(kHardItems) + 1) + n; }

struct HardPlan {
  uint32_t count;      // listed queries
  uint32_t tiles;      // blocks of kHardThreads listed queries
  uint32_t slices;     // target slices
  uint32_t slice_len;  // targets a slice holds (the last fewer)
  bool brute;          // the slice passes settle them (else the grid pass again)
};

__device__ __forceinline__ HardPlan hard_plan(const NearestArgs& a) {
  HardPlan p;
  p.count = *a.hard_count;
  p.tiles = (p.count + kHardThreads - 1) / kHardThreads;
  const uint32_t n = a.target.count;
  const uint32_t most = max(1u, (n + kLeastSlice - 1) / kLeastSlice);
  p.slices = p.tiles == 0 ? 1 : min(most, max(1u, (kHardItems + p.tiles - 1) / p.tiles));
  p.slice_len = (n + p.slices - 1) / p.slices;
  p.brute = static_cast<uint64_t>(p.count) * n <= a.brute_cap;
  return p;
}

// Calls each(k, t0, t1) for listed query k of each of this block's items, its slice being targets [t0, t1),
// after loading them in turns of kHardThreads into tile: each(k, j) for tile entry j. Every thread of the
// block takes part in the loads; k >= count is a thread without a query.
template <class Start, class Each, class End>
__device__ __forceinline__ void for_each_slice(const NearestArgs& a, const HardPlan& p, Start start, Each each,
                                               End end) {
  __shared__ float4 tile[kHardThreads];
  const uint32_t items = p.tiles * p.slices;
  for (uint32_t item = blockIdx.x; item < items; item += gridDim.x) {
    const uint32_t k = (item / p.slices) * kHardThreads + threadIdx.x;
    const uint32_t s = item % p.slices;
    const uint32_t t0 = s * p.slice_len, t1 = min(a.target.count, t0 + p.slice_len);
    start(k, s);
    for (uint32_t base = t0; base < t1; base += kHardThreads) {
      __syncthreads();
      if (base + threadIdx.x < t1) tile[threadIdx.x] = a.target.points[base + threadIdx.x];
      __syncthreads();
      const uint32_t m = min(static_cast<uint32_t>(kHardThreads), t1 - base);
      if (k < p.count)
        for (uint32_t j = 0; j < m; ++j) each(tile[j]);
    }
    end(k, s);
  }
}

// Pass 1: each listed query's smallest computed float squared distance over the grid's targets.
__global__ void __launch_bounds__(kHardThreads) hard_float_nearest(NearestArgs a) {
  const HardPlan p = hard_plan(a);
  if (!p.brute) return;
  float q[3] = {0.f, 0.f, 0.f};
  float c = INFINITY;
  uint32_t evals = 0;
  for_each_slice(
      a, p,
      [&](uint32_t k, uint32_t) {
        c = INFINITY;
        if (k < p.count) {
          const float4 qp = a.queries[a.hard[k]];
          q[0] = qp.x, q[1] = qp.y, q[2] = qp.z;
        }
      },
      [&](const float4& t) {
        c = fminf(c, dist2(q[0], q[1], q[2], t.x, t.y, t.z));
        ++evals;
      },
      [&](uint32_t k, uint32_t) {
        // Squared distances are >= 0, whose float bits order as unsigned integers.
        if (k < p.count && c < INFINITY) atomicMin(reinterpret_cast<unsigned*>(a.hard_c) + k, __float_as_uint(c));
      });
  add_evals(a.evals, evals);
}

// Pass 2: per listed query and slice, the nearest in double among the slice's targets within reach.
__global__ void __launch_bounds__(kHardThreads) hard_exact_nearest(NearestArgs a) {
  const HardPlan p = hard_plan(a);
  if (!p.brute) return;
  float q[3] = {0.f, 0.f, 0.f};
  double x = 0, y = 0, z = 0;
  float reach = -1.f;
  ExactBest best = no_best();
  uint32_t evals = 0;
  for_each_slice(
      a, p,
      [&](uint32_t k, uint32_t) {
        best = no_best();
        reach = -1.f;  // no candidate: the query stays unsettled
        if (k >= p.count) return;
        const float4 qp = a.queries[a.hard[k]];
        q[0] = qp.x, q[1] = qp.y, q[2] = qp.z;
        source_truth_of(a, q, __float_as_uint(qp.w), x, y, z);
        const float c = a.hard_c[k];
        if (c < INFINITY) reach = a.bounds.reach(a.bounds.upper(c));
      },
      [&](const float4& t) {
        if (dist2(q[0], q[1], q[2], t.x, t.y, t.z) > reach) return;
        ++evals;
        if (offer_target(a, x, y, z, t, best)) reach = a.bounds.reach(sqrt(best.dist2));
      },
      [&](uint32_t k, uint32_t s) {
        if (k < p.count) a.hard_best[static_cast<uint64_t>(k) * p.slices + s] = best;
      });
  add_evals(a.evals, evals);
}

// Pass 3: a warp per listed query: the slices' best (read side by side by the lanes, then reduced by the tie
// rule), then its end as in the grid pass on lane 0; each block's witness to block_best[blockIdx.x] (none when
// the passes did not run).
__global__ void __launch_bounds__(kHardThreads) hard_finish(NearestArgs a) {
  const HardPlan p = hard_plan(a);
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t warps = gridDim.x * (kHardThreads / 32);
  DeviceWitness mine{-1.0, kNoQueryIndex, kNoQueryIndex};
  uint32_t evals = 0;
  const uint32_t count = p.brute ? p.count : 0;
  // Every lane of a warp takes the same k, so the shuffles below see the whole warp.
  for (uint32_t k = (blockIdx.x * kHardThreads + threadIdx.x) / 32; k < count; k += warps) {
    ExactBest best = no_best();
    for (uint32_t s = lane; s < p.slices; s += 32) {
      const ExactBest e = a.hard_best[static_cast<uint64_t>(k) * p.slices + s];
      if (nearer(e, best)) best = e;
    }
    for (int o = 16; o > 0; o >>= 1) {
      const ExactBest other{__shfl_xor_sync(0xffffffffu, best.dist2, o), __shfl_xor_sync(0xffffffffu, best.index, o),
                            __shfl_xor_sync(0xffffffffu, best.to, o)};
      if (nearer(other, best)) best = other;
    }
    if (lane == 0) {
      const float4 qp = a.queries[a.hard[k]];
      const float q[3] = {qp.x, qp.y, qp.z};
      const uint32_t source_index = __float_as_uint(qp.w);
      double x, y, z;
      source_truth_of(a, q, source_index, x, y, z);
      const DeviceWitness w = finish_query(a, q, source_index, x, y, z, best, true, evals);
      if (beats(w, mine)) mine = w;
    }
  }
  add_evals(a.evals, evals);
  block_witness<kHardThreads>(mine, a.block_best + blockIdx.x);
}

}  // namespace xhd
