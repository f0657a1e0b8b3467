// The exact point-triangle and triangle-triangle distances (geometry/point_triangle.h, triangle_pair.h)
// against brute force: the true distance is at most that of any sampled point of the triangle, and a
// fine barycentric sampling comes within its spacing of it. Degenerate triangles (a repeated corner,
// collinear corners, a single point) have no plane: they must fall back to their edges, never divide by
// a zero area.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "../geometry/point_triangle.h"
#include "../geometry/triangle_pair.h"
#include "check.h"
#include "random_points.h"

namespace {

using xhd::Dvec3;

double dist2(Dvec3 a, Dvec3 b) {
  const Dvec3 d = xhd::dsub(a, b);
  return xhd::ddot(d, d);
}

// Points of the triangle on a barycentric grid of n steps per side, corners and edges included.
std::vector<Dvec3> sample_triangle(Dvec3 a, Dvec3 b, Dvec3 c, int n) {
  std::vector<Dvec3> out;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; i + j <= n; ++j) {
      const double u = double(i) / n, v = double(j) / n, w = 1.0 - u - v;
      out.push_back({w * a.x + u * b.x + v * c.x, w * a.y + u * b.y + v * c.y, w * a.z + u * b.z + v * c.z});
    }
  return out;
}

double longest_edge(Dvec3 a, Dvec3 b, Dvec3 c) { return std::sqrt(std::max({dist2(a, b), dist2(b, c), dist2(c, a)})); }

Dvec3 random_point(xhd_test::Random& rng, double size) {
  return {rng.uniform(-size, size), rng.uniform(-size, size), rng.uniform(-size, size)};
}

// A triangle of one of the shapes the code must handle: ordinary, a repeated corner, collinear corners,
// one point, a sliver.
xhd::Corners3 random_triangle(xhd_test::Random& rng, int shape) {
  const Dvec3 a = random_point(rng, 1.0), b = random_point(rng, 1.0), c = random_point(rng, 1.0);
  switch (shape % 5) {
    case 0:
      return {{a, b, c}};
    case 1:
      return {{a, a, c}};
    case 2:
      return {{a, b, {0.25 * a.x + 0.75 * b.x, 0.25 * a.y + 0.75 * b.y, 0.25 * a.z + 0.75 * b.z}}};
    case 3:
      return {{a, a, a}};
    default:
      return {{a, b, {a.x + 1e-9 * c.x, a.y + 1e-9 * c.y, a.z + 1e-9 * c.z}}};
  }
}

// The closest point must be at the distance reported, no farther than any sampled point of the triangle,
// and within the sampling's spacing of the nearest sample.
void check_point_triangle(Dvec3 p, const xhd::Corners3& t) {
  constexpr int kSteps = 60;
  const xhd::SurfacePoint s = xhd::closest_on_triangle(p, t.v[0], t.v[1], t.v[2]);
  CHECK_NEAR(dist2(p, s.at), s.d2, 1e-12 * (1.0 + s.d2));
  double sampled = INFINITY;
  for (const Dvec3& q : sample_triangle(t.v[0], t.v[1], t.v[2], kSteps)) sampled = std::min(sampled, dist2(p, q));
  CHECK(s.d2 <= sampled * (1 + 1e-12) + 1e-15);
  const double spacing = longest_edge(t.v[0], t.v[1], t.v[2]) / kSteps;
  CHECK(std::sqrt(sampled) - std::sqrt(s.d2) <= spacing + 1e-12);
}

}  // namespace

TEST(point_triangle_matches_sampling) {
  xhd_test::Random rng(11);
  for (int k = 0; k < 250; ++k) check_point_triangle(random_point(rng, 2.0), random_triangle(rng, k));
}

TEST(point_triangle_exact_cases) {
  // The unit right triangle in z = 0: inside (projection), beyond an edge, beyond a corner.
  const Dvec3 a{0, 0, 0}, b{1, 0, 0}, c{0, 1, 0};
  xhd::SurfacePoint s = xhd::closest_on_triangle({0.25, 0.25, 2}, a, b, c);
  CHECK_EQ(s.d2, 4.0);
  CHECK_EQ(s.at.x, 0.25);
  CHECK_EQ(s.at.z, 0.0);
  s = xhd::closest_on_triangle({0.5, -3, 0}, a, b, c);
  CHECK_EQ(s.d2, 9.0);
  s = xhd::closest_on_triangle({-3, -4, 0}, a, b, c);
  CHECK_EQ(s.d2, 25.0);
  // A triangle that is one point is that point; far coordinates keep their low bits (relative to a).
  s = xhd::closest_on_triangle({4.2e6 + 3, 1, 0}, {4.2e6, 1, 4}, {4.2e6, 1, 4}, {4.2e6, 1, 4});
  CHECK_EQ(s.d2, 25.0);
  CHECK_EQ(s.at.x, 4.2e6);
}

