// Mesh-mesh minimum and maximum distance through the C ABI (xhd_distance_*): the hierarchy method against
// the every-pair brute force, for several poses of B, float32 and double meshes. Kept apart from the other
// tests: it is the part of the ABI most likely to change shape.
#include <cmath>
#include <vector>

#include "check.h"
#include "distance_context.h"
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
  return xhd_test::checked_context(a, b, XHD_DISTANCE_MIN | XHD_DISTANCE_MAX, method, 2);
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

namespace {

xhd_distance_context* create_contacts(const xhd_mesh& a, const xhd_mesh& b, int method, int threads) {
  return xhd_test::checked_context(a, b, XHD_DISTANCE_MIN | XHD_DISTANCE_CONTACTS, method, threads);
}

bool same_contacts(const xhd_distance_result& x, const xhd_distance_result& y) {
  bool same = x.contact_pairs == y.contact_pairs;
  for (int k = 0; k < 3; ++k)
    same = same &&
           (x.contact_min[k] == y.contact_min[k] || (std::isnan(x.contact_min[k]) && std::isnan(y.contact_min[k]))) &&
           (x.contact_max[k] == y.contact_max[k] || (std::isnan(x.contact_max[k]) && std::isnan(y.contact_max[k])));
  return same;
}

}  // namespace

TEST(mesh_distance_contacts_one_crossing) {
  // A flat triangle in z = 0 and a standing one through it: one pair, bounded by the overlap of their boxes,
  // [0.5, 1] x [0.2, 0.5] x [0, 0]. Moved 3 up: none, and NaN bounds.
  const std::vector<double> a{0, 0, 0, 2, 0, 0, 0, 2, 0}, b{0.5, 0.5, -1, 0.5, 0.5, 1, 1.0, 0.2, 1};
  const std::vector<uint32_t> t{0, 1, 2};
  const xhd_mesh ma{nullptr, 3, t.data(), 1, a.data()}, mb{nullptr, 3, t.data(), 1, b.data()};
  for (int method : {XHD_DISTANCE_BVH, XHD_DISTANCE_BRUTE}) {
    xhd_distance_context* c = create_contacts(ma, mb, method, 1);
    if (c == nullptr) return;
    xhd_distance_result r{};
    CHECK_EQ(xhd_distance_query(c, nullptr, &r, nullptr), int32_t(XHD_OK));
    CHECK_EQ(r.min.distance, 0.0);
    CHECK_EQ(r.contact_pairs, uint64_t(1));
    const double lo[3] = {0.5, 0.2, 0.0}, hi[3] = {1.0, 0.5, 0.0};
    for (int k = 0; k < 3; ++k) CHECK_EQ(r.contact_min[k], lo[k]), CHECK_EQ(r.contact_max[k], hi[k]);
    const double up[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3};
    CHECK_EQ(xhd_distance_query(c, up, &r, nullptr), int32_t(XHD_OK));
    CHECK(r.min.distance > 0.0);
    CHECK_EQ(r.contact_pairs, uint64_t(0));
    for (int k = 0; k < 3; ++k) CHECK(std::isnan(r.contact_min[k]) && std::isnan(r.contact_max[k]));
    xhd_distance_context_destroy(c);
  }
}

TEST(mesh_distance_contacts_match_brute) {
  // Crossing spheres (a ring of pairs), a sphere against itself (every pair of triangles sharing a point,
  // neighbours included), and poses that turn and move B through them; float and double inputs.
  const xhd_test::Mesh a = xhd_test::sphere(14, 18, 1.0, 0.0), b = xhd_test::sphere(12, 15, 0.7, 0.6);
  const std::vector<float> a32(a.xyz.begin(), a.xyz.end()), b32(b.xyz.begin(), b.xyz.end());
  const double c = std::cos(0.4), s = std::sin(0.4);
  const std::vector<std::vector<double>> poses{{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0},
                                               {c, -s, 0, 0.1, s, c, 0, -0.2, 0, 0, 1, 0.3},
                                               {1, 0, 0, 4, 0, 1, 0, 0, 0, 0, 1, 0}};
  const xhd_mesh a64{nullptr, a.xyz.size() / 3, a.triangles.data(), a.triangles.size() / 3, a.xyz.data()};
  const xhd_mesh af{a32.data(), a32.size() / 3, a.triangles.data(), a.triangles.size() / 3, nullptr};
  const xhd_mesh bf{b32.data(), b32.size() / 3, b.triangles.data(), b.triangles.size() / 3, nullptr};
  const xhd_mesh b64{nullptr, b.xyz.size() / 3, b.triangles.data(), b.triangles.size() / 3, b.xyz.data()};
  const std::vector<std::pair<xhd_mesh, xhd_mesh>> cases{{af, bf}, {a64, b64}, {af, af}, {a64, a64}};
  uint64_t touching_cases = 0;
  for (const auto& [ma, mb] : cases) {
    xhd_distance_context* brute = create_contacts(ma, mb, XHD_DISTANCE_BRUTE, 2);
    xhd_distance_context* one = create_contacts(ma, mb, XHD_DISTANCE_BVH, 1);
    xhd_distance_context* three = create_contacts(ma, mb, XHD_DISTANCE_BVH, 3);
    if (brute == nullptr || one == nullptr || three == nullptr) return;
    for (const std::vector<double>& pose : poses) {
      xhd_distance_result r[3]{};
      xhd_distance_context* each[3] = {brute, one, three};
      for (int j = 0; j < 3; ++j) CHECK_EQ(xhd_distance_query(each[j], pose.data(), &r[j], nullptr), int32_t(XHD_OK));
      CHECK(same_contacts(r[0], r[1]));
      CHECK(same_contacts(r[0], r[2]));
      CHECK_EQ(r[1].min.distance, r[0].min.distance);
      CHECK((r[0].contact_pairs > 0) == (r[0].min.distance == 0.0));
      touching_cases += r[0].contact_pairs > 0;
    }
    xhd_distance_context_destroy(brute);
    xhd_distance_context_destroy(one);
    xhd_distance_context_destroy(three);
  }
  CHECK(touching_cases >= 6);  // the crossing and coincident poses did touch
}

