// Per-query bookkeeping of the X-HD kernels: the running maximum cmax, the worklists (WL_Miss for
// queries that need a wider radius, WL_Heavy for crowded cells left to the block-cooperative kernel)
// and the counters the host reads between iterations.
#pragma once

#include <cstdint>
#include <cstring>

#include "../geometry/filter_bounds.h"
#include "../geometry/loose_gate.h"

namespace xhd {

// cmax and the query that set it in one 64-bit word: the computed squared distance's float bits above
// the complement of the source index (one atomicMax keeps the largest). The searches are float filters
// (filter_bounds.h): a query stops (early break, MaxDist estimator) only once some computed squared
// distance is within the threshold cmax proves, so it is truly nearer than the query that set cmax and
// cannot be the witness, ties included. Every query that does not stop is a survivor, settled in double
// on the host (exact_refine.h).
__device__ __forceinline__ unsigned long long pack_candidate(float d2, uint32_t source_index) {
  return (static_cast<unsigned long long>(__float_as_uint(d2)) << 32) | (0xffffffffu - source_index);
}

__device__ __forceinline__ unsigned long long load_cmax(const unsigned long long* cmax) {
  return *reinterpret_cast<const volatile unsigned long long*>(cmax);
}

// The float a cmax word or survivor entry holds, on the host (__uint_as_float on the device).
inline float float_of(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// The squared distance a cmax word holds, on the host (0 while no query has set it).
inline float distance2_of_word(unsigned long long word) { return float_of(static_cast<uint32_t>(word >> 32)); }

// The pruning threshold a cmax word proves (-1 while no query has set it).
__device__ __forceinline__ float threshold_of(unsigned long long word, const FilterBounds& bounds) {
  return word == 0 ? -1.f : bounds.prune_threshold(__uint_as_float(static_cast<uint32_t>(word >> 32)));
}

// A query that meets a target point equal to it is truly at distance 0 when the float copies are the
// input itself; it cannot then be the witness unless it is source point 0 (a point at distance 0 is the
// witness only when every point is, HD 0, and then the smallest index is). A = B and A within B then
// leave one survivor instead of all. (The CPU certifies such zeros in double for any input.)
__device__ __forceinline__ bool settled_at_zero(const FilterBounds& bounds, const float p[3], const float4& t,
                                                uint32_t source_index) {
  return bounds.copies_exact && source_index != 0 && p[0] == t.x && p[1] == t.y && p[2] == t.z;
}

// Where a search's survivors go: (source index, computed squared distance bits) per query that did not
// stop, at most one entry per query.
struct SurvivorList {
  uint2* entries;
  uint32_t* count;
  uint32_t capacity;
};

// Offers a finished query: a survivor when record is set (the warm-up's samples come again in the main
// pass and only raise cmax), and a candidate for cmax unless raise is false (a loose target may be nearer
// than its float result, loose_gate.h).
__device__ __forceinline__ void offer_result(unsigned long long* cmax, const SurvivorList& survivors, float cmin,
                                             uint32_t source_index, bool record, bool raise = true) {
  if (record) {
    const uint32_t at = atomicAdd(survivors.count, 1u);
    if (at < survivors.capacity) survivors.entries[at] = make_uint2(source_index, __float_as_uint(cmin));
  }
  if (!raise) return;
  const unsigned long long word = pack_candidate(cmin, source_index);
  if (word > load_cmax(cmax)) atomicMax(cmax, word);
}

enum Counter : int {
  kMissCount = 0,     // queries pushed to WL_Miss this iteration
  kHeavyEntries = 1,  // (query, cell) pairs pushed to WL_Heavy
  kHeavyQueries = 2,  // queries with at least one heavy entry
  kCounterSlots = 4
};

enum Stat : int { kDistanceEvals = 0, kPrunedQueries = 1, kStatSlots = 2 };

struct QueryState {
  const float4* queries;  // source points in Morton order; w = original index bits
  uint32_t query_count;
  float* cmin;                  // per query: best squared distance so far (kept across iterations)
  const uint32_t* worklist_in;  // queries of this iteration (tree iterations)
  uint32_t* worklist_miss;      // WL_Miss
  uint32_t* heavy_queries;      // queries waiting on WL_Heavy
  unsigned char* discarded;     // per query with heavy entries: pruned meanwhile
  uint2* heavy;                 // WL_Heavy: (query, cell key)
  uint32_t heavy_capacity;
  uint32_t* counters;         // Counter slots
  unsigned long long* stats;  // Stat slots
  unsigned long long* cmax;   // packed, see pack_candidate
  FilterBounds bounds;        // what cmax proves (threshold_of)
  SurvivorList survivors;
  LooseGate loose;  // the loose targets the grid leaves out (loose_gate.h)
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
