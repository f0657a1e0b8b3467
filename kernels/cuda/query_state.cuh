// Per-query bookkeeping of the X-HD kernels: the running maximum cmax, the worklists (WL_Miss for
// queries that need a wider radius, WL_Heavy for crowded cells left to the block-cooperative kernel)
// and the counters the host reads between iterations.
#pragma once

#include <cstdint>

namespace xhd {

// cmax and its witness in one 64-bit word: the squared distance's float bits above the complement of
// the source index. One atomicMax keeps the largest distance and, among equal ones, the smallest index,
// so the witness does not depend on thread timing. A query can stop (early break, MaxDist estimator) as
// soon as its best possible word is below cmax: ties are not pruned, so the smallest index still wins.
__device__ __forceinline__ unsigned long long pack_candidate(float d2, uint32_t source_index) {
  return (static_cast<unsigned long long>(__float_as_uint(d2)) << 32) | (0xffffffffu - source_index);
}

__device__ __forceinline__ unsigned long long load_cmax(const unsigned long long* cmax) {
  return *reinterpret_cast<const volatile unsigned long long*>(cmax);
}

enum Counter : int {
  kMissCount = 0,        // queries pushed to WL_Miss this iteration
  kHeavyEntries = 1,     // (query, cell) pairs pushed to WL_Heavy
  kHeavyQueries = 2,     // queries with at least one heavy entry
  kCounterSlots = 4
};

enum Stat : int { kDistanceEvals = 0, kPrunedQueries = 1, kStatSlots = 2 };

struct QueryState {
  const float4* queries;          // source points in Morton order; w = original index bits
  uint32_t query_count;
  float* cmin;                    // per query: best squared distance so far (kept across iterations)
  const uint32_t* worklist_in;    // queries of this iteration (tree iterations)
  uint32_t* worklist_miss;        // WL_Miss
  uint32_t* heavy_queries;        // queries waiting on WL_Heavy
  unsigned char* discarded;       // per query with heavy entries: pruned meanwhile
  uint2* heavy;                   // WL_Heavy: (query, cell key)
  uint32_t heavy_capacity;
  uint32_t* counters;             // Counter slots
  unsigned long long* stats;      // Stat slots
  unsigned long long* cmax;       // packed, see pack_candidate
};

// Appends to a worklist with one atomic per warp.
__device__ __forceinline__ uint32_t warp_append(uint32_t* counter, bool want) {
  const unsigned mask = __ballot_sync(__activemask(), want);
  if (!want) return 0;
  const unsigned lane = threadIdx.x & 31;
  const int leader = __ffs(mask) - 1;
  uint32_t base = 0;
  if (static_cast<int>(lane) == leader) base = atomicAdd(counter, static_cast<uint32_t>(__popc(mask)));
  base = __shfl_sync(mask, base, leader);
  return base + __popc(mask & ((1u << lane) - 1u));
}

}  // namespace xhd
