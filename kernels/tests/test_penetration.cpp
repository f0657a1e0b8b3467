// The penetration facts (XHD_DISTANCE_PENETRATION) through the C ABI: depths known in closed form for convex
// solids (boxes, a box inside a box, crossing slabs), bounds that hold for a torus (B moved by a little less than
// the lower bound still overlaps A, by a little more than the upper bound along its direction no longer does), the
// hierarchy method equal to the reference to the bit, and what is said of open meshes and solids apart.
#include <cmath>
#include <vector>

#include "check.h"
#include "random_points.h"
#include "solids.h"
#include "xhd.h"

namespace {

struct Pair {
  xhd_mesh a, b;
};

xhd_mesh view(const xhd_test::Mesh& m) {
  return {nullptr, m.xyz.size() / 3, m.triangles.data(), m.triangles.size() / 3, m.xyz.data()};
}

xhd_distance_context* create_probe(const xhd_mesh& a, const xhd_mesh& b, int method, int threads) {
  xhd_distance_options options{};
  options.which = XHD_DISTANCE_MIN | XHD_DISTANCE_PENETRATION;
  options.method = method;
  options.threads = threads;
  xhd_distance_context* context = nullptr;
  if (!CHECK_EQ(xhd_distance_context_create(&a, &b, &options, &context, nullptr, nullptr), int32_t(XHD_OK)))
    std::fprintf(stderr, "  %s\n", xhd_last_error());
  return context;
}

xhd_distance_result probe(const xhd_mesh& a, const xhd_mesh& b, const double* pose, int method = XHD_DISTANCE_BVH,
                          int threads = 2) {
  xhd_distance_result r{};
  xhd_distance_context* c = create_probe(a, b, method, threads);
  if (c == nullptr) return r;
  CHECK_EQ(xhd_distance_query(c, pose, &r, nullptr), int32_t(XHD_OK));
  xhd_distance_context_destroy(c);
  return r;
}

bool same_bits(double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); }

bool same_facts(const xhd_distance_result& x, const xhd_distance_result& y) {
  bool same = x.solids == y.solids && x.solids_flags == y.solids_flags &&
              same_bits(x.penetration_lower, y.penetration_lower) && same_bits(x.penetration_upper, y.penetration_upper);
  for (int k = 0; k < 3; ++k) same = same && same_bits(x.penetration_direction[k], y.penetration_direction[k]);
  return same;
}

// A translation of t along unit u.
std::vector<double> moved(const double u[3], double t) { return {1, 0, 0, u[0] * t, 0, 1, 0, u[1] * t, 0, 0, 1, u[2] * t}; }

// The depth of two convex solids, known in closed form: both bounds within the slack and their rounding of it.
void check_convex_depth(const xhd_distance_result& r, double depth, const double along[3], double scale) {
  CHECK_EQ(r.solids, int32_t(XHD_SOLIDS_OVERLAP));
  CHECK_EQ(r.solids_flags, int32_t(XHD_SOLIDS_A_CLOSED | XHD_SOLIDS_B_CLOSED | XHD_SOLIDS_CONVEX));
  CHECK(r.penetration_lower <= depth && depth <= r.penetration_upper);
  CHECK(r.penetration_upper - r.penetration_lower <= 1e-11 * scale);
  if (along != nullptr)
    for (int k = 0; k < 3; ++k) CHECK_NEAR(r.penetration_direction[k], along[k], 1e-9);
}

}  // namespace