TEST(triangle_pair_min_matches_sampling) {
  constexpr int kSteps = 40;
  xhd_test::Random rng(12);
  for (int k = 0; k < 150; ++k) {
    xhd::Corners3 a = random_triangle(rng, k), b = random_triangle(rng, k / 5);
    const Dvec3 shift = random_point(rng, 1.5);  // apart, touching or crossing
    for (Dvec3& v : b.v) v = {v.x + shift.x, v.y + shift.y, v.z + shift.z};
    const xhd::PairPoints r = xhd::triangle_pair_min(a, b);
    CHECK_NEAR(dist2(r.on_a, r.on_b), r.d2, 1e-12 * (1.0 + r.d2));
    CHECK_EQ(r.crossing, r.d2 == 0.0);
    // Every point of a, sampled, against b exactly: the minimum over them is an upper bound that a fine
    // sampling brings within its spacing of the truth.
    double sampled = INFINITY;
    for (const Dvec3& p : sample_triangle(a.v[0], a.v[1], a.v[2], kSteps))
      sampled = std::min(sampled, xhd::closest_on_triangle(p, b.v[0], b.v[1], b.v[2]).d2);
    CHECK(r.d2 <= sampled * (1 + 1e-12) + 1e-15);
    CHECK(std::sqrt(sampled) - std::sqrt(r.d2) <= longest_edge(a.v[0], a.v[1], a.v[2]) / kSteps + 1e-12);
    // The cheap plane bound never exceeds the truth, for every shape (collinear corners included: see
    // triangle_pair_lower_bound_near_collinear).
    CHECK(xhd::triangle_pair_lower2(a, b) <= r.d2 * (1 + 1e-12) + 1e-15);
  }
}

// Corners collinear up to rounding give a normal that is rounding noise, not perpendicular to the edges.
// The bound once measured b's heights as if a's corners all sat at height 0 along it, and overstated the
// gap (0.034 against a true 0.0039 in one draw): a pruning bound above the truth can cut the winning pair.
// Here a is made collinear in several ways (a point on the segment, a relative offset of 1e-15 .. 1e-9,
// far from the origin) and b placed nearby at random; the bound must never exceed the exact distance
// beyond the rounding of its own dot products. Half the draws pair a with a shifted copy of itself (two
// slivers: see triangle_pair_slivers_do_not_cross_by_rounding).
TEST(triangle_pair_lower_bound_near_collinear) {
  xhd_test::Random rng(31);
  int separated = 0;
  for (int k = 0; k < 20000; ++k) {
    const double offset = std::pow(10.0, -15.0 + 6.0 * rng.uniform(0.0, 1.0));
    const Dvec3 base = k % 3 == 0 ? Dvec3{4.2e6, -3.5e5, 100.0} : Dvec3{0, 0, 0};
    const Dvec3 p = random_point(rng, 1.0), q = random_point(rng, 1.0), w = random_point(rng, 1.0);
    const double t = rng.uniform(0.0, 1.0);
    const Dvec3 on = {p.x + t * (q.x - p.x) + offset * w.x, p.y + t * (q.y - p.y) + offset * w.y,
                      p.z + t * (q.z - p.z) + offset * w.z};
    xhd::Corners3 a{{{base.x + p.x, base.y + p.y, base.z + p.z},
                     {base.x + q.x, base.y + q.y, base.z + q.z},
                     {base.x + on.x, base.y + on.y, base.z + on.z}}};
    xhd::Corners3 b = k % 2 == 0 ? random_triangle(rng, k / 2) : a;
    const Dvec3 shift = random_point(rng, 0.3);
    for (Dvec3& v : b.v)
      v = {v.x + shift.x + (k % 2 == 0 ? base.x : 0.0), v.y + shift.y + (k % 2 == 0 ? base.y : 0.0),
           v.z + shift.z + (k % 2 == 0 ? base.z : 0.0)};
    const xhd::PairPoints r = xhd::triangle_pair_min(a, b);
    const double lower2 = xhd::triangle_pair_lower2(a, b);
    const double scale = std::fabs(base.x) + std::fabs(base.y) + 4.0;
    // The slack the searches add (1e-12 of the coordinates) in distance, checked in distance.
    CHECK(std::sqrt(lower2) <= std::sqrt(r.d2) + 1e-12 * scale);
    if (lower2 > 0.0) ++separated;
  }
  CHECK(separated > 1000);  // the bound still separates many pairs: it has not become 0 everywhere
}

