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

// The fast methods give the brute force's distances, nearest triangles (ties to the smallest index) and closest
// points bit for bit, for the queries and mesh as doubles and as floats.
void check_queries(const Mesh& m, const std::vector<double>& queries) {
  const std::vector<float> queries32 = xhd_test::to_float(queries), xyz32 = xhd_test::to_float(m.xyz);
  const uint64_t n = queries.size() / 3;
  for (int as_float = 0; as_float < 2; ++as_float) {
    const xhd_points points =
        as_float ? xhd_points{queries32.data(), n, nullptr} : xhd_points{nullptr, n, queries.data()};
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

void check_mesh(const Mesh& m, xhd_test::Random& rng, double lo, double size) {
  check_queries(m, xhd_test::uniform_points(rng, 700, lo, size));
}

// A flat patch in the plane x = 0.4603 (as fandisk's flattest face), every triangle listed twice (exact ties:
// the smaller index must win), with a fan of slivers and a needle along its rim.
Mesh flat_patch_with_twins() {
  Mesh m{"flat patch with twin triangles", {}, {}};
  constexpr int kSide = 9;
  for (int i = 0; i <= kSide; ++i)
    for (int j = 0; j <= kSide; ++j)
      m.xyz.insert(m.xyz.end(), {0.4603, -0.25 + 0.5 * i / kSide, -0.5 + j / double(kSide)});
  for (uint32_t i = 0; i < kSide; ++i)
    for (uint32_t j = 0; j < kSide; ++j) {
      const uint32_t a = i * (kSide + 1) + j, b = a + 1, c = a + kSide + 1, d = c + 1;
      for (int twice = 0; twice < 2; ++twice) m.triangles.insert(m.triangles.end(), {a, b, c, b, d, c});
    }
  const uint32_t rim = static_cast<uint32_t>(m.xyz.size() / 3);
  m.xyz.insert(m.xyz.end(), {0.4603, 0.25, -0.5, 0.4, 0.25 + 1e-9, 0.5, 0.4603 - 1e-12, 0.25, 0.5});
  m.triangles.insert(m.triangles.end(), {rim, rim + 1, rim + 2, rim, rim + 2, rim + 2});
  return m;
}

// Queries 1e6 to 1e12 away from a mesh near the origin, in random directions and straight along the axes (where
// a flat face's triangles all tie within rounding), and a few on its vertices and edges.
std::vector<double> far_queries(xhd_test::Random& rng, const Mesh& m) {
  std::vector<double> q;
  for (double far : {1e6, 1e8, 1e10, 6.5e10, 1e12}) {
    for (int k = 0; k < 40; ++k) {
      double v[3] = {rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)};
      const double l = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      q.insert(q.end(), {far * v[0] / l, far * v[1] / l, far * v[2] / l});
    }
    for (int axis = 0; axis < 3; ++axis)
      for (double sign : {1.0, -1.0})
        for (double off : {0.0, 0.01, 0.2}) {
          double v[3] = {off, -off, off};
          v[axis] = sign * far;
          q.insert(q.end(), {v[0], v[1], v[2]});
        }
  }
  for (size_t k = 0; k + 2 < m.xyz.size() && k < 60; k += 3) {
    q.insert(q.end(), {m.xyz[k], m.xyz[k + 1], m.xyz[k + 2]});
    q.insert(q.end(), {0.5 * (m.xyz[k] + m.xyz[k + 3]), 0.5 * (m.xyz[k + 1] + m.xyz[k + 4]),
                       0.5 * (m.xyz[k + 2] + m.xyz[k + 5])});
  }
  return q;
}

}  // namespace

TEST(surface_distance_matches_brute) {
  xhd_test::Random rng(51);
  check_mesh(sphere(12, 16, 1.0, 0.0), rng, -1.5, 3);
  check_mesh(degenerate_mesh(rng), rng, -0.5, 2);
  check_mesh(point_cloud(rng), rng, -1.2, 2.4);
  check_mesh(sphere(8, 10, 5.0, 4.2e6), rng, 4.2e6 - 7, 14);
}

// Far queries are where the evaluation's rounding is largest and the filters' reach widest (surface_bounds.h):
// the fast searches must still match the brute force exactly, ties included; and with one vertex of the mesh far
// away (issue 29), for queries near the bulk and on the far triangles.
TEST(surface_distance_matches_brute_far_away) {
  xhd_test::Random rng(52);
  const Mesh patch = flat_patch_with_twins();
  check_queries(patch, far_queries(rng, patch));
  const Mesh ball = sphere(12, 16, 0.5, 0.0);
  check_queries(ball, far_queries(rng, ball));
  Mesh wild = sphere(12, 16, 0.5, 0.0);
  wild.name = "sphere with a vertex at 6.5e10";
  wild.xyz[3 * 40] = 6.5e10;
  std::vector<double> queries = far_queries(rng, wild);
  for (int k = 0; k < 200; ++k) {  // along the wild triangles, and near the bulk
    const double t = std::pow(10.0, rng.uniform(0, 10.8));
    queries.insert(queries.end(), {t, rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5)});
    queries.insert(queries.end(), {rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6)});
  }
  check_queries(wild, queries);
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
