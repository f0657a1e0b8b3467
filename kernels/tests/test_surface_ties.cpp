// The surface value's exact tie pruning (geometry/point_triangle.h: corner_box_dist2, surface_value,
// cannot_win; geometry/triangle_bvh.h: the tie boxes): a box's square never exceeds that of a box inside it,
// bit for bit; the hierarchy searched by its tie boxes gives the brute force's triangle and value, as the search
// without them (the GPU's) does; and a query far from a flat face of many triangles, whose values tie within
// rounding, evaluates a few of them rather than all.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "../geometry/point_triangle.h"
#include "../geometry/surface_brute_point.h"
#include "../geometry/triangle_bvh.h"
#include "check.h"
#include "random_points.h"

namespace {

using xhd::Dvec3;

// A coordinate at the magnitude 10^e: every scale a search meets, from a unit mesh to a vertex at 6.5e10.
double at_scale(xhd_test::Random& rng, int e) { return rng.uniform(-1, 1) * std::pow(10.0, e); }

// A flat face at x = 0.4603: an n x n grid of squares over [-0.25, 0.25]^2 in y, z, two triangles each, plus a
// ring of triangles leaning back from its edges (each with one edge on the face's border, its far corner at x =
// 0.3). The triangle order is shuffled, so the smallest index of a tie lies anywhere on the face.
struct Face {
  std::vector<double> xyz;
  std::vector<uint32_t> triangles;
};

Face flat_face(xhd_test::Random& rng, int n) {
  Face f;
  auto vertex = [&](double x, double y, double z) {
    f.xyz.insert(f.xyz.end(), {x, y, z});
    return static_cast<uint32_t>(f.xyz.size() / 3 - 1);
  };
  std::vector<uint32_t> grid;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j) grid.push_back(vertex(0.4603, -0.25 + 0.5 * i / n, -0.25 + 0.5 * j / n));
  auto at = [&](int i, int j) { return grid[static_cast<size_t>(i) * (n + 1) + j]; };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      f.triangles.insert(f.triangles.end(), {at(i, j), at(i + 1, j), at(i + 1, j + 1)});
      f.triangles.insert(f.triangles.end(), {at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
  for (int i = 0; i < n; ++i) {
    const uint32_t back = vertex(0.3, -0.3 + 0.6 * (i + 0.5) / n, -0.3);
    f.triangles.insert(f.triangles.end(), {at(i, 0), at(i + 1, 0), back});
  }
  // Shuffle the triangles (Fisher-Yates on whole triples).
  const size_t count = f.triangles.size() / 3;
  for (size_t t = count; t-- > 1;) {
    const size_t u = rng.below(t + 1);
    for (int k = 0; k < 3; ++k) std::swap(f.triangles[3 * t + k], f.triangles[3 * u + k]);
  }
  return f;
}

// The surface of the cube [-0.5, 0.5]^3: each face an n x n grid of squares, two triangles each, the triangle
// order shuffled. Far off a face its triangles tie; off an edge or a corner those there do.
Face cube_surface(xhd_test::Random& rng, int n) {
  Face f;
  for (int axis = 0; axis < 3; ++axis)
    for (const double side : {-0.5, 0.5}) {
      const int u = (axis + 1) % 3, w = (axis + 2) % 3;
      const uint32_t base = static_cast<uint32_t>(f.xyz.size() / 3);
      for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
          double v[3];
          v[axis] = side;
          v[u] = -0.5 + double(i) / n;
          v[w] = -0.5 + double(j) / n;
          f.xyz.insert(f.xyz.end(), {v[0], v[1], v[2]});
        }
      auto at = [&](int i, int j) { return base + static_cast<uint32_t>(i * (n + 1) + j); };
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          f.triangles.insert(f.triangles.end(), {at(i, j), at(i + 1, j), at(i + 1, j + 1)});
          f.triangles.insert(f.triangles.end(), {at(i, j), at(i + 1, j + 1), at(i, j + 1)});
        }
    }
  const size_t count = f.triangles.size() / 3;
  for (size_t t = count; t-- > 1;) {
    const size_t u = rng.below(t + 1);
    for (int k = 0; k < 3; ++k) std::swap(f.triangles[3 * t + k], f.triangles[3 * u + k]);
  }
  return f;
}

}  // namespace

