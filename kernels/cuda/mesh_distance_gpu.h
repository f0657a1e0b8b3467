// The CUDA backend's mesh–mesh distance (gDist): both f12 hierarchies on the device, B posed and its boxes
// refitted per query, then BVTT front expansion with an adaptive depth and the exact triangle pairs of
// the final front. The winning pair is the same as the CPU backend's and the reference's.
#pragma once

#include <memory>

#include "../geometry/mesh_distance_engine.h"
#include "../abi/progress.h"

namespace xhd {

// Arguments must already be checked and the device made current. The build (on the host, then the
// uploads) reports to progress and stops with Cancelled, freeing what it holds, when the caller cancels.
std::unique_ptr<MeshDistanceEngine> make_gpu_mesh_distance(const xhd_mesh& a, const xhd_mesh& b,
                                                           const xhd_distance_options& options,
                                                           const Progress& progress);

}  // namespace xhd
