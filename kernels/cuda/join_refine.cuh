// The GPU join's exact refinement (join_gpu.cu): one thread block per object pair, as the CPU's
// refine_pair_on_host does it on one core. The pair's group pairs come nearest first (the host sorts them by
// gap, then ga, then gb); the block stops at the first whose gap passes the reach, min(limit, best so far) +
// slack, the best being the block's smallest distance found, shared after each group pair. Within a group
// pair, each side's triangles are loaded into shared memory in tiles of kJoinTile, keeping only those whose
// box comes within reach of the other group's box (3DPipe's facet filter, and the CPU's near lists); the
// threads then share the tile's triangle pairs, each skipping pairs whose box gap or plane bound passes its
// own reach. The block's best, smallest distance then triangle of a then of b, is reduced in shared memory.
//
// The same candidates as the CPU's: a triangle pair at the pair's exact distance d has box gaps and a plane
// bound no larger than d (up to the rounding that slack covers), and d <= every best found, so no skip
// drops it; the minimum under a total order does not depend on the order the pairs are visited in, and
// triangle_pair_min is the CPU's routine, compiled without fused multiply-adds (--fmad=false).
#pragma once

#include <cstdint>

#include "../geometry/join.h"

namespace xhd {

constexpr int kJoinThreads = 128;
constexpr int kJoinTile = kJoinThreads / 2;  // half the block loads each side's tile

// A collection on the device, as the caller gave it: vertices (doubles or floats: one of v64, v32), the
// triangles' corner indices, and the grouping's slot order, group ranges and group boxes.
struct DeviceJoinSet {
  const double* v64;
  const float* v32;
  const uint32_t* triangles;
  const uint64_t* order;
  const uint64_t* group_begin;
  const DBox* group_box;
};

// One object pair of a batch: group pairs [first, first + count) of the batch's array.
struct JoinPairItem {
  uint64_t first, count;
  double limit;               // min(T, U): no answer lies farther than limit + slack
  uint64_t a_face0, b_face0;  // the objects' first triangles: a triangle's index within its object
};

__device__ inline Dvec3 join_vertex(const DeviceJoinSet& s, uint32_t i) {
  const uint64_t k = 3ull * i;
  if (s.v64 != nullptr) return {s.v64[k], s.v64[k + 1], s.v64[k + 2]};
  return {static_cast<double>(s.v32[k]), static_cast<double>(s.v32[k + 1]), static_cast<double>(s.v32[k + 2])};
}

// The squared gap between two boxes (0 when they overlap).
__device__ inline double join_box_gap2(const DBox& x, const DBox& y) {
  double s = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double d = x.lo[k] > y.hi[k] ? x.lo[k] - y.hi[k] : (y.lo[k] > x.hi[k] ? y.lo[k] - x.hi[k] : 0.0);
    s += d * d;
  }
  return s;
}

__device__ inline double join_reach(double limit, double best_d2, double slack) {
  return fmin(limit, sqrt(best_d2)) + slack;
}

