// Point-to-surface distances through the triangle hierarchy. Queries run in Morton order of the points
// so consecutive ones share tree paths in cache, and each starts from the triangle nearest to the one
// before it: usually near, that seed prunes most of the tree at once.
#include <algorithm>
#include <chrono>
#include <vector>

#include "../geometry/box_math.h"
#include "../abi/elapsed.h"
#include "../abi/parallel.h"
#include "../geometry/surface_frame.h"
#include "../geometry/triangle_bvh.h"
#include "surface_distance.h"

namespace xhd {

void surface_distance_bvh(const SurfaceJob& job, xhd_surface_result& result) {
  const auto build_start = std::chrono::steady_clock::now();
  SurfaceFrame frame;
  TriangleBvh bvh;
  const uint64_t n = job.points->count;
  {
    GateHold hold(job.lane, job.threads);
    frame_surface(*job.points, *job.mesh, job.threads, frame);
    bvh = build_triangle_bvh(frame.vertices(), frame.vertex_truth(), job.mesh->triangles, job.mesh->triangle_count,
                             frame.origin());
  }
  for (int k = 0; k < 3; ++k) result.origin[k] = frame.frame.origin[k];
  const BvhView view = bvh.view();
  result.build_ms = elapsed_ms(build_start);

  const auto query_start = std::chrono::steady_clock::now();
  const PointTruth truth = frame.point_truth();
  const int threads = gated_workers(job.lane, job.threads);
  std::vector<uint32_t> order;
  {
    GateHold hold(job.lane, 1);
    order = morton_order(frame.points(), n);
  }
  std::vector<uint64_t> tests(static_cast<size_t>(threads), 0);
  gated_blocks(n, 1024, threads, job.lane, [&](size_t begin, size_t end, int thread) {
    job.progress->check_cancel();
    uint32_t seed_slot = 0xffffffffu;
    uint64_t evaluated = 0;
    for (size_t k = begin; k < end; ++k) {
      const uint32_t i = order[k];
      const Dvec3 p = truth_point(truth, i);
      NearestTriangle best;
      if (seed_slot != 0xffffffffu) offer_triangle(view, seed_slot, p, best);
      nearest_triangle(view, p, best);
      seed_slot = best.slot;
      evaluated += best.tests;
      store_surface_answer(job, i, best.d2, best.triangle, best.at.x, best.at.y, best.at.z);
    }
    tests[thread] += evaluated;
    job.progress->add(end - begin);
  });
  for (uint64_t t : tests) result.triangle_tests += t;
  result.query_ms = elapsed_ms(query_start);
}

}  // namespace xhd
