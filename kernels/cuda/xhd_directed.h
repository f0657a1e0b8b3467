// One direction of the Hausdorff distance with the X-HD method on the GPU: queries (a source set in
// Morton order) against a grid over the target set.
#pragma once

#include <cstdint>

#include "../abi/progress.h"
#include "device_grid.h"
#include "device_memory.h"
#include "query_state.cuh"

namespace xhd {

struct DirectedStats {
  uint64_t distance_evals = 0;
  uint64_t pruned_queries = 0;
  uint64_t radius_queries = 0;  // queries that needed a radius beyond the first iteration
  int iterations = 0;
};

struct DirectedRun {
  const DeviceGrid* target;
  const float4* queries;  // Morton-ordered source points, w = original index bits
  uint32_t query_count;
  Box source_bounds;         // MBR of the whole source set (for the radius bounds)
  unsigned long long* cmax;  // device word, kept across chunks of one direction
  const Progress* progress;
  const FilterBounds* bounds;  // the frame's rounding bounds (filter_bounds.h)
  SurvivorList survivors;      // room for query_count entries
  LooseGate loose;             // the target's loose points, which the grid leaves out
};

// Runs the search as a float filter; afterwards cmax holds the largest computed nearest distance and
// `survivors` every query that did not stop.
DirectedStats run_directed_xhd(DeviceMemory& memory, const DirectedRun& run, cudaStream_t stream);

// Only the warm-up of run_directed_xhd: exact grid searches of a spread sample of the queries raise cmax
// (nothing is recorded), so that another search of the same direction prunes from its first query. Queued
// on `stream`.
void seed_cmax_on_grid(const DirectedRun& run, cudaStream_t stream);

// The nearest distance a cmax word holds (0 while unset): after the warm-up, a distance some query is
// known to have, and an estimate of the search's final radius. Waits for `stream`.
double cmax_distance(const unsigned long long* cmax, cudaStream_t stream);

// Whether a search (grid or OptiX) starts its radius no smaller than cmax_distance after the warm-up; for
// sets far apart the first radius otherwise creeps up by a cell diagonal a pass. XHD_SEEDED_RADIUS=0 turns
// it off, so that the difference can be measured (scripts/device/optix-variants.mjs).
bool seeded_first_radius();

// Lower bound of the directed HD from the two MBRs: each face of the source MBR holds a source point,
// and that point is at least as far from the target as the face is from the target MBR.
double directed_lower_bound(const Box& source, const Box& target);

// Upper bound of every nearest-neighbour distance: MaxDist between the MBRs.
double directed_upper_bound(const Box& source, const Box& target);

}  // namespace xhd