TEST(penetration_of_boxes_in_closed_form) {
  // A = [0, 2]^3; B = [1, 3] x [0.5, 1.5] x [0.25, 1.75]: out along +x by 1, the shortest way (y: 1.5, z: 1.75).
  const double a_lo[3] = {0, 0, 0}, a_hi[3] = {2, 2, 2}, b_lo[3] = {1, 0.5, 0.25}, b_hi[3] = {3, 1.5, 1.75};
  const xhd_test::Mesh a = xhd_test::box(a_lo, a_hi), b = xhd_test::box(b_lo, b_hi);
  const double plus_x[3] = {1, 0, 0};
  for (int method : {XHD_DISTANCE_BVH, XHD_DISTANCE_BRUTE})
    check_convex_depth(probe(view(a), view(b), nullptr, method), 1.0, plus_x, 3.0);
  // Crossing slabs: their overlap is a 2 x 2 x 18 post, yet B must move 11 (along x or y) to clear A. The deepest
  // point's two distances add up to 2 only: the convex bound is what finds 11.
  const double s_lo[3] = {-10, -1, -10}, s_hi[3] = {10, 1, 10}, t_lo[3] = {-1, -10, -9}, t_hi[3] = {1, 10, 9};
  check_convex_depth(probe(view(xhd_test::box(s_lo, s_hi)), view(xhd_test::box(t_lo, t_hi)), nullptr), 11.0, nullptr,
                     10.0);
  // A box inside a box: the surfaces are 1.5 apart, and B must move 2.5 to leave.
  const double in_lo[3] = {-0.5, -0.5, -0.5}, in_hi[3] = {0.5, 0.5, 0.5}, out_lo[3] = {-2, -2, -2.25},
               out_hi[3] = {2, 2, 2.25};
  const xhd_distance_result inside = probe(view(xhd_test::box(out_lo, out_hi)), view(xhd_test::box(in_lo, in_hi)), nullptr);
  CHECK_NEAR(inside.min.distance, 1.5, 1e-15);
  check_convex_depth(inside, 2.5, nullptr, 2.25);
}

TEST(penetration_of_balls_bvh_equals_brute) {
  // Two polyhedral balls 1.5 apart (radius 1): convex, a depth near 0.5; the same bits from both methods and any
  // thread count, for poses that turn B (a reflection among them: B's winding turns inside out).
  const double o[3] = {0, 0, 0}, p[3] = {1.5, 0.1, -0.05};
  const xhd_test::Mesh a = xhd_test::ball(3, 1.0, o), b = xhd_test::ball(2, 1.0, p);
  const double c = std::cos(0.3), s = std::sin(0.3);
  const std::vector<std::vector<double>> poses{{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0},
                                               {c, -s, 0, 0.2, s, c, 0, -0.1, 0, 0, 1, 0.05},
                                               {1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1, 0}};
  for (const std::vector<double>& pose : poses) {
    const xhd_distance_result brute = probe(view(a), view(b), pose.data(), XHD_DISTANCE_BRUTE);
    const xhd_distance_result one = probe(view(a), view(b), pose.data(), XHD_DISTANCE_BVH, 1);
    const xhd_distance_result three = probe(view(a), view(b), pose.data(), XHD_DISTANCE_BVH, 3);
    CHECK(same_facts(brute, one));
    CHECK(same_facts(brute, three));
    CHECK_EQ(brute.solids, int32_t(XHD_SOLIDS_OVERLAP));
    CHECK((brute.solids_flags & XHD_SOLIDS_CONVEX) != 0);
    CHECK(brute.penetration_lower > 0.3 && brute.penetration_upper < 0.7);
    CHECK(brute.penetration_upper - brute.penetration_lower <= 1e-11 * 2.6);
  }
}

TEST(penetration_bounds_hold_for_a_torus) {
  // A torus (not convex) and a ball through its tube. Whatever the bounds, they must hold: B moved by 0.98 of the
  // lower bound, in any of 12 directions, still overlaps A; moved by the upper bound and a little along the
  // direction given, it is apart.
  const double o[3] = {0, 0, 0}, p[3] = {2.0, 0.3, 0.2};
  const xhd_test::Mesh a = xhd_test::torus(40, 16, 2.0, 0.6, o), b = xhd_test::ball(2, 0.5, p);
  const xhd_distance_result r = probe(view(a), view(b), nullptr);
  CHECK(same_facts(r, probe(view(a), view(b), nullptr, XHD_DISTANCE_BRUTE)));
  CHECK_EQ(r.solids, int32_t(XHD_SOLIDS_OVERLAP));
  CHECK_EQ(r.solids_flags, int32_t(XHD_SOLIDS_A_CLOSED | XHD_SOLIDS_B_CLOSED));
  CHECK(r.penetration_lower > 0.2 && r.penetration_lower <= r.penetration_upper);
  xhd_test::Random rng(7);
  for (int i = 0; i < 12; ++i) {
    double u[3], length = 0;
    for (double& x : u) x = rng.uniform(-1, 1), length += x * x;
    for (double& x : u) x /= std::sqrt(length);
    const std::vector<double> pose = moved(u, 0.98 * r.penetration_lower);
    const xhd_distance_result near = probe(view(a), view(b), pose.data());
    CHECK(near.solids == XHD_SOLIDS_OVERLAP || near.solids == XHD_SOLIDS_UNDECIDED);
    CHECK(near.solids != XHD_SOLIDS_APART);
  }
  const std::vector<double> out = moved(r.penetration_direction, r.penetration_upper + 1e-6);
  const xhd_distance_result far = probe(view(a), view(b), out.data());
  CHECK_EQ(far.solids, int32_t(XHD_SOLIDS_APART));
  CHECK(far.min.distance > 0.0);
}

