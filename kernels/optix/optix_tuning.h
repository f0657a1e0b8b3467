// The OptiX search's variants, chosen by environment variables so that one build measures them all
// (scripts/device/optix-variants.sh; docs/benchmarks.md records which is the default and why).
#pragma once

#include <cstdint>

namespace xhd {

// Points per box primitive for a search whose nearest distances are about `reach_over_spacing` times the
// target points' spacing: XHD_OPTIX_CHUNK when set (1 to 1024), else the measured rule of optix_tuning.cpp.
uint32_t optix_chunk_points(double reach_over_spacing);

// XHD_OPTIX_PRIMITIVE=spheres: one built-in sphere a point instead of runs of points as boxes.
bool optix_use_spheres();

// XHD_OPTIX_REBUILD=1: rebuild the structure at each radius instead of refitting it.
bool optix_rebuild_each_radius();

}  // namespace xhd
