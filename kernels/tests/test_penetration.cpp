// The penetration facts (XHD_DISTANCE_PENETRATION) through the C ABI: depths known in closed form for convex
// solids (boxes, a box inside a box, crossing slabs), bounds that hold for a torus (B moved by a little less than
// the lower bound still overlaps A, by a little more than the upper bound along its direction no longer does), the
// hierarchy method equal to the reference to the bit, and what is said of open meshes and solids apart.
#include <cmath>
#include <vector>

#include "check.h"
#include "distance_context.h"
#include "random_points.h"
#include "solids.h"
#include "../geometry/solid_queries.h"
#include "xhd.h"

namespace {

struct Pair {
  xhd_mesh a, b;
};

xhd_mesh view(const xhd_test::Mesh& m) {
  return {nullptr, m.xyz.size() / 3, m.triangles.data(), m.triangles.size() / 3, m.xyz.data()};
}

xhd_distance_context* create_probe(const xhd_mesh& a, const xhd_mesh& b, int method, int threads) {
  return xhd_test::checked_context(a, b, XHD_DISTANCE_MIN | XHD_DISTANCE_PENETRATION, method, threads);
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
  // Face to face: depth 0, said as apart (touching), the upper bound the slack (they may overlap by its rounding).
  const xhd_distance_result touching = probe(view(a), view(b), nullptr);
  CHECK_EQ(touching.min.distance, 0.0);
  CHECK_EQ(touching.solids, int32_t(XHD_SOLIDS_APART));
  CHECK_EQ(touching.penetration_lower, 0.0);
  CHECK(touching.penetration_upper > 0.0 && touching.penetration_upper <= 1e-11);
  // Apart by 0.5: upper 0.
  const double away[12] = {1, 0, 0, 0.5, 0, 1, 0, 0, 0, 0, 1, 0};
  CHECK_EQ(probe(view(a), view(b), away).penetration_upper, 0.0);
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

namespace {

void append(xhd_test::Mesh& to, const xhd_test::Mesh& m) {
  const uint32_t base = static_cast<uint32_t>(to.xyz.size() / 3);
  to.xyz.insert(to.xyz.end(), m.xyz.begin(), m.xyz.end());
  for (uint32_t v : m.triangles) to.triangles.push_back(v + base);
}

xhd_test::Mesh box6(double x0, double y0, double z0, double x1, double y1, double z1) {
  const double lo[3] = {x0, y0, z0}, hi[3] = {x1, y1, z1};
  return xhd_test::box(lo, hi);
}

// Both methods, with their facts equal; the first returned.
xhd_distance_result probe_both(const xhd_mesh& a, const xhd_mesh& b, const double* pose) {
  const xhd_distance_result r = probe(a, b, pose);
  CHECK(same_facts(r, probe(a, b, pose, XHD_DISTANCE_BRUTE)));
  return r;
}

}  // namespace

TEST(penetration_is_not_fooled_by_meshes_that_only_look_convex) {
  // A bipyramid whose edge ab bends inward, with a zero-area triangle (b, a, m) along it (m its midpoint): no two
  // faces with a plane meet across ab. B sits in the notch, outside A but inside its hull: apart, never convex.
  xhd_test::Mesh a{"bipyramid", {0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, 0.3, 1, 0.5, -2, -0.1, 0.5, 0, 0}, {}};
  a.triangles = {0, 1, 3, 1, 2, 3, 2, 0, 3, 1, 5, 4, 5, 0, 4, 2, 1, 4, 0, 2, 4, 1, 0, 5};
  const xhd_test::Mesh notch = box6(0.48, -0.52, 0.08, 0.52, -0.48, 0.12);
  const xhd_distance_result r = probe_both(view(a), view(notch), nullptr);
  CHECK(r.min.distance > 0.1);
  CHECK_EQ(r.solids, int32_t(XHD_SOLIDS_APART));
  CHECK((r.solids_flags & XHD_SOLIDS_CONVEX) == 0);
  // A box whose top is a valley 1e-7 deep in 1,000 strips (each edge bends in by 8e-13), and B just above the
  // valley's floor, 1e-8 below the rim: apart; a test of each edge against 1e-12 of the size took it for convex.
  const int n = 1000;
  xhd_test::Mesh valley{"valley", {}, {}};
  for (int i = 0; i <= n; ++i) {
    const double x = double(i) / n, z = 1 - 4e-7 * x * (1 - x);
    valley.xyz.insert(valley.xyz.end(), {x, 0, 0, x, 1, 0, x, 0, z, x, 1, z});
  }
  auto quad = [&](uint32_t p, uint32_t q, uint32_t s, uint32_t t) { valley.triangles.insert(valley.triangles.end(), {p, q, s, p, s, t}); };
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t o = 4 * i, p = 4 * (i + 1);
    quad(o + 2, p + 2, p + 3, o + 3), quad(o, o + 1, p + 1, p), quad(o, p, p + 2, o + 2), quad(o + 1, o + 3, p + 3, p + 1);
  }
  quad(0, 2, 3, 1), quad(4 * n, 4 * n + 1, 4 * n + 3, 4 * n + 2);
  const xhd_distance_result v = probe(view(valley), view(box6(0.45, 0.2, 1 - 1e-8, 0.55, 0.8, 1.5)), nullptr);
  CHECK(v.min.distance > 0.0);
  CHECK_EQ(v.solids, int32_t(XHD_SOLIDS_APART));
}

TEST(penetration_of_pieces_that_bound_nothing_and_of_rounding_overlaps) {
  // A cube far away and, inside B, a triangle with its reverse (closed, but bounding no volume): no solid to speak
  // of, so nothing is said; the same with a flattened tetrahedron.
  xhd_test::Mesh flap = box6(10, 10, 10, 11, 11, 11);
  append(flap, xhd_test::Mesh{"flap", {0, 0, 0.5, 0.2, 0, 0.5, 0, 0.2, 0.5}, {0, 1, 2, 0, 2, 1}});
  xhd_test::Mesh flat = box6(10, 10, 10, 11, 11, 11);
  append(flat, xhd_test::Mesh{"flat", {0, 0, 0, 0.5, 0, 0, 0, 0.5, 0, 0.1, 0.1, 0}, {0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3}});
  const xhd_test::Mesh b = box6(-1, -1, -1, 1, 1, 1);
  for (const xhd_test::Mesh* a : {&flap, &flat}) {
    const xhd_distance_result r = probe_both(view(*a), view(b), nullptr);
    CHECK_EQ(r.solids, int32_t(XHD_SOLIDS_OPEN));
    CHECK_EQ(r.solids_flags, int32_t(XHD_SOLIDS_B_CLOSED));
  }
  // Cubes overlapping by 1e-13, below the slack: not said to be apart; the upper bound holds the overlap.
  const xhd_distance_result thin = probe_both(view(box6(0, 0, 0, 1, 1, 1)), view(box6(1 - 1e-13, 0.2, 0.2, 2, 0.8, 0.8)), nullptr);
  CHECK(thin.solids != XHD_SOLIDS_APART);
  CHECK(thin.penetration_lower <= 1e-13 && 1e-13 <= thin.penetration_upper);
}

TEST(penetration_of_a_float_mesh_posed_against_its_double_twin) {
  // A (double) bar with its top at 1 + 1.1e-7; B (float32) a crossing bar moved up by 1 + 1e-7. Posed in double, B's
  // bottom is 1e-8 below A's top (an overlap with no vertex inside); the distances, rounding B's posed vertices to
  // float, find them 9e-9 apart. A second piece keeps A from being convex. The overlap is not called apart.
  xhd_test::Mesh a = box6(-10, -1, -1, 10, 1, 1 + 1.1e-7);
  append(a, box6(30, 30, 30, 31, 31, 31));
  const xhd_test::Mesh b = box6(-1, -10, 0, 1, 10, 1);
  const std::vector<float> b32(b.xyz.begin(), b.xyz.end());
  const xhd_mesh bf{b32.data(), 8, b.triangles.data(), 12, nullptr};
  const double up[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1 + 1e-7};
  const xhd_distance_result r = probe_both(view(a), bf, up);
  CHECK(r.min.distance > 0.0);
  CHECK(r.solids != XHD_SOLIDS_APART);
  CHECK(r.penetration_lower <= 1e-8 && 1e-8 <= r.penetration_upper);
}

TEST(penetration_inside_tests_agree_far_from_the_origin) {
  // The hierarchy and every-triangle ways of the inside test, for points near and on a ball's surface at 1e6 and
  // near tiny triangles beside it: the same answers, undecided ones included.
  const double at[3] = {1e6, 1e6, 1e6};
  xhd_test::Mesh m = xhd_test::ball(3, 1.0, at);
  const double tiny[3] = {1e6 + 1.5, 1e6, 1e6};
  append(m, xhd_test::ball(0, 1e-6, tiny));
  const xhd::SolidMesh s{m.xyz.data(), m.xyz.size() / 3, m.triangles.data(), m.triangles.size() / 3};
  const xhd::SolidQueries tree(s, false), every(s, true);
  xhd_test::Random rng(11);
  int inside = 0, undecided = 0;
  for (int i = 0; i < 3000; ++i) {
    const uint32_t v = static_cast<uint32_t>(rng.uniform(0, double(s.vertex_count) - 1e-9));
    const double scale = i % 3 == 0 ? 1e-9 : (i % 3 == 1 ? 1e-3 : 0.3);
    const xhd::Dvec3 p = {m.xyz[3 * v] + scale * rng.uniform(-1, 1), m.xyz[3 * v + 1] + scale * rng.uniform(-1, 1),
                          m.xyz[3 * v + 2] + scale * rng.uniform(-1, 1)};
    const xhd::Inside x = tree.inside(p), y = every.inside(p);
    CHECK(x == y);
    inside += x == xhd::Inside::kInside;
    undecided += x == xhd::Inside::kUndecided;
    if (i % 10 == 0) CHECK_EQ(tree.distance2(p), every.distance2(p));
  }
  CHECK(inside > 300);  // the test reached both sides
  CHECK(undecided < 1000);
}
