// Point-to-surface distances on the GPU: the host-built triangle grid (or hierarchy) is uploaded and
// every point searches it in its own thread, with the same search code and double-precision distances
// as the CPU, so both backends return the same triangle and distance for every point.
#pragma once

#include "../abi/progress.h"
#include "xhd.h"

namespace xhd {

void gpu_point_surface_distance(const xhd_points& points, const xhd_mesh& mesh, const xhd_surface_options& options,
                                const Progress& progress, double* distance, uint32_t* nearest_triangle, double* closest,
                                xhd_surface_result& result);

}  // namespace xhd
