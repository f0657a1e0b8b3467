// One query of the per-point search (points_gpu.cu) as every pass that settles queries sees it: the job's
// arguments, the exact pass's running best in double, and the end of a query (the loose targets, the outputs,
// its witness). Shared by the grid pass and the passes for queries far from every target (hard_queries.cuh),
// so that each settles a query by the same formula and tie rule.
#pragma once

#include <cstdint>

#include "../geometry/loose_gate.h"
#include "device_grid.h"
#include "query_state.cuh"

namespace xhd {

constexpr uint32_t kNoQueryIndex = 0xffffffffu;

// A candidate witness: a query's exact squared distance, its source index, its nearest's input index.
struct DeviceWitness {
  double dist2;
  uint32_t from;
  uint32_t to;
};

// per_point.h's rule: the larger squared distance, then the smaller source index.
__device__ __forceinline__ bool beats(const DeviceWitness& a, const DeviceWitness& b) {
  return a.dist2 > b.dist2 || (a.dist2 == b.dist2 && a.from < b.from);
}

// A query's nearest so far in double: squared distance, unique target index, its input index.
struct ExactBest {
  double dist2;
  uint32_t index;
  uint32_t to;
};

__device__ __forceinline__ ExactBest no_best() { return ExactBest{INFINITY, kNoQueryIndex, kNoQueryIndex}; }

// The smaller squared distance, ties to the smaller unique target index (the unique targets keep the input's
// order, so that is the input's tie rule).
__device__ __forceinline__ bool nearer(const ExactBest& a, const ExactBest& b) {
  return a.dist2 < b.dist2 || (a.dist2 == b.dist2 && a.index < b.index);
}

struct NearestArgs {
  GridView target;        // the unique target's inside points, w = unique target index
  QueryState st;          // for the float search: cmax a zero word (nothing pruned), no heavy lists
  const float4* queries;  // the chunk's inside source points in Morton order, w = source index
  uint32_t query_count;
  uint32_t first_source;         // outputs and the source truth start at this source index
  const double* source_truth;    // 3 doubles per source index from first_source; null: the floats are the truth
  const double* target_truth;    // 3 doubles per unique target index from target_first; null: the floats are the truth
  const uint32_t* target_input;  // unique target index (from target_first) -> input index; null: the same
  uint32_t target_first;         // the first unique target index of the tile the grid holds (0: all of them)
  const double* loose_xyz;       // the loose targets' truth, 3 doubles each
  const uint32_t* loose_index;   // their unique target indices
  const uint32_t* loose_input;   // their input indices
  uint32_t loose_count;          // 0 in every target tile but the first: each target is offered once
  bool squared;                  // tiles: distance takes the squared distance, and unsettled queries NaN
  LooseGate gate;
  FilterBounds bounds;        // the frame's tight bounds: the grids hold points inside the cube only
  double* distance;           // per source index from first_source (null: not wanted)
  int64_t* nearest;           // per source index from first_source (null: not wanted)
  DeviceWitness* block_best;  // one per block of the launch
  uint32_t* wide;             // source indices left to the host
  uint32_t* wide_count;
  unsigned long long* evals;  // distances evaluated, float and double

