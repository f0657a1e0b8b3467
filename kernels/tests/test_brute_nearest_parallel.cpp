// The reference's nearest triangle on several threads (kernels/geometry/brute_nearest_parallel.h) is the serial
// scan's answer to the bit: its triangle (the first of the nearest, also where equally near triangles fall in
// different blocks) and its closest point, for any block size and thread count.
#include <cstdint>
#include <vector>

#include "../geometry/brute_nearest_parallel.h"
#include "check.h"
#include "meshes.h"
#include "random_points.h"

namespace {

bool same(const xhd::BruteNearest& a, const xhd::BruteNearest& b) {
  return a.triangle == b.triangle && a.best.d2 == b.best.d2 && a.best.at.x == b.best.at.x &&
         a.best.at.y == b.best.at.y && a.best.at.z == b.best.at.z;
}

}  // namespace

TEST(brute_nearest_parallel_is_the_serial_scan_on_a_sphere_and_random_points) {
  const xhd_test::Mesh m = xhd_test::sphere(40, 80, 1.0, 0.0);
  const xhd::PointTruth vertices{nullptr, m.xyz.data(), m.xyz.size() / 3};
  const uint64_t count = m.triangles.size() / 3;
  xhd_test::Random rng(17);
  const std::vector<double> points = xhd_test::uniform_points(rng, 40, -1.5, 3.0);
  int mismatches = 0, cases = 0;
  for (size_t i = 0; i < points.size() / 3; ++i) {
    const xhd::Dvec3 p{points[3 * i], points[3 * i + 1], points[3 * i + 2]};
    const xhd::BruteNearest serial = xhd::nearest_triangle_brute(vertices, m.triangles.data(), count, p);
    for (const uint64_t block : {uint64_t(1), uint64_t(7), uint64_t(100), uint64_t(4096)})
      for (const int threads : {1, 2, 5}) {
        ++cases;
        if (!same(xhd::nearest_triangle_brute_parallel(vertices, m.triangles.data(), count, p, threads, block), serial))
          ++mismatches;
      }
  }
  CHECK_EQ(mismatches, 0);
  CHECK_EQ(cases, 40 * 12);
}

TEST(brute_nearest_parallel_keeps_the_first_of_equally_near_triangles_across_blocks) {
  // 300 triangles, all one triangle but for those at 37 and 250, moved 5 away: every other one ties. A point above
  // them: the answer is triangle 0, whichever block finishes first. Then the tie only between 37 and 250, each in
  // its own block (the others moved away instead): 37.
  const std::vector<double> xyz = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 5, 1, 0, 5, 0, 1, 5};
  const xhd::PointTruth vertices{nullptr, xyz.data(), 6};
  std::vector<uint32_t> triangles;
  for (uint32_t t = 0; t < 300; ++t) {
    const bool far = t == 37 || t == 250;
    triangles.insert(triangles.end(), {far ? 3u : 0u, far ? 4u : 1u, far ? 5u : 2u});
  }
  const xhd::Dvec3 p{0.2, 0.2, 1.0};
  for (const int threads : {2, 4})
    for (const uint64_t block : {uint64_t(1), uint64_t(16), uint64_t(64)})
      CHECK_EQ(xhd::nearest_triangle_brute_parallel(vertices, triangles.data(), 300, p, threads, block).triangle, 0u);
  for (uint32_t t = 0; t < 300; ++t) {
    const bool near = t == 37 || t == 250;
    for (int k = 0; k < 3; ++k) triangles[3 * t + k] = near ? static_cast<uint32_t>(k) : static_cast<uint32_t>(3 + k);
  }
  const xhd::Dvec3 low{0.2, 0.2, -1.0};
  for (const int threads : {2, 4})
    for (const uint64_t block : {uint64_t(1), uint64_t(16), uint64_t(64)})
      CHECK_EQ(xhd::nearest_triangle_brute_parallel(vertices, triangles.data(), 300, low, threads, block).triangle, 37u);
}
