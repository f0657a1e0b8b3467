// xhd_count_degenerate_triangles (cpu/degenerate_triangles.cpp): repeated indices and exactly collinear corners
// counted as src/io/build.ts counts them, for float32 and float64 vertices, on 1 to 4 threads: against the
// counts planted by construction, and against a plain loop over every triangle for random meshes where near
// misses (collinear in float but not in double, nearly collinear in double) decide the count.
#include <cstdint>
#include <vector>

#include "check.h"
#include "random_points.h"
#include "xhd.h"

namespace {

// The TypeScript loop, written out plainly: widen, subtract, multiply, subtract, compare to zero.
template <class T>
uint64_t plain_count(const std::vector<T>& xyz, const std::vector<uint32_t>& triangles) {
  const uint64_t vertices = xyz.size() / 3;
  uint64_t count = 0;
  for (size_t t = 0; t < triangles.size(); t += 3) {
    const uint32_t a = triangles[t], b = triangles[t + 1], c = triangles[t + 2];
    if (a == b || b == c || a == c) {
      ++count;
      continue;
    }
    if (a >= vertices || b >= vertices || c >= vertices) continue;  // NaN in TypeScript
    double p[3][3];
    for (int k = 0; k < 3; ++k) {
      p[0][k] = double(xyz[3 * a + k]);
      p[1][k] = double(xyz[3 * b + k]);
      p[2][k] = double(xyz[3 * c + k]);
    }
    double u[3], v[3];
    for (int k = 0; k < 3; ++k) u[k] = p[1][k] - p[0][k], v[k] = p[2][k] - p[0][k];
    const double x = u[1] * v[2] - u[2] * v[1];
    const double y = u[2] * v[0] - u[0] * v[2];
    const double z = u[0] * v[1] - u[1] * v[0];
    if (x == 0 && y == 0 && z == 0) ++count;
  }
  return count;
}

template <class T>
uint64_t native_count(const std::vector<T>& xyz, const std::vector<uint32_t>& triangles, int threads) {
  xhd_mesh mesh{};
  if constexpr (sizeof(T) == sizeof(float)) mesh.xyz = xyz.data();
  else mesh.xyz64 = xyz.data();
  mesh.vertex_count = xyz.size() / 3;
  mesh.triangles = triangles.data();
  mesh.triangle_count = triangles.size() / 3;
  uint64_t degenerate = ~uint64_t(0);
  CHECK_EQ(xhd_count_degenerate_triangles(&mesh, threads, &degenerate), int32_t(XHD_OK));
  return degenerate;
}

// A mesh over integer grid points (exact in float and double) with planted degenerate triangles: every 7th
// repeats an index, every 5th (not 7th) has its third corner on the line through the other two; the rest are
// corners of a small non-degenerate triangle shifted about. Returns how many were planted.
template <class T>
uint64_t planted_mesh(uint64_t triangle_count, std::vector<T>& xyz, std::vector<uint32_t>& triangles) {
  xyz.clear();
  triangles.clear();
  uint64_t planted = 0;
  for (uint64_t t = 0; t < triangle_count; ++t) {
    const uint32_t first = uint32_t(xyz.size() / 3);
    const T ox = T(t % 1000), oy = T((t / 1000) % 1000), oz = T(t % 13);
    const T dx = T(1 + t % 3), dy = T(2 + t % 5), dz = T(t % 4);
    xyz.insert(xyz.end(), {ox, oy, oz, T(ox + dx), T(oy + dy), T(oz + dz)});
    if (t % 5 == 0 && t % 7 != 0) {
      xyz.insert(xyz.end(), {T(ox + 3 * dx), T(oy + 3 * dy), T(oz + 3 * dz)});  // on the line
      ++planted;
    } else {
      xyz.insert(xyz.end(), {T(ox + dy), T(oy - dx), T(oz + 1)});
    }
    if (t % 7 == 0) {
      triangles.insert(triangles.end(), {first, first + 1, t % 2 ? first : first + 1});
      ++planted;
    } else {
      triangles.insert(triangles.end(), {first, first + 1, first + 2});
    }
  }
  return planted;
}

}  // namespace

TEST(degenerate_triangles_planted) {
  // Beyond one block (kTrianglesPerBlock, 2^17) so that several threads share the mesh.
  const uint64_t triangles = 300001;
  std::vector<float> xyz32;
  std::vector<double> xyz64;
  std::vector<uint32_t> t32, t64;
  const uint64_t planted32 = planted_mesh(triangles, xyz32, t32);
  const uint64_t planted64 = planted_mesh(triangles, xyz64, t64);
  CHECK_EQ(planted32, planted64);
  CHECK(planted32 > triangles / 5);
  for (int threads : {1, 2, 3, 4}) {
    CHECK_EQ(native_count(xyz32, t32, threads), planted32);
    CHECK_EQ(native_count(xyz64, t64, threads), planted64);
  }
  CHECK_EQ(plain_count(xyz32, t32), planted32);
}