TEST(mesh_distance_contacts_need_the_minimum) {
  const xhd_test::Mesh a = xhd_test::sphere(4, 5, 1.0, 0.0);
  const xhd_mesh m{nullptr, a.xyz.size() / 3, a.triangles.data(), a.triangles.size() / 3, a.xyz.data()};
  xhd_distance_options options{};
  options.which = XHD_DISTANCE_MAX | XHD_DISTANCE_CONTACTS;
  xhd_distance_context* context = nullptr;
  CHECK_EQ(xhd_distance_context_create(&m, &m, &options, &context, nullptr, nullptr),
           int32_t(XHD_ERROR_INVALID_ARGUMENT));
  CHECK(context == nullptr);
  options.which = 32 | XHD_DISTANCE_MIN;  // a bit no flag has (XHD_DISTANCE_PENETRATION is 16)
  CHECK_EQ(xhd_distance_context_create(&m, &m, &options, &context, nullptr, nullptr),
           int32_t(XHD_ERROR_INVALID_ARGUMENT));
  CHECK(context == nullptr);
}

// xhd_distance_query_many over poses of which one is refused, by the checks (a NaN) or by the engine (a pose that
// moves B beyond the float range): the call fails, and the poses before the refused one are answered, each as a
// single query answers it, and counted in done; nothing after it is.
TEST(mesh_distance_query_many_answers_the_poses_before_a_refused_one) {
  const xhd_test::Mesh a = xhd_test::sphere(8, 10, 1.0, 0.0), b = xhd_test::sphere(6, 9, 0.7, 2.5);
  const xhd_mesh ma{nullptr, a.xyz.size() / 3, a.triangles.data(), a.triangles.size() / 3, a.xyz.data()};
  const xhd_mesh mb{nullptr, b.xyz.size() / 3, b.triangles.data(), b.triangles.size() / 3, b.xyz.data()};
  const double c = std::cos(0.3), s = std::sin(0.3);
  const std::vector<double> ok0{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, ok1{c, -s, 0, 0.2, s, c, 0, -0.1, 0, 0, 1, 0};
  const std::vector<double> nan_pose{1, 0, 0, NAN, 0, 1, 0, 0, 0, 0, 1, 0};
  const std::vector<double> far{1e39, 0, 0, 0, 0, 1e39, 0, 0, 0, 0, 1e39, 0};
  for (const std::vector<double>* refused : {&nan_pose, &far}) {
    std::vector<double> poses;
    for (const std::vector<double>* pose : {&ok0, &ok1, refused, &ok0}) poses.insert(poses.end(), pose->begin(), pose->end());
    xhd_distance_context* many = create(ma, mb, XHD_DISTANCE_BVH);
    xhd_distance_context* single = create(ma, mb, XHD_DISTANCE_BVH);
    if (many == nullptr || single == nullptr) return;
    std::vector<xhd_distance_result> results(4);
    xhd_progress progress{};
    CHECK(xhd_distance_query_many(many, poses.data(), 4, results.data(), &progress) != int32_t(XHD_OK));
    CHECK_EQ(progress.done, uint64_t(2));
    CHECK_EQ(progress.total, uint64_t(4));
    CHECK(progress.message[0] != '\0');
    for (int k = 0; k < 2; ++k) {
      xhd_distance_result expected{};
      CHECK_EQ(xhd_distance_query(single, poses.data() + 12 * k, &expected, nullptr), int32_t(XHD_OK));
      CHECK(same_pair(results[k].min, expected.min));
      CHECK(same_pair(results[k].max, expected.max));
      CHECK_EQ(results[k].device, int32_t(-1));
    }
    CHECK(results[0].min.distance > 0.0 && results[1].min.distance > 0.0);
    CHECK_EQ(results[3].min.distance, 0.0);  // not answered (apart, an answer is above 0)
    xhd_distance_context_destroy(many);
    xhd_distance_context_destroy(single);
  }
}