TEST(a_box_square_never_exceeds_that_of_a_box_inside_it) {
  // corner_box_dist2 rounds monotonically: widening a box on any side never raises it, bit for bit, whatever
  // the scale of the query and of the boxes (the exact pruning relies on it with no margin).
  xhd_test::Random rng(29);
  long checks = 0;
  for (int e = -3; e <= 11; ++e)
    for (int trial = 0; trial < 2000; ++trial) {
      const Dvec3 p{at_scale(rng, e), at_scale(rng, e), at_scale(rng, e)};
      double lo[3], hi[3], outer_lo[3], outer_hi[3];
      const int box_scale = static_cast<int>(rng.below(4)) - 2;
      for (int k = 0; k < 3; ++k) {
        const double a = at_scale(rng, box_scale), b = at_scale(rng, box_scale);
        lo[k] = std::min(a, b);
        hi[k] = std::max(a, b);
        // Outward by nothing, by an ulp, or by a random amount on each side.
        const uint64_t how = rng.below(3);
        outer_lo[k] = how == 0 ? lo[k] : (how == 1 ? std::nextafter(lo[k], -INFINITY) : lo[k] - rng.uniform(0, 1e-3));
        outer_hi[k] = how == 0 ? hi[k] : (how == 1 ? std::nextafter(hi[k], INFINITY) : hi[k] + rng.uniform(0, 1e-3));
      }
      CHECK(xhd::corner_box_dist2(p, outer_lo, outer_hi) <= xhd::corner_box_dist2(p, lo, hi));
      ++checks;
    }
  CHECK(checks == 15 * 2000);
}

TEST(a_surface_value_is_at_least_its_box_square_and_its_closest_point_square) {
  xhd_test::Random rng(31);
  for (int trial = 0; trial < 20000; ++trial) {
    const int e = static_cast<int>(rng.below(12));
    const Dvec3 p{at_scale(rng, e), at_scale(rng, e), at_scale(rng, e)};
    const Dvec3 a{rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)};
    const Dvec3 b{rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)};
    const Dvec3 c{rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)};
    const xhd::CornerBox box = xhd::corner_box(a, b, c);
    const double box_d2 = xhd::corner_box_dist2(p, box.lo, box.hi);
    const xhd::SurfacePoint v = xhd::surface_value(p, a, b, c, box_d2);
    const xhd::SurfacePoint s = xhd::closest_on_triangle(p, a, b, c);
    CHECK(v.d2 >= box_d2);
    CHECK(v.d2 == std::max(s.d2, box_d2));
    CHECK(v.at.x == s.at.x && v.at.y == s.at.y && v.at.z == s.at.z);
  }
}

