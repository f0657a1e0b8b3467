// The proven error bound of the point-triangle evaluation (geometry/point_triangle.h): the root of the computed
// square lies within 12.2u D + 204u diam of the true distance D (u = 2^-53, diam the longest edge), which the
// searches' filters rely on (geometry/surface_bounds.h, Lemma W). Checked against a truth in binary128
// (__float128: the differences of the double inputs and their products are exact there, so its own rounding
// is far below the bound), on the cases that break a plain evaluation: points 1e6 to 1e12 away above an edge
// (where the inside test is decided), slivers, needles and caps, collinear and repeated corners, points on
// edges and corners, and survey coordinates.
#include <algorithm>
#include <cmath>
#include <vector>

#include "../geometry/point_triangle.h"
#include "check.h"
#include "random_points.h"

namespace {

using xhd::Dvec3;
using Quad = __float128;

struct Qvec {
  Quad x, y, z;
};

Qvec q_of(Dvec3 v) { return {v.x, v.y, v.z}; }
Qvec qsub(Qvec a, Qvec b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Quad qdot(Qvec a, Qvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Qvec qcross(Qvec a, Qvec b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }

// sqrt in binary128 without libquadmath: Newton from the double root (two steps: ~106 bits).
Quad qsqrt(Quad v) {
  if (!(v > 0)) return 0;
  Quad r = std::sqrt(static_cast<double>(v));
  for (int k = 0; k < 3; ++k) r = (r + v / r) / 2;
  return r;
}

Quad segment_dist2(Qvec p, Qvec a, Qvec b) {
  const Qvec ab = qsub(b, a), ap = qsub(p, a);
  const Quad len2 = qdot(ab, ab);
  Quad t = len2 > 0 ? qdot(ap, ab) / len2 : 0;
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  const Qvec d = {ap.x - t * ab.x, ap.y - t * ab.y, ap.z - t * ab.z};
  return qdot(d, d);
}

// The distance from p to triangle (a, b, c) in binary128: the plane distance when the projection is inside
// (each edge's inward in-plane normal n x e), else the nearest edge.
Quad true_distance(Dvec3 p64, Dvec3 a64, Dvec3 b64, Dvec3 c64) {
  const Qvec p = q_of(p64), a = q_of(a64), b = q_of(b64), c = q_of(c64);
  const Qvec n = qcross(qsub(b, a), qsub(c, a));
  const Quad nn = qdot(n, n);
  if (nn > 0) {
    const Qvec corners[3] = {a, b, c};
    bool inside = true;
    for (int k = 0; k < 3; ++k) {
      const Qvec m = qcross(n, qsub(corners[(k + 1) % 3], corners[k]));
      inside = inside && qdot(qsub(p, corners[k]), m) >= 0;
    }
    if (inside) {
      const Quad s = qdot(qsub(p, a), n);
      return qsqrt(s * s / nn);
    }
  }
  return qsqrt(std::min({segment_dist2(p, a, b), segment_dist2(p, b, c), segment_dist2(p, c, a)}));
}

double longest_edge(Dvec3 a, Dvec3 b, Dvec3 c) {
  const Qvec qa = q_of(a), qb = q_of(b), qc = q_of(c);
  const Quad e =
      std::max({qdot(qsub(qb, qa), qsub(qb, qa)), qdot(qsub(qc, qb), qsub(qc, qb)), qdot(qsub(qa, qc), qsub(qa, qc))});
  return static_cast<double>(qsqrt(e));
}

long g_cases = 0;
double g_worst = 0.0;  // largest error seen, as a fraction of the proven bound

// The computed distance and the surface value are within the proven bound of the truth.
void check_bound(Dvec3 p, Dvec3 a, Dvec3 b, Dvec3 c, const char* what) {
  constexpr double u = 0x1.0p-53;
  const Quad truth = true_distance(p, a, b, c);
  const double diam = longest_edge(a, b, c);
  const double bound = 12.2 * u * static_cast<double>(truth) + 204.0 * u * diam;
  // The closest point's square, and the surface value the searches compare (raised to the corner box's square).
  const xhd::CornerBox box = xhd::corner_box(a, b, c);
  for (const double d2 : {xhd::closest_on_triangle(p, a, b, c).d2,
                          xhd::surface_value(p, a, b, c, xhd::corner_box_dist2(p, box.lo, box.hi)).d2}) {
    CHECK(std::isfinite(d2));
    const Quad computed = qsqrt(d2);
    const double error = static_cast<double>(computed > truth ? computed - truth : truth - computed);
    ++g_cases;
    g_worst = std::max(g_worst, bound > 0 ? error / bound : (error > 0 ? INFINITY : 0.0));
    if (!CHECK(error <= bound))
      std::fprintf(stderr, "  %s: p (%.17g, %.17g, %.17g), error %.3g > bound %.3g (distance %.17g)\n", what, p.x,
                   p.y, p.z, error, bound, static_cast<double>(truth));
  }
}

Dvec3 add(Dvec3 a, Dvec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
Dvec3 scale(Dvec3 a, double k) { return {a.x * k, a.y * k, a.z * k}; }
Dvec3 unit(Dvec3 v) { return scale(v, 1.0 / std::sqrt(xhd::ddot(v, v))); }
Dvec3 lerp(Dvec3 a, Dvec3 b, double t) { return add(a, scale(xhd::dsub(b, a), t)); }

Dvec3 random_unit(xhd_test::Random& rng) {
  for (;;) {
    const Dvec3 v{rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)};
    const double l = xhd::ddot(v, v);
    if (l > 0.01 && l <= 1.0) return unit(v);
  }
}

struct Tri {
  Dvec3 a, b, c;
  const char* name;
};

// Triangles of size `size` near `centre`: ordinary, a sliver (third corner 1e-9 of the size off an edge), a
// needle (one edge 1e-9 of the others), a cap (third corner on the longest edge's middle, 1e-12 off it),
// collinear corners, a repeated corner, a single point; right-angled and axis-aligned ones too.
std::vector<Tri> shapes(xhd_test::Random& rng, Dvec3 centre, double size) {
  const Dvec3 a = add(centre, scale(random_unit(rng), size)), b = add(centre, scale(random_unit(rng), size));
  const Dvec3 c = add(centre, scale(random_unit(rng), size));
  const Dvec3 off = scale(random_unit(rng), size);
  return {{a, b, c, "ordinary"},
          {a, b, add(lerp(a, b, 0.3), scale(off, 1e-9)), "sliver"},
          {a, add(a, scale(off, 1e-9)), c, "needle"},
          {a, b, add(lerp(a, b, 0.5), scale(off, 1e-12)), "cap"},
          {a, b, lerp(a, b, 0.75), "collinear"},
          {a, a, c, "repeated corner"},
          {a, a, a, "point"},
          {centre, add(centre, {size, 0, 0}), add(centre, {0, size, 0}), "axis-aligned right"}};
}

// Points `far` away from the triangle along its normal (or any direction for one without a plane) above
// its corners, its edges (exactly, and just inside and outside by 1e-15 to 1e-3 of the size) and its
// inside; points beyond a corner along an edge's line; the corners and edge points themselves.
void check_triangle(xhd_test::Random& rng, const Tri& t, double far) {
  const Dvec3 n0 = xhd::dcross(xhd::dsub(t.b, t.a), xhd::dsub(t.c, t.a));
  const Dvec3 normal = xhd::ddot(n0, n0) > 0 ? unit(n0) : random_unit(rng);
  const Dvec3 corners[3] = {t.a, t.b, t.c};
  const double size = std::max(longest_edge(t.a, t.b, t.c), 1e-300);
  for (int k = 0; k < 3; ++k) {
    const Dvec3 v = corners[k], w = corners[(k + 1) % 3];
    check_bound(v, t.a, t.b, t.c, t.name);                // on a corner
    check_bound(lerp(v, w, 0.5), t.a, t.b, t.c, t.name);  // on an edge
    for (double side : {0.0, 1e-15, -1e-15, 1e-9, -1e-9, 1e-3, -1e-3}) {
      // Across the edge within the plane: toward the opposite corner (inside) or away (outside).
      const Dvec3 across = xhd::dsub(corners[(k + 2) % 3], lerp(v, w, 0.5));
      const double len = std::sqrt(xhd::ddot(across, across));
      const Dvec3 in_plane = len > 0 ? scale(across, side * size / len) : Dvec3{0, 0, 0};
      for (double along : {0.0, 1e-12, 0.37, 1.0}) {
        const Dvec3 base = add(lerp(v, w, along), in_plane);
        for (double sign : {1.0, -1.0}) check_bound(add(base, scale(normal, sign * far)), t.a, t.b, t.c, t.name);
      }
    }
    // Far above the edge's line but off it by 1e-8 to 1e-6 of the height, inside or out: where a plain inside
    // test, rounding by 2^-52 |p - a|^2 / |edge|, takes a point well outside for one inside, or the reverse.
    const Dvec3 across = xhd::dsub(corners[(k + 2) % 3], lerp(v, w, 0.5));
    const double len = std::sqrt(xhd::ddot(across, across));
    for (double side : {1e-8, -1e-8, 1e-7, -1e-7, 1e-6, -1e-6})
      if (len > 0 && far > 0)
        check_bound(add(add(lerp(v, w, 0.37), scale(across, side * far / len)), scale(normal, far)), t.a, t.b, t.c,
                    t.name);
    // Beyond a corner along the edge's line, far away, and slightly off it.
    const Dvec3 edge = xhd::dsub(w, v);
    const double edge_length = std::sqrt(xhd::ddot(edge, edge));
    if (edge_length > 0) {
      check_bound(add(w, scale(edge, far / edge_length)), t.a, t.b, t.c, t.name);
      check_bound(add(add(w, scale(edge, far / edge_length)), scale(normal, 1e-6 * size)), t.a, t.b, t.c, t.name);
    }
  }
  // Random directions.
  for (int k = 0; k < 20; ++k) check_bound(add(t.a, scale(random_unit(rng), far)), t.a, t.b, t.c, t.name);
}

}  // namespace

TEST(point_triangle_error_within_proven_bound) {
  xhd_test::Random rng(71);
  for (double size : {1e-3, 1.0, 1e3})
    for (Dvec3 centre : {Dvec3{0.1, -0.2, 0.3}, Dvec3{4.2e6, 5.3e5, 120.0}})
      for (int repeat = 0; repeat < 3; ++repeat)
        for (const Tri& t : shapes(rng, centre, size))
          for (double far : {0.0, 1e-6, 1.0, 1e6, 1e8, 1e10, 6.5e10, 1e12}) check_triangle(rng, t, far * size);
  std::fprintf(stderr, "  %ld cases, largest error %.3f of the proven bound\n", g_cases, g_worst);
  CHECK(g_cases > 50000);
}

TEST(point_triangle_exact_on_corners_and_inside) {
  // A query on a corner is at distance 0 exactly; one straight above the inside of an axis-aligned triangle is
  // at its height exactly, however far (the plane distance of a normal along an axis rounds nothing).
  const Dvec3 a{0.4603, -0.25, 0.125}, b{0.4603, 0.25, 0.125}, c{0.4603, 0.0, -0.375};
  for (Dvec3 corner : {a, b, c}) CHECK_EQ(xhd::closest_on_triangle(corner, a, b, c).d2, 0.0);
  for (double far : {1.0, 1e6, 1e10, 6.5e10}) {
    const xhd::SurfacePoint s = xhd::closest_on_triangle({0.4603 + far, 0.0, 0.0}, a, b, c);
    const double h = (0.4603 + far) - 0.4603;
    CHECK_EQ(s.d2, h * h);
    CHECK_EQ(s.at.x, 0.4603);
  }
}
