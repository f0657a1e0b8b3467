// Point-to-surface distances through the triangle grid, with the triangle hierarchy as the fallback for
// the points the grid cannot settle cheaply (far from the surface). The hierarchy is built only when such
// points exist, so comparing two nearby surfaces costs one grid build per mesh.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <vector>

#include "../abi/elapsed.h"
#include "../abi/large_buffer.h"
#include "../geometry/surface_frame.h"
#include "../geometry/triangle_bvh.h"
#include "../geometry/triangle_grid.h"
#include "../abi/parallel.h"
#include "surface_distance.h"

namespace xhd {
namespace {

constexpr size_t kBlock = 1024;

// A point the grid left, with the best triangle it had found (or none) to seed the hierarchy's search.
struct Leftover {
  uint32_t point;
  uint32_t triangle;
};

// A triangle of a plain scan, tested with no padded box first (the scan runs where nearly every triangle
// ties); the same evaluation and tie rule as offer_grid_triangle.
void offer_every_triangle(const TriangleGridView& g, uint32_t t, Dvec3 p, NearestTriangle& best) {
  const Corners c = grid_corners(g, t);
  const double box_d2 = corner_box_dist2(p, c.a, c.b, c.c);
  if (cannot_win(box_d2, t, best.d2, best.triangle)) return;
  const SurfacePoint s = surface_value(p, c.a, c.b, c.c, box_d2);
  if (s.d2 < best.d2 || (s.d2 == best.d2 && t < best.triangle)) {
    best.d2 = s.d2;
    best.at = s.at;
    best.triangle = t;
  }
}

}  // namespace

void surface_distance_grid(const SurfaceJob& job, xhd_surface_result& result) {
  const auto build_start = std::chrono::steady_clock::now();
  SurfaceFrame frame;
  TriangleGrid grid;
  const uint64_t n = job.points->count;
  {
    GateHold hold(job.lane, job.threads);
    frame_surface(*job.points, *job.mesh, job.threads, frame);
    grid = build_triangle_grid(frame.vertex_truth(), job.mesh->triangles, job.mesh->triangle_count, frame.bulk);
  }
  for (int k = 0; k < 3; ++k) result.origin[k] = frame.frame.origin[k];
  const TriangleGridView view = grid.view();
  result.build_ms = elapsed_ms(build_start);

  const auto query_start = std::chrono::steady_clock::now();
  const int threads = gated_workers(job.lane, job.threads);
  const PointTruth truth = frame.point_truth();
  // Morton order: consecutive queries touch the same cells, and each seeds the next. (One thread: one permit.)
  std::vector<uint32_t> order;
  {
    GateHold hold(job.lane, 1);
    order = morton_order(frame.points(), n);
  }
  std::vector<uint64_t> tests(threads, 0);
  std::vector<std::vector<Leftover>> leftovers(threads);
  // A mesh the grid would serve badly (grid.usable false) sends every point to the hierarchy, in order.
  if (!grid.usable) {
    leftovers[0].reserve(n);
    for (size_t k = 0; k < n; ++k) leftovers[0].push_back({order[k], 0xffffffffu});
  } else
    gated_blocks(n, kBlock, threads, job.lane, [&](size_t begin, size_t end, int thread) {
      job.progress->check_cancel();
      uint32_t seed = 0xffffffffu;
      uint64_t evaluated = 0;
      size_t settled = 0;
      for (size_t k = begin; k < end; ++k) {
        const uint32_t i = order[k];
        NearestTriangle best;
        const bool exact = grid_nearest_triangle(view, truth_point(truth, i), seed, best);
        evaluated += best.tests;
        if (best.triangle != 0xffffffffu) seed = best.triangle;
        if (!exact) {
          leftovers[thread].push_back({i, best.triangle});
          continue;
        }
        store_surface_answer(job, i, best.d2, best.triangle, best.at.x, best.at.y, best.at.z);
        ++settled;
      }
      tests[thread] += evaluated;
      job.progress->add(settled);
    });
  result.query_ms = elapsed_ms(query_start);

  std::vector<Leftover> rest;
  for (auto& part : leftovers) rest.insert(rest.end(), part.begin(), part.end());
  if (!rest.empty()) {
    const auto bvh_start = std::chrono::steady_clock::now();
    TriangleBvh bvh;
    {
      GateHold hold(job.lane, job.threads);
      bvh = build_triangle_bvh(frame.vertices(), frame.vertex_truth(), job.mesh->triangles, job.mesh->triangle_count,
                               frame.origin());
    }
    result.build_ms += elapsed_ms(bvh_start);
    const auto rest_start = std::chrono::steady_clock::now();
    const BvhView tree = bvh.view();
    const uint64_t triangle_count = job.mesh->triangle_count;
    // Where the hierarchy tests most triangles anyway (slivers that all tie, as collinear ones do, leave
    // nothing to prune), a plain scan tests them all for less: once a block of queries averaged more than
    // half of them, the rest scan. Both give the same exact answer, ties to the smallest index.
    std::atomic<bool> scan_instead{false};
    gated_blocks(rest.size(), kBlock, threads, job.lane, [&](size_t begin, size_t end, int thread) {
      job.progress->check_cancel();
      uint64_t evaluated = 0;
      uint32_t previous_slot = 0xffffffffu;
      const bool scan = scan_instead.load(std::memory_order_relaxed);
      for (size_t k = begin; k < end; ++k) {
        const Dvec3 p = truth_point(truth, rest[k].point);
        NearestTriangle best;
        if (scan) {
          for (uint64_t t = 0; t < triangle_count; ++t) offer_every_triangle(view, static_cast<uint32_t>(t), p, best);
          evaluated += triangle_count;
          store_surface_answer(job, rest[k].point, best.d2, best.triangle, best.at.x, best.at.y, best.at.z);
          continue;
        }
        if (rest[k].triangle != 0xffffffffu) offer_grid_triangle(view, rest[k].triangle, p, best);
        // The points left are still in Morton order: the previous one's answer is usually the tighter seed.
        if (previous_slot != 0xffffffffu) offer_triangle(tree, previous_slot, p, best);
        nearest_triangle(tree, p, best);
        if (best.slot != 0xffffffffu) previous_slot = best.slot;
        evaluated += best.tests;
        store_surface_answer(job, rest[k].point, best.d2, best.triangle, best.at.x, best.at.y, best.at.z);
      }
      tests[thread] += evaluated;
      if (!scan && evaluated > (end - begin) * (triangle_count / 2))
        scan_instead.store(true, std::memory_order_relaxed);
      job.progress->add(end - begin);
    });
    result.query_ms += elapsed_ms(rest_start);
  }
  for (uint64_t t : tests) result.triangle_tests += t;
}

}  // namespace xhd
