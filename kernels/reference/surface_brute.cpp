// The reference for point-to-surface distance: every triangle for every point, in double precision over
// the input's own coordinates, ties to the smallest triangle index. Tests compare the fast searches with it.
#include <chrono>

#include "../common/elapsed.h"
#include "../common/point_triangle.h"
#include "../common/parallel.h"
#include "../cpu/surface_distance.h"

namespace xhd {

void surface_distance_brute(const SurfaceJob& job, xhd_surface_result& result) {
  const auto start = std::chrono::steady_clock::now();
  const xhd_mesh& mesh = *job.mesh;
  const PointTruth points{job.points->xyz64 ? nullptr : job.points->xyz, job.points->xyz64, job.points->count};
  const PointTruth vertices{mesh.xyz64 ? nullptr : mesh.xyz, mesh.xyz64, mesh.vertex_count};
  parallel_blocks(job.points->count, 16, job.threads, [&](size_t begin, size_t end, int) {
    job.progress->check_cancel();
    for (size_t i = begin; i < end; ++i) {
      const Dvec3 p = truth_point(points, i);
      SurfacePoint best{static_cast<double>(INFINITY), {0.0, 0.0, 0.0}};
      uint32_t best_t = 0;
      for (uint64_t t = 0; t < mesh.triangle_count; ++t) {
        const uint32_t* v = mesh.triangles + 3 * t;
        const SurfacePoint s =
            closest_on_triangle(p, truth_point(vertices, v[0]), truth_point(vertices, v[1]), truth_point(vertices, v[2]));
        if (s.d2 < best.d2) {
          best = s;
          best_t = static_cast<uint32_t>(t);
        }
      }
      store_surface_answer(job, i, best.d2, best_t, best.at.x, best.at.y, best.at.z);
    }
    job.progress->add(end - begin);
  });
  result.triangle_tests = job.points->count * mesh.triangle_count;
  result.query_ms = elapsed_ms(start);
}

}  // namespace xhd
