// Point-to-surface distances on the CPU: the fast search through the triangle hierarchy and the
// double-precision reference that tests compare it with. Both fill the caller's arrays (any may be null).
#pragma once

#include <cmath>
#include <cstdint>

#include "../common/progress.h"
#include "xhd.h"

namespace xhd {

struct SurfaceJob {
  const float* points;
  uint64_t point_count;
  const xhd_mesh* mesh;
  int threads;
  const Progress* progress;
  double* distance;
  uint32_t* nearest_triangle;
  double* closest;
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
