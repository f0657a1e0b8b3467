// The reference for point-to-surface distance: every triangle for every point, in double precision over
// the input's own coordinates, ties to the smallest triangle index. Tests compare the fast searches with it.
#include <chrono>

#include "../abi/elapsed.h"
#include "../abi/parallel.h"
#include "../geometry/surface_brute_point.h"
#include "../cpu/surface_distance.h"

namespace xhd {

void surface_distance_brute(const SurfaceJob& job, xhd_surface_result& result) {
  const auto start = std::chrono::steady_clock::now();
  const xhd_mesh& mesh = *job.mesh;
  const PointTruth points = truth_of(*job.points);
  const PointTruth vertices{mesh.xyz64 ? nullptr : mesh.xyz, mesh.xyz64, mesh.vertex_count};
  parallel_blocks(job.points->count, 16, job.threads, [&](size_t begin, size_t end, int) {
    job.progress->check_cancel();
    for (size_t i = begin; i < end; ++i) {
      const BruteNearest n =
          nearest_triangle_brute(vertices, mesh.triangles, mesh.triangle_count, truth_point(points, i));
      store_surface_answer(job, i, n.best.d2, n.triangle, n.best.at.x, n.best.at.y, n.best.at.z);
    }
    job.progress->add(end - begin);
  });
  result.triangle_tests = job.points->count * mesh.triangle_count;
  result.query_ms = elapsed_ms(start);
}

}  // namespace xhd