// Small triangles far apart and offset sideways, as a nucleus's facets face a vessel's patch at within 400:
// both normals see only the height between the facing planes, while the pair's distance grows with the
// offset. The centroid line's separation follows the distance (within the triangles' extents along it), never
// exceeds it, at the origin or at survey coordinates, and triangle_pair_beyond agrees with the bounds it tests.
TEST(triangle_pair_centroid_line_bound) {
  xhd_test::Random rng(47);
  int tighter = 0;
  for (int k = 0; k < 4000; ++k) {
    const Dvec3 base = k % 2 == 0 ? Dvec3{0, 0, 0} : Dvec3{6.1e5, -4.2e6, 350.0};
    const double size = rng.uniform(0.5, 10.0), height = rng.uniform(0.0, 400.0), offset = rng.uniform(0.0, 400.0);
    const double angle = rng.uniform(0.0, 6.283185307179586);
    xhd::Corners3 a, b;
    for (int i = 0; i < 3; ++i) {
      const Dvec3 p = random_point(rng, size), q = random_point(rng, size);
      a.v[i] = {base.x + p.x, base.y + p.y, base.z + 0.05 * p.z};  // facing +z, nearly flat
      b.v[i] = {base.x + offset * std::cos(angle) + q.x, base.y + offset * std::sin(angle) + q.y,
                base.z + height + 0.05 * q.z};
    }
    const double exact = std::sqrt(xhd::triangle_pair_min(a, b).d2);
    const double axis = std::sqrt(xhd::centroid_axis_separation2(a, b));
    const double scale = std::fabs(base.x) + std::fabs(base.y) + 1000.0;
    CHECK(axis <= exact + 1e-12 * scale);
    const double planes = std::sqrt(std::max(xhd::plane_separation2(a, b), xhd::plane_separation2(b, a)));
    if (offset > 100.0 && exact > 4.0 * size && axis > planes && axis > exact - 2.5 * size) ++tighter;
    const double lower2 = std::max(xhd::triangle_pair_lower2(a, b), xhd::centroid_axis_separation2(a, b));
    for (const double r2 : {0.25 * lower2, 0.999 * lower2, lower2, 1.001 * lower2, 4.0 * lower2 + 1.0})
      CHECK_EQ(xhd::triangle_pair_beyond(a, b, r2), lower2 > r2);
  }
  // Pairs offset sideways are bounded within a few triangle sizes of their distance, above both normals.
  CHECK(tighter > 1000);
}

