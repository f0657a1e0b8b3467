// Mesh-mesh minimum and maximum distance through the C ABI (xhd_distance_*): the hierarchy method against
// the every-pair brute force, for several poses of B, float32 and double meshes. Kept apart from the other
// tests: it is the part of the ABI most likely to change shape.
#include <cmath>
#include <vector>

#include "check.h"
#include "meshes.h"
#include "xhd.h"

namespace {

bool same_pair(const xhd_distance_pair& x, const xhd_distance_pair& y) {
  bool same = x.distance == y.distance && x.triangle_a == y.triangle_a && x.triangle_b == y.triangle_b &&
              x.intersecting == y.intersecting;
  for (int k = 0; k < 3; ++k) same = same && x.point_a[k] == y.point_a[k] && x.point_b[k] == y.point_b[k];
  return same;
}

xhd_distance_context* create(const xhd_mesh& a, const xhd_mesh& b, int method) {
  xhd_distance_options options{};
  options.which = XHD_DISTANCE_MIN | XHD_DISTANCE_MAX;
  options.method = method;
  options.threads = 2;
  xhd_distance_context* context = nullptr;
  if (!CHECK_EQ(xhd_distance_context_create(&a, &b, &options, &context, nullptr, nullptr), int32_t(XHD_OK)))
    std::fprintf(stderr, "  %s\n", xhd_last_error());
  return context;
}

}  // namespace

TEST(mesh_distance_bvh_matches_brute) {
  const xhd_test::Mesh a = xhd_test::sphere(8, 10, 1.0, 0.0), b = xhd_test::sphere(6, 9, 0.7, 0.5);
  const std::vector<float> a32(a.xyz.begin(), a.xyz.end()), b32(b.xyz.begin(), b.xyz.end());
  // Poses of B: as it is (the spheres cross), moved clear of A, turned about z and moved.
  const double c = std::cos(0.3), s = std::sin(0.3);
  const std::vector<std::vector<double>> poses{{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0},
                                               {1, 0, 0, 3, 0, 1, 0, 0.5, 0, 0, 1, 0},
                                               {c, -s, 0, -1.2, s, c, 0, 2, 0, 0, 1, 0.25}};
  for (int as_float = 0; as_float < 2; ++as_float) {
    const xhd_mesh ma =
        as_float ? xhd_mesh{a32.data(), a32.size() / 3, a.triangles.data(), a.triangles.size() / 3, nullptr}
                 : xhd_mesh{nullptr, a.xyz.size() / 3, a.triangles.data(), a.triangles.size() / 3, a.xyz.data()};
    const xhd_mesh mb =
        as_float ? xhd_mesh{b32.data(), b32.size() / 3, b.triangles.data(), b.triangles.size() / 3, nullptr}
                 : xhd_mesh{nullptr, b.xyz.size() / 3, b.triangles.data(), b.triangles.size() / 3, b.xyz.data()};
    xhd_distance_context* bvh = create(ma, mb, XHD_DISTANCE_BVH);
    xhd_distance_context* brute = create(ma, mb, XHD_DISTANCE_BRUTE);
    if (bvh == nullptr || brute == nullptr) return;
    for (const std::vector<double>& pose : poses) {
      xhd_distance_result fast{}, reference{};
      CHECK_EQ(xhd_distance_query(bvh, pose.data(), &fast, nullptr), int32_t(XHD_OK));
      CHECK_EQ(xhd_distance_query(brute, pose.data(), &reference, nullptr), int32_t(XHD_OK));
      CHECK(same_pair(fast.min, reference.min));
      CHECK(same_pair(fast.max, reference.max));
      CHECK(reference.max.distance > reference.min.distance);
    }
    xhd_distance_context_destroy(bvh);
    xhd_distance_context_destroy(brute);
  }
}
