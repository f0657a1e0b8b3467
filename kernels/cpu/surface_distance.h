// Point-to-surface distances on the CPU: the fast searches through the triangle hierarchy or grid and the
// double-precision reference that tests compare them with. All fill the caller's arrays (any may be null)
// with distances evaluated over the input's own coordinates (surface_frame.h).
#pragma once

#include <cmath>
#include <cstdint>

#include "../abi/core_gate.h"
#include "../abi/progress.h"
#include "xhd.h"

namespace xhd {

struct SurfaceJob {
  const xhd_points* points;
  const xhd_mesh* mesh;
  int threads;
  const Progress* progress;
  double* distance;
  uint32_t* nearest_triangle;
  double* closest;
  // This job's lane of a gate shared with a job running beside it (a compare's other direction), or null: the
  // builds then hold `threads` of its permits, and the query loops run with all of them, a permit a block
  // (core_gate.h).
  GateLane* lane = nullptr;
};

void surface_distance_bvh(const SurfaceJob& job, xhd_surface_result& result);
void surface_distance_grid(const SurfaceJob& job, xhd_surface_result& result);
void surface_distance_brute(const SurfaceJob& job, xhd_surface_result& result);

// Writes point i's answer into whichever output arrays the job has.
inline void store_surface_answer(const SurfaceJob& job, uint64_t i, double d2, uint32_t triangle, double x, double y,
                                 double z) {
  if (job.distance) job.distance[i] = std::sqrt(d2);
  if (job.nearest_triangle) job.nearest_triangle[i] = triangle;
  if (job.closest) {
    job.closest[3 * i] = x;
    job.closest[3 * i + 1] = y;
    job.closest[3 * i + 2] = z;
  }
}

}  // namespace xhd
