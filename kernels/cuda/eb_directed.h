// The EB baseline on the GPU (Taha & Hanbury's early break, X-HD's Algorithm 1): one warp per query
// point, the warp's lanes splitting the inner loop over a shuffled target set, stopping as soon as a
// distance at or below cmax shows the query cannot raise it.
#pragma once

#include <cstdint>

#include "../abi/progress.h"
#include "device_memory.h"
#include "query_state.cuh"

namespace xhd {

// Raw interleaved points on the device, in a seeded random order, as float4 with w = original index.
DeviceArray<float4> shuffled_points(DeviceMemory& memory, const float* xyz, uint32_t n, uint64_t seed,
                                    cudaStream_t stream);

// Raises cmax (packed as in query_state.cuh) over the queries as a float filter, appending every query
// that does not stop to survivors (room for query_count); returns the distances evaluated.
uint64_t run_directed_eb(DeviceMemory& memory, const float4* queries, uint32_t query_count, const float4* targets,
                         uint32_t target_count, unsigned long long* cmax, const FilterBounds& bounds,
                         const SurvivorList& survivors, const Progress* progress, cudaStream_t stream);

}  // namespace xhd