// Two slivers (corners collinear to 1e-15 of their size), each a translate of the other, are skew segments
// 0.144 apart; the plane test on their rounding-noise normals once reported them crossing (distance 0).
TEST(triangle_pair_slivers_do_not_cross_by_rounding) {
  const xhd::Corners3 a{{{-0.81738529318499786, 0.62816846151398265, -0.67229644430902291},
                         {0.041713310797702352, -0.14979141066828827, 0.99972018722989064},
                         {-0.66570063469920604, 0.49080986614371952, -0.3770808886536095}}};
  const xhd::Corners3 b{{{-0.76286646465786134, 0.67905524274435103, -0.88024462413830329},
                         {0.096232139324838817, -0.098904629437919833, 0.79177200740061027},
                         {-0.61118180617206952, 0.54169664737408796, -0.58502906848288982}}};
  for (const auto& [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
    const xhd::PairPoints r = xhd::triangle_pair_min(x, y);
    CHECK(!r.crossing);
    CHECK_NEAR(std::sqrt(r.d2), 0.1442263133831124, 1e-9);
    CHECK(xhd::triangle_pair_lower2(x, y) <= r.d2);
  }
}

TEST(triangle_pair_crossing_and_max) {
  // Two triangles piercing each other: distance 0, flagged as crossing.
  const xhd::Corners3 flat{{{-1, -1, 0}, {2, -1, 0}, {-1, 2, 0}}};
  const xhd::Corners3 pin{{{0, 0, -1}, {0.1, 0, 1}, {0, 0.1, 1}}};
  const xhd::PairPoints cross = xhd::triangle_pair_min(flat, pin);
  CHECK_EQ(cross.d2, 0.0);
  CHECK(cross.crossing);
  // The farthest pair of two triangles is the farthest pair of corners.
  xhd_test::Random rng(13);
  for (int k = 0; k < 100; ++k) {
    const xhd::Corners3 a = random_triangle(rng, k), b = random_triangle(rng, k + 2);
    double farthest = -1;
    for (const Dvec3& p : a.v)
      for (const Dvec3& q : b.v) farthest = std::max(farthest, dist2(p, q));
    const xhd::PairPoints r = xhd::triangle_pair_max(a, b);
    CHECK_EQ(r.d2, farthest);
    CHECK_EQ(dist2(r.on_a, r.on_b), r.d2);
  }
}

TEST(triangle_pair_edge_in_the_other_plane_far_away) {
  // Found by the contacts' test (two copies of a bumpy sphere, B moved 4 along x): A's edge lies in B's plane
  // (B's plane holds the x direction, and A's edge is B's translated along x), 4 units from B. Its heights
  // above B's plane are rounding noise of opposite signs and the line test's turns are noise too: the pair
  // was reported as crossing, distance 0. Then a family of the same shape: B's edge on the line of A's edge,
  // far along it, B's third corner anywhere (before the fix 44 of these 4,000 orderings came out below the boxes' gap).
  const xhd::Corners3 a{{{-0.18481006737182534, -1.0481099751681571, 6.516827890103867e-17},
                         {-0.17780237507277122, -1.0083673772350565, -0.23370375886851813},
                         {-0.45445845771509741, -0.78714513869194003, -0.2074543547097655}}};
  const xhd::Corners3 b{{{3.8151899326281749, -1.0481099751681571, 6.516827890103867e-17},
                         {4.1848100673718251, -1.0481099751681571, 6.5168278901038658e-17},
                         {3.8221976249272287, -1.0083673772350565, -0.23370375886851813}}};
  const xhd::PairPoints r = xhd::triangle_pair_min(a, b);
  CHECK(!r.crossing);
  CHECK(r.d2 >= 3.99 * 3.99);  // A's corners lie at x <= -0.17, B's at x >= 3.81
  xhd_test::Random rng(29);
  long false_zero = 0;
  for (int k = 0; k < 2000; ++k) {
    // Every shape, the collinear and near-collinear ones included: a point far along a needle's line must not
    // be measured as near (closest_on_triangle's proven edge sides; the corner tests below check it alone).
    const xhd::Corners3 t = random_triangle(rng, k);
    const Dvec3 d = xhd::dsub(t.v[1], t.v[0]);
    const double from = rng.uniform(2, 50), to = from + rng.uniform(0.1, 3);
    const Dvec3 c{rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)};
    const xhd::Corners3 far{{{t.v[0].x + from * d.x, t.v[0].y + from * d.y, t.v[0].z + from * d.z},
                             {t.v[0].x + to * d.x, t.v[0].y + to * d.y, t.v[0].z + to * d.z},
                             {t.v[1].x + from * d.x + c.x, t.v[1].y + from * d.y + c.y, t.v[1].z + from * d.z + c.z}}};
    // A lower bound of the true distance: the gap between the two triangles' boxes.
    double gap2 = 0;
    for (int axis = 0; axis < 3; ++axis) {
      double alo = INFINITY, ahi = -INFINITY, blo = INFINITY, bhi = -INFINITY;
      for (int i = 0; i < 3; ++i) {
        alo = std::min(alo, xhd::dget(t.v[i], axis)), ahi = std::max(ahi, xhd::dget(t.v[i], axis));
        blo = std::min(blo, xhd::dget(far.v[i], axis)), bhi = std::max(bhi, xhd::dget(far.v[i], axis));
      }
      const double g = std::max({blo - ahi, alo - bhi, 0.0});
      gap2 += g * g;
    }
    for (const xhd::PairPoints& p : {xhd::triangle_pair_min(t, far), xhd::triangle_pair_min(far, t)})
      if (!(p.d2 >= gap2 * (1 - 1e-12))) ++false_zero;
    for (const Dvec3& corner : far.v)
      if (!(xhd::closest_on_triangle(corner, t.v[0], t.v[1], t.v[2]).d2 >= gap2 * (1 - 1e-12))) ++false_zero;
  }
  CHECK_EQ(false_zero, 0L);
}