__global__ void __launch_bounds__(kJoinThreads)
    refine_object_pairs(const JoinPairItem* pairs, const GroupPair* groups, DeviceJoinSet A, DeviceJoinSet B,
                        double slack, Candidate* out, unsigned long long* tested) {
  __shared__ Corners3 tile[2][kJoinTile];
  __shared__ DBox tile_box[2][kJoinTile];
  __shared__ uint32_t tile_local[2][kJoinTile];  // each kept triangle's index within its object
  __shared__ int kept[2];
  __shared__ unsigned long long block_best;  // the block's smallest d2 so far: non-negative doubles order as their bits
  __shared__ Candidate reduced[kJoinThreads];

  const JoinPairItem w = pairs[blockIdx.x];
  const int side = threadIdx.x / kJoinTile, lane = threadIdx.x % kJoinTile;
  const DeviceJoinSet& mine_set = side == 0 ? A : B;
  const uint64_t face0 = side == 0 ? w.a_face0 : w.b_face0;
  Candidate mine = empty_candidate<false>();
  unsigned long long count = 0;
  if (threadIdx.x == 0) block_best = static_cast<unsigned long long>(__double_as_longlong(INFINITY));
  __syncthreads();

  for (uint64_t g = w.first; g < w.first + w.count; ++g) {
    const GroupPair gp = groups[g];
    const double reach = join_reach(w.limit, __longlong_as_double(static_cast<long long>(block_best)), slack);
    if (gp.gap > reach) break;  // every thread read the same block_best (after the last barrier): no one diverges
    const uint64_t a_begin = A.group_begin[gp.ga], a_end = A.group_begin[gp.ga + 1];
    const uint64_t b_begin = B.group_begin[gp.gb], b_end = B.group_begin[gp.gb + 1];
    // Each side's triangles are tested against the other side's group box.
    const DBox other = side == 0 ? B.group_box[gp.gb] : A.group_box[gp.ga];
    const uint64_t my_end = side == 0 ? a_end : b_end;
    for (uint64_t ta = a_begin; ta < a_end; ta += kJoinTile)
      for (uint64_t tb = b_begin; tb < b_end; tb += kJoinTile) {
        if (threadIdx.x < 2) kept[threadIdx.x] = 0;
        __syncthreads();
        const uint64_t slot = (side == 0 ? ta : tb) + lane;
        if (slot < my_end) {
          const uint64_t t = mine_set.order[slot];
          Corners3 c;
          for (int k = 0; k < 3; ++k) c.v[k] = join_vertex(mine_set, mine_set.triangles[3 * t + k]);
          DBox box;
          for (int k = 0; k < 3; ++k) {
            box.lo[k] = fmin(dget(c.v[0], k), fmin(dget(c.v[1], k), dget(c.v[2], k)));
            box.hi[k] = fmax(dget(c.v[0], k), fmax(dget(c.v[1], k), dget(c.v[2], k)));
          }
          if (join_box_gap2(box, other) <= reach * reach) {
            const int at = atomicAdd(&kept[side], 1);  // any order: the minimum does not depend on it
            tile[side][at] = c;
            tile_box[side][at] = box;
            tile_local[side][at] = static_cast<uint32_t>(t - face0);
          }
        }
        __syncthreads();
        const int na = kept[0], nb = kept[1];
        double r = fmin(reach, join_reach(w.limit, mine.d2, slack));
        double r2 = r * r;
        for (int k = threadIdx.x; k < na * nb; k += kJoinThreads) {
          const int i = k / nb, j = k - i * nb;
          if (join_box_gap2(tile_box[0][i], tile_box[1][j]) > r2) continue;
          const Corners3 x = tile[0][i], y = tile[1][j];
          if (triangle_pair_beyond(x, y, r2)) continue;
          ++count;
          Candidate c;
          c.at = triangle_pair_min(x, y);
          c.d2 = c.at.d2;
          c.ta = tile_local[0][i];
          c.tb = tile_local[1][j];
          if (better_candidate<false>(c, mine)) {
            mine = c;
            r = fmin(reach, join_reach(w.limit, mine.d2, slack));
            r2 = r * r;
          }
        }
        __syncthreads();  // the tile is read by all before the next one overwrites it
      }
    // The block's best so far, for the next group pair's reach and its early stop.
    double d2 = mine.d2;
    for (int s = 16; s > 0; s >>= 1) d2 = fmin(d2, __shfl_down_sync(0xffffffffu, d2, s));
    if ((threadIdx.x & 31) == 0) atomicMin(&block_best, static_cast<unsigned long long>(__double_as_longlong(d2)));
    __syncthreads();
  }

  reduced[threadIdx.x] = mine;
  for (int s = 16; s > 0; s >>= 1) count += __shfl_down_sync(0xffffffffu, count, s);
  if ((threadIdx.x & 31) == 0 && count > 0) atomicAdd(tested, count);
  __syncthreads();
  for (unsigned s = kJoinThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && better_candidate<false>(reduced[threadIdx.x + s], reduced[threadIdx.x]))
      reduced[threadIdx.x] = reduced[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = reduced[0];
}

}  // namespace xhd
