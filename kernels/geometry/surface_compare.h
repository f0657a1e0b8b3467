// xhd_surface_compare, shared by every backend library: the query points of each input (its samples, in the
// library's memory, or its own points), each direction's distances through the backend's point-to-surface
// search, the statistics, and each witness's nearest triangle by the reference search. The rules are those the
// TypeScript orchestration had (src/surface-compare.ts before the one call): on the CPU the two directions run
// side by side while B is sampled, each building on half the threads and searching on a lane of a gate that
// shares all of them (core_gate.h), one thread stays one thread, and on a GPU B is sampled on the host while
// the device measures A; the wall times never add up to more than the call's.
#pragma once

#include <functional>

#include "../abi/core_gate.h"
#include "../abi/progress.h"
#include "xhd.h"

namespace xhd {

// One direction's search: every query point's distance to the target's surface (a point cloud's as triangles
// (i, i, i)), written to distance in query order.
struct SurfaceMeasureJob {
  xhd_points queries;
  const xhd_mesh* target;
  int threads;
  const Progress* progress;
  double* distance;
  GateLane* lane;  // its lane of the host threads shared with the other direction, side by side; else null
};

struct SurfaceBackend {
  // Fills result (reset to "nothing computed" by the caller) with the search's timings, tests and origin.
  std::function<void(const SurfaceMeasureJob&, xhd_surface_result&)> measure;
  // true: the searches run on host threads (the CPU), so two directions share them side by side; false: on a
  // device, one direction at a time, the host sampling meanwhile.
  bool on_host;
};

// Checks the arguments (every backend refuses the same inputs with the same messages), then compares.
void surface_compare(const xhd_mesh* a, const xhd_mesh* b, const xhd_surface_compare_options* options,
                     xhd_surface_compare_result* result, xhd_progress* progress, const SurfaceBackend& backend);

}  // namespace xhd