TEST(penetration_of_solids_apart_and_open_meshes) {
  const double a_lo[3] = {0, 0, 0}, a_hi[3] = {1, 1, 1}, b_lo[3] = {1, 0.2, 0.2}, b_hi[3] = {2, 0.8, 0.8};
  const xhd_test::Mesh a = xhd_test::box(a_lo, a_hi), b = xhd_test::box(b_lo, b_hi);
  // Face to face: depth 0, said as apart (touching), upper 0.
  const xhd_distance_result touching = probe(view(a), view(b), nullptr);
  CHECK_EQ(touching.min.distance, 0.0);
  CHECK_EQ(touching.solids, int32_t(XHD_SOLIDS_APART));
  CHECK_EQ(touching.penetration_lower, 0.0);
  CHECK_EQ(touching.penetration_upper, 0.0);
  // A torus round a ball it does not touch (the ball in the hole): the hulls overlap, the solids do not.
  const double o[3] = {0, 0, 0};
  const xhd_test::Mesh ring = xhd_test::torus(40, 16, 2.0, 0.6, o), ball = xhd_test::ball(2, 1.0, o);
  const xhd_distance_result hole = probe(view(ring), view(ball), nullptr);
  CHECK(hole.min.distance > 0.3);
  CHECK_EQ(hole.solids, int32_t(XHD_SOLIDS_APART));
  CHECK(same_facts(hole, probe(view(ring), view(ball), nullptr, XHD_DISTANCE_BRUTE)));
  // One triangle short of a box: open; nothing said, NaN bounds, and only B's flag.
  xhd_test::Mesh open = a;
  open.triangles.resize(open.triangles.size() - 3);
  const xhd_distance_result r = probe(view(open), view(b), nullptr);
  CHECK_EQ(r.solids, int32_t(XHD_SOLIDS_OPEN));
  CHECK_EQ(r.solids_flags, int32_t(XHD_SOLIDS_B_CLOSED));
  CHECK(std::isnan(r.penetration_lower) && std::isnan(r.penetration_upper));
  // Not asked for: not written.
  xhd_distance_options options{};
  options.which = XHD_DISTANCE_MIN;
  options.threads = 1;
  xhd_distance_context* c = nullptr;
  const xhd_mesh ma = view(a), mb = view(b);
  CHECK_EQ(xhd_distance_context_create(&ma, &mb, &options, &c, nullptr, nullptr), int32_t(XHD_OK));
  xhd_distance_result plain{};
  if (c != nullptr) CHECK_EQ(xhd_distance_query(c, nullptr, &plain, nullptr), int32_t(XHD_OK));
  CHECK_EQ(plain.solids, int32_t(XHD_SOLIDS_NOT_ASKED));
  xhd_distance_context_destroy(c);
  // Without the minimum: refused.
  options.which = XHD_DISTANCE_MAX | XHD_DISTANCE_PENETRATION;
  CHECK_EQ(xhd_distance_context_create(&ma, &mb, &options, &c, nullptr, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
}

TEST(penetration_of_float_meshes_at_survey_coordinates) {
  // The same boxes far from the origin, as float32 (their own truth): depth 1 still, to the slack of 1e-12 of the
  // coordinates' magnitude.
  const double a_lo[3] = {512000, 4200000, 100}, a_hi[3] = {512002, 4200002, 102};
  const double b_lo[3] = {512001, 4200000.5, 100.25}, b_hi[3] = {512003, 4200001.5, 101.75};
  const xhd_test::Mesh a = xhd_test::box(a_lo, a_hi), b = xhd_test::box(b_lo, b_hi);
  const std::vector<float> a32(a.xyz.begin(), a.xyz.end()), b32(b.xyz.begin(), b.xyz.end());
  const xhd_mesh af{a32.data(), 8, a.triangles.data(), 12, nullptr}, bf{b32.data(), 8, b.triangles.data(), 12, nullptr};
  const double plus_x[3] = {1, 0, 0};
  const xhd_distance_result r = probe(af, bf, nullptr);
  CHECK(same_facts(r, probe(af, bf, nullptr, XHD_DISTANCE_BRUTE)));
  check_convex_depth(r, 1.0, plus_x, 4200003.0);
}
