// One direction of the Hausdorff distance with the X-HD method on ray-tracing hardware (OptiX): the same
// contract as run_directed_xhd (xhd_directed.h), so the CUDA backend's survivors, drain and double-precision
// refinement make its answers exact, identical to the grid search's and the CPU's.
#pragma once

#include "../cuda/xhd_directed.h"

namespace xhd {

// Runs the ray-tracing search as a float filter over run.target's points (the grid's sorted copy, w = the
// original index); afterwards cmax holds the largest computed nearest distance and `survivors` every
// query that did not stop. Throws Unavailable when OptiX cannot run on the current device.
DirectedStats run_directed_optix(DeviceMemory& memory, const DirectedRun& run, cudaStream_t stream);

// Device bytes run_directed_optix holds for a target of n points beyond the grid search's per-query state:
// the boxes and the acceleration structure's build and output buffers (on the current device).
uint64_t optix_search_bytes(uint64_t n);

// The half side of the target points' boxes for squared search radius r2 (finite), or for the whole target
// set (r2 = +inf, `upper` the largest possible nearest distance): every pair of float points whose computed
// squared distance is at most r2 lies within it on each axis, with room for the box test's own rounding.
float search_box_half_side(float r2, double upper);

}  // namespace xhd
