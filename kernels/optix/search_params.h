// What one optixLaunch of the X-HD search reads (the `params` of device/search_programs.cu), shared by the
// host code that fills it. Plain data, passed by value into constant memory.
#pragma once

#include <optix_types.h>

#include <cstdint>

#include "../geometry/box_math.h"
#include "../geometry/filter_bounds.h"
#include "../geometry/loose_gate.h"
#include "../cuda/query_state.cuh"

namespace xhd {

enum class SearchLaunch : uint32_t {
  kFirst = 1,  // every query, nothing found before (cmin starts at +inf)
  kAgain = 2,  // the queries of `worklist`, resuming their cmin at a wider radius
};

// What the target points are to the traversal: runs of points as custom boxes (target_chunks.h), or one
// built-in sphere a point (target_spheres.h). Each has its hit group: the SBT offset of optixTrace.
enum class SearchPrimitive : uint32_t { kChunks = 0, kSpheres = 1 };

// Slots of the per-launch counters.
enum SearchCounter : int { kSearchMisses = 0, kSearchEvals = 1, kSearchPruned = 2, kSearchCounterSlots = 4 };

struct SearchParams {
  OptixTraversableHandle handle;  // the chunks' AABBs or the points' spheres at this radius
  SearchPrimitive primitive;
  float sphere_radius;            // kSpheres: every sphere's radius at this radius
  const float4* targets;          // the grid's sorted target points; w = the original index (bits)
  const Box* chunk_mbrs;          // primitive c: targets [c * chunk, min(target_count, (c + 1) * chunk)), its MBR
  uint32_t chunk;
  uint32_t target_count;
  const float4* queries;          // Morton-ordered source points; w = original index (bits)
  uint32_t query_count;
  SearchLaunch launch;
  uint32_t first;                // this launch's rays are the queries (or worklist entries) first, first + 1, ...
  uint32_t launch_count;         // rays of this launch
  const uint32_t* worklist;      // kAgain: the query slots to resume
  float* cmin;                   // per query slot: smallest computed squared distance so far
  uint32_t* misses;              // query slots that need a wider radius (WL_Miss)
  unsigned long long* counters;  // SearchCounter slots
  unsigned long long* cmax;      // the direction's packed cmax (query_state.cuh)
  float r2;                      // squared radius of this launch (+inf: the whole target set)
  FilterBounds bounds;           // what cmax proves (filter_bounds.h)
  SurvivorList survivors;
  LooseGate loose;  // the loose targets, which the AABBs leave out
};

}  // namespace xhd
