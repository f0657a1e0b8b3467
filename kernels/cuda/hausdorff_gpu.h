// Both directions of the Hausdorff distance on one GPU: uploads, index builds, queries (X-HD or EB),
// chunking of the source set when it does not fit beside the target, and the results.
#pragma once

#include "../abi/progress.h"
#include "placement.h"
#include "xhd.h"
#include "xhd_directed.h"

namespace xhd {

// The float filter search of one X-HD direction: run_directed_xhd (the grid) in the CUDA library, the
// ray-tracing search in the OptiX one (backend_identity.h). Everything around it is shared.
struct DirectedSearch {
  DirectedStats (*run)(DeviceMemory& memory, const DirectedRun& run, cudaStream_t stream);
  // Device bytes the search holds beyond the grid search's per-query state, for a target of n points (the
  // OptiX search's boxes and acceleration structure): the memory plan keeps them free.
  uint64_t (*target_bytes)(uint64_t n);
};

// The grid search of xhd_directed.cu, which needs nothing beyond the plan's own terms.
DirectedSearch grid_search();

void gpu_hausdorff(const xhd_points& a, const xhd_points& b, const xhd_hausdorff_options& options,
                   const Progress& progress, xhd_hausdorff_result& result, DirectedSearch search);

// X-HD on several workers (placement.h): each direction's inside source points in pieces that the workers
// take from one queue, each worker with the target's grid resident on its device, the cmax bound exchanged
// between chunks; each worker's survivors settled in double, the best of the workers' witnesses the answer,
// the one gpu_hausdorff gives. search_for(device) is the float search on that device. Throws
// DeviceMemoryShort when a target does not fit a worker (the caller falls back to tiles, points_gpu.h).
void gpu_hausdorff_split(const xhd_points& a, const xhd_points& b, const xhd_hausdorff_options& options,
                         const Progress& progress, xhd_hausdorff_result& result, DirectedSearch (*search_for)(int),
                         const Placement& placement, PlacementReport& report);

}  // namespace xhd