// The GPU's leaf pairs measure a triangle pair a test a lane (triangle_pair_min_test, _max_test) and reduce the
// lanes' values: that must be the whole function's d2 to the bit, for pairs apart, touching, crossing (at every
// one of the six edges), sharing corners, degenerate (a point, a segment, collinear to rounding) and far out.
TEST(triangle_pair_tests_reduce_to_the_pair) {
  xhd_test::Random rng(41);
  long crossings = 0, compared = 0;
  const auto compare = [&](const xhd::Corners3& a, const xhd::Corners3& b) {
    double least = INFINITY, greatest = -1;
    for (int k = 0; k < xhd::kPairMinTests; ++k) least = std::min(least, xhd::triangle_pair_min_test(a, b, k));
    for (int k = 0; k < xhd::kPairMaxTests; ++k) greatest = std::max(greatest, xhd::triangle_pair_max_test(a, b, k));
    const xhd::PairPoints min = xhd::triangle_pair_min(a, b), max = xhd::triangle_pair_max(a, b);
    CHECK_EQ(std::memcmp(&least, &min.d2, sizeof(double)), 0);
    CHECK_EQ(std::memcmp(&greatest, &max.d2, sizeof(double)), 0);
    crossings += min.crossing ? 1 : 0;
    ++compared;
  };
  for (int k = 0; k < 3000; ++k) {
    xhd::Corners3 a = random_triangle(rng, k), b = random_triangle(rng, k / 7);
    const Dvec3 shift = random_point(rng, k % 3 == 0 ? 0.3 : 1.5);
    for (Dvec3& v : b.v) v = {v.x + shift.x, v.y + shift.y, v.z + shift.z};
    if (k % 11 == 0) b.v[0] = a.v[k % 3];  // a shared corner
    if (k % 13 == 0)                        // far out, where the differences round
      for (xhd::Corners3* t : {&a, &b})
        for (Dvec3& v : t->v) v = {v.x + 5e5, v.y + 4.2e6, v.z};
    compare(a, b);
    compare(b, a);
  }
  // A pin through a flat triangle, turned so that each of the six edges in turn is the crossing one.
  const xhd::Corners3 flat{{{-1, -1, 0}, {2, -1, 0}, {-1, 2, 0}}};
  const xhd::Corners3 pin{{{0, 0, -1}, {0.1, 0, 1}, {0, 0.1, 1}}};
  for (int turn = 0; turn < 3; ++turn) {
    const xhd::Corners3 p{{pin.v[turn], pin.v[(turn + 1) % 3], pin.v[(turn + 2) % 3]}};
    compare(flat, p);
    compare(p, flat);
  }
  CHECK(crossings >= 6);
  CHECK(compared > 6000);
}

TEST(segment_pairs_degenerate) {
  // Parallel, collinear and zero-length segments: closest_segments must not divide by zero.
  const xhd::PairPoints parallel = xhd::closest_segments({0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0});
  CHECK_EQ(parallel.d2, 1.0);
  const xhd::PairPoints collinear = xhd::closest_segments({0, 0, 0}, {1, 0, 0}, {3, 0, 0}, {5, 0, 0});
  CHECK_EQ(collinear.d2, 4.0);
  const xhd::PairPoints points = xhd::closest_segments({1, 2, 3}, {1, 2, 3}, {1, 2, 5}, {1, 2, 5});
  CHECK_EQ(points.d2, 4.0);
  const xhd::PairPoints point_segment = xhd::closest_segments({0, 3, 0}, {0, 3, 0}, {-1, 0, 0}, {1, 0, 0});
  CHECK_EQ(point_segment.d2, 9.0);
  CHECK_EQ(point_segment.on_b.x, 0.0);
}