TEST(far_queries_find_the_brute_force_answer_on_a_face_of_tied_triangles_with_few_tests) {
  xhd_test::Random rng(47);
  const Face face = flat_face(rng, 24);  // 1,152 triangles on the face, 24 leaning back
  const uint64_t count = face.triangles.size() / 3;
  const xhd::PointTruth truth{nullptr, face.xyz.data(), face.xyz.size() / 3};
  const std::vector<float> order(face.xyz.begin(), face.xyz.end());
  const double origin[3] = {0.4603, 0.0, 0.0};
  const xhd::TriangleBvh tied = xhd::build_triangle_bvh(order.data(), truth, face.triangles.data(), count, origin);
  const xhd::TriangleBvh plain =
      xhd::build_triangle_bvh(order.data(), truth, face.triangles.data(), count, origin, false);
  CHECK(!tied.ties.empty());
  CHECK(plain.ties.empty());
  for (const double far : {1e-3, 1.0, 1e3, 1e6, 1e10, 6.5e10}) {
    uint64_t tied_tests = 0, plain_tests = 0;
    constexpr int kQueries = 200;
    for (int q = 0; q < kQueries; ++q) {
      // Off the face along +x, over it or a little beside it.
      const Dvec3 p{0.4603 + far * rng.uniform(0.5, 1.0), rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)};
      const xhd::BruteNearest brute = xhd::nearest_triangle_brute(truth, face.triangles.data(), count, p);
      xhd::NearestTriangle by_ties, by_margins;
      xhd::nearest_triangle(tied.view(), p, by_ties);
      xhd::nearest_triangle(plain.view(), p, by_margins);
      for (const xhd::NearestTriangle* found : {&by_ties, &by_margins}) {
        if (!CHECK(found->triangle == brute.triangle && found->d2 == brute.best.d2))
          std::fprintf(stderr, "  far %g: triangle %u (d2 %.17g) against the brute force's %u (%.17g)\n", far,
                       found->triangle, found->d2, brute.triangle, brute.best.d2);
      }
      tied_tests += by_ties.tests;
      plain_tests += by_margins.tests;
    }
    std::fprintf(stderr, "  %g away: %.1f tests a query by the tie boxes, %.1f by the margins alone\n", far,
                 double(tied_tests) / kQueries, double(plain_tests) / kQueries);
    // Far off, every triangle touching the face's plane ties; the tie boxes reach the smallest index in a few
    // tests, where the margins alone prune only the tied triangles of larger indices than the best so far.
    if (far >= 1e6) CHECK(tied_tests <= 16 * kQueries);
  }
}

TEST(queries_from_every_side_find_the_brute_force_answer_on_a_cube_of_tied_faces) {
  // Far off a face, an edge or a corner of a cube tessellated finely, in random and axis directions: the tie
  // boxes' per-face split (face_cannot_win) picks the face p lies farthest beyond, low or high, on every axis.
  xhd_test::Random rng(53);
  const Face cube = cube_surface(rng, 12);  // 1,728 triangles
  const uint64_t count = cube.triangles.size() / 3;
  const xhd::PointTruth truth{nullptr, cube.xyz.data(), cube.xyz.size() / 3};
  const std::vector<float> order(cube.xyz.begin(), cube.xyz.end());
  const double origin[3] = {0.0, 0.0, 0.0};
  const xhd::TriangleBvh tied = xhd::build_triangle_bvh(order.data(), truth, cube.triangles.data(), count, origin);
  for (const double far : {0.01, 1.0, 1e3, 1e7, 1e10}) {
    uint64_t tests = 0;
    constexpr int kQueries = 300;
    for (int q = 0; q < kQueries; ++q) {
      Dvec3 dir{rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)};
      if (q % 3 == 0) {  // along an axis, either way: over the middle of a face
        const int axis = static_cast<int>(rng.below(3));
        const double sign = rng.below(2) ? 1.0 : -1.0;
        dir = {axis == 0 ? sign : rng.uniform(-1e-3, 1e-3), axis == 1 ? sign : rng.uniform(-1e-3, 1e-3),
               axis == 2 ? sign : rng.uniform(-1e-3, 1e-3)};
      }
      const Dvec3 p{0.5 * dir.x + far * dir.x, 0.5 * dir.y + far * dir.y, 0.5 * dir.z + far * dir.z};
      const xhd::BruteNearest brute = xhd::nearest_triangle_brute(truth, cube.triangles.data(), count, p);
      xhd::NearestTriangle found;
      xhd::nearest_triangle(tied.view(), p, found);
      if (!CHECK(found.triangle == brute.triangle && found.d2 == brute.best.d2))
        std::fprintf(stderr, "  far %g: triangle %u (d2 %.17g) against the brute force's %u (%.17g)\n", far,
                     found.triangle, found.d2, brute.triangle, brute.best.d2);
      tests += found.tests;
    }
    std::fprintf(stderr, "  %g away: %.1f tests a query\n", far, double(tests) / kQueries);
    if (far >= 1e7) CHECK(tests <= 16 * kQueries);
  }
}
