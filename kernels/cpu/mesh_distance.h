// The CPU backend's mesh–mesh distance: both f12 hierarchies built once; per query B stays in its own
// frame (boxes, oriented boxes and leaf corners moved by the pose as the search reaches them) and threads
// search the pairs of nodes best first. Or every triangle pair: the double-precision reference.
#pragma once

#include <memory>

#include "../geometry/mesh_distance_engine.h"
#include "../abi/progress.h"

namespace xhd {

// The f12 hierarchies (kernels/cpu/mesh_distance.cpp) and the reference over every triangle pair
// (kernels/reference/mesh_distance_brute.cpp). Arguments must already be checked. The build reports to
// progress and stops with Cancelled when the caller cancels (the reference has nothing to build).
std::unique_ptr<MeshDistanceEngine> make_cpu_f12_distance(const xhd_mesh& a, const xhd_mesh& b,
                                                          const xhd_distance_options& options,
                                                          const Progress& progress);
std::unique_ptr<MeshDistanceEngine> make_brute_distance(const xhd_mesh& a, const xhd_mesh& b,
                                                        const xhd_distance_options& options);

}  // namespace xhd