  // Queries far from every target (hard_queries.cuh): listed by the first pass (nearest_group.cuh) in hard
  // (their chunk positions) and settled by the hard passes.
  uint32_t* hard;             // chunk positions of the listed queries
  uint32_t* hard_count;
  float* hard_c;              // per listed query: its smallest computed float squared distance
  ExactBest* hard_best;       // per listed query and target slice: the slice's nearest in double
  uint64_t brute_cap;         // listed queries x targets at most for the slice passes; beyond, the grid's tree
  // XHD_CUDA_PROFILE: per chunk position, the first pass's clock cycles in the float pass and in the exact
  // pass, and whether the float pass found its nearest (null: not measured).
  unsigned long long* clocks;
};

// The source point's own coordinates (its truth in double, or its float copy when that is the truth).
__device__ __forceinline__ void source_truth_of(const NearestArgs& a, const float p[3], uint32_t source_index,
                                                double& x, double& y, double& z) {
  const uint32_t rel = source_index - a.first_source;
  x = a.source_truth ? a.source_truth[3ull * rel] : p[0];
  y = a.source_truth ? a.source_truth[3ull * rel + 1] : p[1];
  z = a.source_truth ? a.source_truth[3ull * rel + 2] : p[2];
}

// Target t of the grid evaluated in double over the input's own coordinates (exact_dist2's formula); true
// when it became the best.
__device__ __forceinline__ bool offer_target(const NearestArgs& a, double x, double y, double z, const float4& t,
                                             ExactBest& best) {
  const uint32_t id = __float_as_uint(t.w);
  const double* tt = a.target_truth ? a.target_truth + 3ull * (id - a.target_first) : nullptr;
  const double dx = x - (tt ? tt[0] : t.x), dy = y - (tt ? tt[1] : t.y), dz = z - (tt ? tt[2] : t.z);
  const double d2 = dx * dx + dy * dy + dz * dz;
  if (d2 < best.dist2 || (d2 == best.dist2 && id < best.index)) {
    best = ExactBest{d2, id, a.target_input ? a.target_input[id - a.target_first] : id};
    return true;
  }
  return false;
}

// The end of a query whose grid targets are done: the loose targets where the gate says one may be nearer,
// then its outputs and its witness; or, unsettled, the host's list (and NaN for the tiles' merge). Returns
// the query's witness (none when unsettled).
__device__ __forceinline__ DeviceWitness finish_query(const NearestArgs& a, const float p[3], uint32_t source_index,
                                                      double x, double y, double z, ExactBest best, bool settled,
                                                      uint32_t& evals) {
  settled = settled && best.index != kNoQueryIndex;
  const uint32_t rel = source_index - a.first_source;
  if (!settled) {
    a.wide[atomicAdd(a.wide_count, 1u)] = source_index;
    if (a.squared && a.distance) a.distance[rel] = __longlong_as_double(0x7ff8000000000000ll);  // NaN: none
    return DeviceWitness{-1.0, kNoQueryIndex, kNoQueryIndex};
  }
  if (a.gate.may_reach(p, sqrt(best.dist2))) {
    for (uint32_t k = 0; k < a.loose_count; ++k) {
      const double* tt = a.loose_xyz + 3ull * k;
      const double dx = x - tt[0], dy = y - tt[1], dz = z - tt[2];
      const double d2 = dx * dx + dy * dy + dz * dz;
      const uint32_t id = a.loose_index[k];
      ++evals;
      if (d2 < best.dist2 || (d2 == best.dist2 && id < best.index)) best = ExactBest{d2, id, a.loose_input[k]};
    }
  }
  // IEEE square root, as std::sqrt on the host; tiles keep the square, which the tiles' minimum compares.
  if (a.distance) a.distance[rel] = a.squared ? best.dist2 : sqrt(best.dist2);
  if (a.nearest) a.nearest[rel] = best.to;
  return DeviceWitness{best.dist2, source_index, best.to};
}

// The best of a block's witnesses, written by thread 0 to *out (every thread of the block must call it).
template <int kBlock>
__device__ __forceinline__ void block_witness(DeviceWitness mine, DeviceWitness* out) {
  __shared__ DeviceWitness best_of[kBlock];
  best_of[threadIdx.x] = mine;
  __syncthreads();
  for (int half = kBlock / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half && beats(best_of[threadIdx.x + half], best_of[threadIdx.x]))
      best_of[threadIdx.x] = best_of[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = best_of[0];
}

// Evaluation counts summed over a warp, one atomic per warp (every lane of the warp must call it).
__device__ __forceinline__ void add_evals(unsigned long long* total, uint32_t evals) {
  for (int o = 16; o > 0; o >>= 1) evals += __shfl_down_sync(0xffffffffu, evals, o);
  if ((threadIdx.x & 31) == 0 && evals > 0) atomicAdd(total, static_cast<unsigned long long>(evals));
}

}  // namespace xhd