TEST(degenerate_triangles_near_misses) {
  // Collinear in float arithmetic, not in double: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11 in
  // float, so the z component of the cross product is 0 there and 2^-24 in double. Not degenerate.
  const float p = 1.0f + 0x1p-12f, q = 1.0f + 0x1p-11f;
  CHECK(p * p == q);  // float arithmetic alone would call it collinear
  const std::vector<float> f = {0, 0, 0, p, 1, 0, q, p, 0};
  CHECK_EQ(native_count(f, {0, 1, 2}, 1), uint64_t(0));
  CHECK_EQ(plain_count(f, {0, 1, 2}), uint64_t(0));
  // The same triangle exactly collinear, and -0 equal to 0.
  const std::vector<float> g = {0, 0, -0.0f, 1, 1, 0, 2, 2, 0};
  CHECK_EQ(native_count(g, {0, 1, 2}, 1), uint64_t(1));
  // Doubles whose cross product rounds to exactly zero in one order of operations only: whatever the count,
  // it is the plain loop's.
  xhd_test::Random rng(7);
  std::vector<double> xyz;
  std::vector<uint32_t> triangles;
  for (int t = 0; t < 200000; ++t) {
    const double ax = rng.uniform(-1, 1), ay = rng.uniform(-1, 1), az = rng.uniform(-1, 1);
    const double ux = rng.uniform(-1, 1), uy = rng.uniform(-1, 1), uz = rng.uniform(-1, 1);
    const double s = double(1 + rng.below(3)) / 3;  // 1/3 and 2/3 round: collinear only sometimes
    const uint32_t first = uint32_t(xyz.size() / 3);
    xyz.insert(xyz.end(), {ax, ay, az, ax + ux, ay + uy, az + uz, ax + s * ux, ay + s * uy, az + s * uz});
    triangles.insert(triangles.end(), {first, first + 1, first + 2});
  }
  const uint64_t expected = plain_count(xyz, triangles);
  CHECK(expected > 0 && expected < 200000);  // both outcomes occur, so the comparison decides something
  for (int threads : {1, 2, 3}) CHECK_EQ(native_count(xyz, triangles, threads), expected);
  const std::vector<float> xyz32(xyz.begin(), xyz.end());
  const uint64_t expected32 = plain_count(xyz32, triangles);
  CHECK(expected32 > 0 && expected32 < 200000);
  for (int threads : {1, 2, 3}) CHECK_EQ(native_count(xyz32, triangles, threads), expected32);
}

TEST(degenerate_triangles_edges) {
  // An index past the vertices counts only where it repeats (TypeScript's NaN coordinates are not zero).
  const std::vector<double> xyz = {0, 0, 0, 1, 0, 0, 2, 0, 0};
  CHECK_EQ(native_count(xyz, {0, 1, 3}, 1), uint64_t(0));
  CHECK_EQ(native_count(xyz, {3, 3, 1}, 1), uint64_t(1));
  CHECK_EQ(native_count(xyz, {0, 1, 2}, 2), uint64_t(1));
  // No triangles: none degenerate.
  CHECK_EQ(native_count(xyz, {}, 2), uint64_t(0));
  // Refused: both or neither coordinate array, null arguments.
  uint64_t degenerate = 0;
  const std::vector<float> xyz32(xyz.begin(), xyz.end());
  const uint32_t triangles[3] = {0, 1, 2};
  xhd_mesh both{xyz32.data(), 3, triangles, 1, xyz.data()};
  CHECK_EQ(xhd_count_degenerate_triangles(&both, 1, &degenerate), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  xhd_mesh neither{nullptr, 3, triangles, 1, nullptr};
  CHECK_EQ(xhd_count_degenerate_triangles(&neither, 1, &degenerate), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  xhd_mesh no_indices{nullptr, 3, nullptr, 1, xyz.data()};
  CHECK_EQ(xhd_count_degenerate_triangles(&no_indices, 1, &degenerate), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  xhd_mesh good{nullptr, 3, triangles, 1, xyz.data()};
  CHECK_EQ(xhd_count_degenerate_triangles(nullptr, 1, &degenerate), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  CHECK_EQ(xhd_count_degenerate_triangles(&good, 1, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  CHECK_EQ(xhd_count_degenerate_triangles(&good, -1, &degenerate), int32_t(XHD_ERROR_INVALID_ARGUMENT));
}
