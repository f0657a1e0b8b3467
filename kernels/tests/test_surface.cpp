// Point-to-surface distances (cpu/surface_bvh.cpp, surface_grid.cpp) through the C ABI against the
// double-precision brute force, on meshes with the shapes that stress them: a closed surface, degenerate
// triangles, a point cloud passed as triangles (i, i, i), survey coordinates; and the area and sampling
// entry points (geometry/surface_sampling.cpp).
#include <cmath>
#include <string>
#include <vector>

#include "../geometry/point_triangle.h"
#include "check.h"
#include "meshes.h"
#include "random_points.h"
#include "xhd.h"

namespace {

using xhd_test::Mesh;
using xhd_test::sphere;

Mesh degenerate_mesh(xhd_test::Random& rng) {
  Mesh m{"degenerate triangles", xhd_test::uniform_points(rng, 60, 0, 1), {}};
  for (uint32_t i = 0; i + 2 < 60; ++i) {
    const uint32_t shape = i % 3;
    if (shape == 0) m.triangles.insert(m.triangles.end(), {i, i + 1, i + 2});
    else if (shape == 1) m.triangles.insert(m.triangles.end(), {i, i, i + 1});  // a segment
    else m.triangles.insert(m.triangles.end(), {i, i, i});                      // a point
  }
  return m;
}

Mesh point_cloud(xhd_test::Random& rng) {
  Mesh m{"point cloud as triangles", xhd_test::uniform_points(rng, 500, -1, 2), {}};
  for (uint32_t i = 0; i < 500; ++i) m.triangles.insert(m.triangles.end(), {i, i, i});
  return m;
}

struct Answers {
  std::vector<double> distance, closest;
  std::vector<uint32_t> triangle;
};

Answers surface(const xhd_points& points, const xhd_mesh& mesh, int method) {
  Answers out{std::vector<double>(points.count), std::vector<double>(3 * points.count),
              std::vector<uint32_t>(points.count)};
  xhd_surface_options options{};
  options.method = method;
  options.threads = 2;
  xhd_surface_result result{};
  const int32_t status = xhd_point_surface_distance(&points, &mesh, &options, out.distance.data(), out.triangle.data(),
                                                    out.closest.data(), &result, nullptr);
  if (!CHECK_EQ(status, int32_t(XHD_OK))) std::fprintf(stderr, "  %s\n", xhd_last_error());
  return out;
}

void check_mesh(const Mesh& m, xhd_test::Random& rng, double lo, double size) {
  const std::vector<double> queries = xhd_test::uniform_points(rng, 700, lo, size);
  const std::vector<float> queries32 = xhd_test::to_float(queries), xyz32 = xhd_test::to_float(m.xyz);
  for (int as_float = 0; as_float < 2; ++as_float) {
    const xhd_points points =
        as_float ? xhd_points{queries32.data(), 700, nullptr} : xhd_points{nullptr, 700, queries.data()};
    const xhd_mesh mesh =
        as_float ? xhd_mesh{xyz32.data(), m.xyz.size() / 3, m.triangles.data(), m.triangles.size() / 3, nullptr}
                 : xhd_mesh{nullptr, m.xyz.size() / 3, m.triangles.data(), m.triangles.size() / 3, m.xyz.data()};
    const Answers brute = surface(points, mesh, XHD_SURFACE_BRUTE);
    for (int method : {XHD_SURFACE_BVH, XHD_SURFACE_GRID}) {
      const Answers fast = surface(points, mesh, method);
      const bool same =
          fast.distance == brute.distance && fast.triangle == brute.triangle && fast.closest == brute.closest;
      if (!CHECK(same))
        std::fprintf(stderr, "  %s, method %d, %s\n", m.name.c_str(), method, as_float ? "float" : "double");
    }
  }
}

}  // namespace

TEST(surface_distance_matches_brute) {
  xhd_test::Random rng(51);
  check_mesh(sphere(12, 16, 1.0, 0.0), rng, -1.5, 3);
  check_mesh(degenerate_mesh(rng), rng, -0.5, 2);
  check_mesh(point_cloud(rng), rng, -1.2, 2.4);
  check_mesh(sphere(8, 10, 5.0, 4.2e6), rng, 4.2e6 - 7, 14);
}

TEST(surface_refuses_bad_meshes) {
  const std::vector<double> xyz{0, 0, 0, 1, 0, 0, 0, 1, 0};
  const std::vector<uint32_t> bad_index{0, 1, 3};
  const xhd_mesh mesh{nullptr, 3, bad_index.data(), 1, xyz.data()};
  const xhd_points points{nullptr, 1, xyz.data()};
  xhd_surface_options options{};
  xhd_surface_result result{};
  double d = 0;
  CHECK_EQ(xhd_point_surface_distance(&points, &mesh, &options, &d, nullptr, nullptr, &result, nullptr),
           int32_t(XHD_ERROR_INVALID_ARGUMENT));
  double area = 0;
  CHECK_EQ(xhd_surface_area(&mesh, &area), int32_t(XHD_ERROR_INVALID_ARGUMENT));
}

TEST(surface_area_and_samples) {
  // The unit square as two triangles, one degenerate triangle beside them: area 1; samples lie on it.
  const std::vector<double> xyz{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  const std::vector<uint32_t> triangles{0, 1, 2, 0, 2, 3, 1, 1, 1};
  const xhd_mesh mesh{nullptr, 4, triangles.data(), 3, xyz.data()};
  double area = 0;
  CHECK_EQ(xhd_surface_area(&mesh, &area), int32_t(XHD_OK));
  CHECK_EQ(area, 1.0);
  std::vector<double> one_thread(3 * 5000), three_threads(3 * 5000);
  uint32_t state1[4] = {1, 2, 3, 4}, state3[4] = {1, 2, 3, 4};
  CHECK_EQ(xhd_sample_surface(&mesh, 5000, state1, 1, nullptr, one_thread.data()), int32_t(XHD_OK));
  CHECK_EQ(xhd_sample_surface(&mesh, 5000, state3, 3, nullptr, three_threads.data()), int32_t(XHD_OK));
  CHECK(one_thread == three_threads);
  CHECK(state1[0] == state3[0] && state1[3] == state3[3] && state1[0] != 1u);
  bool on_square = true;
  for (size_t i = 0; i < one_thread.size(); i += 3)
    on_square = on_square && one_thread[i] >= 0 && one_thread[i] <= 1 && one_thread[i + 1] >= 0 &&
                one_thread[i + 1] <= 1 && one_thread[i + 2] == 0;
  CHECK(on_square);
  // A mesh of only degenerate triangles has no area to sample.
  const std::vector<uint32_t> flat{0, 0, 1};
  const xhd_mesh no_area{nullptr, 4, flat.data(), 1, xyz.data()};
  uint32_t state[4] = {1, 0, 0, 0};
  CHECK_EQ(xhd_sample_surface(&no_area, 10, state, 1, nullptr, one_thread.data()), int32_t(XHD_ERROR_INVALID_ARGUMENT));
}
