// Exact closest point of a triangle to a point, in double precision, for every backend.
// Robust by construction rather than by case analysis of barycentric signs: the answer is the plane
// projection when it falls inside the triangle, else the nearest of the three edges. Degenerate
// triangles (repeated vertices, collinear corners) have no plane and are their edges, which are
// segments or single points; nothing divides by a zero area.
#pragma once

#include <cmath>
#include <cstdint>

#include "box_math.h"
#include "point_truth.h"

namespace xhd {

struct Dvec3 {
  double x, y, z;
};

XHD_HD Dvec3 dsub(Dvec3 a, Dvec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
XHD_HD double ddot(Dvec3 a, Dvec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
XHD_HD Dvec3 dcross(Dvec3 a, Dvec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
XHD_HD Dvec3 dload(const float* xyz) { return {xyz[0], xyz[1], xyz[2]}; }
// Component k of v (members are not an array: no indexing past x).
XHD_HD double dget(const Dvec3& v, int k) { return k == 0 ? v.x : (k == 1 ? v.y : v.z); }

// Point i of the input's own coordinates (point_truth.h), in double.
XHD_HD Dvec3 truth_point(const PointTruth& t, uint64_t i) { return {t.coord(i, 0), t.coord(i, 1), t.coord(i, 2)}; }

struct SurfacePoint {
  double d2;  // squared distance from the query
  Dvec3 at;   // the closest point
};

// The closest-point functions work relative to the triangle's first corner: the differences p - a,
// b - a, c - a of nearby coordinates are exact or nearly so (Sterbenz), and everything after them runs at
// the scale of the triangle and its distance to p, not at the scale of the coordinates. So a mesh at
// survey coordinates (y = 4.2e6, where a double's step is 1e-9) gives the distances it gives at the
// origin, to the last few bits, instead of losing them in a closest point rounded at 4.2e6.

// Closest point of segment [a, b] to p, as an offset from a (a zero-length segment is the point a).
XHD_HD SurfacePoint closest_on_segment_local(Dvec3 ap, Dvec3 ab) {
  const double len2 = ddot(ab, ab);
  double t = len2 > 0.0 ? ddot(ap, ab) / len2 : 0.0;
  t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
  const Dvec3 q = {t * ab.x, t * ab.y, t * ab.z};
  const Dvec3 d = dsub(ap, q);
  return {ddot(d, d), q};
}

XHD_HD SurfacePoint nearer(SurfacePoint u, SurfacePoint v) { return v.d2 < u.d2 ? v : u; }

// A segment's closest point measured from a and reported from `from` (a corner of the triangle).
XHD_HD SurfacePoint shifted(SurfacePoint s, Dvec3 offset) {
  return {s.d2, {s.at.x + offset.x, s.at.y + offset.y, s.at.z + offset.z}};
}

// Kahan's 2x2 determinant x*y - z*w: the rounding of z*w is recovered exactly by a fused multiply-add, so
// the result's relative error is at most 2u, u = 2^-53 (Jeannerod, Louvet and Muller, "Further analysis of
// Kahan's algorithm for the accurate computation of 2x2 determinants", Math. Comp. 2013), and it is exactly
// 0 when x*y == z*w. fma is IEEE's correctly rounded fused operation on the host and the GPU alike (explicit:
// the build's -ffp-contract=off and --fmad=false forbid only implicit contraction), so both round the same.
XHD_HD double det2(double x, double y, double z, double w) {
  const double zw = z * w;
  const double zw_error = fma(-z, w, zw);  // zw - z*w, exactly
  return fma(x, y, -zw) + zw_error;
}

// The cross product with each component to 2u of itself (det2): unlike dcross, its direction stays within
// 4u radians of the true normal however thin the triangle, and it is exactly zero only for collinear edges.
XHD_HD Dvec3 dcross_accurate(Dvec3 a, Dvec3 b) {
  return {det2(a.y, b.z, a.z, b.y), det2(a.z, b.x, a.x, b.z), det2(a.x, b.y, a.y, b.x)};
}

// Which side of one edge's line the plane projection X of the point lies on, proven despite rounding: w = p -
// (the edge's start), e the edge, n the accurate normal (edges taken in the order a, b, c, so m = n x e points
// inward). The exact sign wanted is that of (w . m) with the exact normal and edge (p - X is along n, so
// w . m = (X - start) . m). Componentwise, with c = |n| x |e| (c_x = |n_y||e_z| + |n_z||e_y|, ...: |m_k| <= c_k):
// w's rounding moves the value by u sum |w_k||m_k|; m's, by sum |w_k| times (n's 2u + e's u + the cross
// product's 2u) c_k; the dot product's, by 3u sum |w_k||m_k|. So it is within 9u sum |w_k| c_k of the exact
// value, to first order, and the margin 2^-49 sum |w_k| c_k = 16u sum |w_k| c_k covers that and its own
// rounding: a value beyond it proves the side (kInner: strictly inside; kOuter: strictly outside). Within it
// either side is possible, and X lies within twice the margin over |m| = |n||e| of the edge's line: since
// |c| <= 2^0.5 |n||e|, within 46u |w| (less where the rounding errors run along the edge, as for a needle:
// long edges along an axis give tiny c_k across them).
enum EdgeSide { kInner, kOuter, kUnsure };
XHD_HD EdgeSide edge_side(Dvec3 w, Dvec3 e, Dvec3 n) {
  const Dvec3 m = dcross(n, e);
  const Dvec3 an = {fabs(n.x), fabs(n.y), fabs(n.z)}, ae = {fabs(e.x), fabs(e.y), fabs(e.z)};
  const Dvec3 c = {an.y * ae.z + an.z * ae.y, an.z * ae.x + an.x * ae.z, an.x * ae.y + an.y * ae.x};
  const double value = ddot(w, m);
  const double margin = (1.0 / (1ull << 49)) * (fabs(w.x) * c.x + fabs(w.y) * c.y + fabs(w.z) * c.z);
  return value > margin ? kInner : (value < -margin ? kOuter : kUnsure);
}

// Closest point of triangle (a, b, c) to p, as an offset from a. ap = p - a, ab = b - a, ac = c - a.
//
// Error bound (u = 2^-53, D = the true distance from p to the triangle, diam = its longest edge; no underflow
// or overflow in the products). The computed distance sqrt(d2) is within 12.2u D + 204u diam of D:
//  0. The subtractions p - a, b - a, c - a round each by u of itself: the point moves by u |p - a| <= u (D +
//     diam), the corners by u diam, and the distance, 1-Lipschitz in both, by at most u D + 2u diam. From here
//     on D is the distance from the rounded point P to the rounded triangle T' = (0, B, C), which holds every
//     further bound (to first order: the higher terms are below 2^-90 D).
//  1. Interior: taken only when all three sides are proven inner (edge_side), so X is truly inside T' and
//     D = h, the distance to T's plane. Computed as s^2 / nn with s = P . n and nn = n . n: s is within 3u |P||n|
//     of P . n, n's direction within 4u of the true normal's (so P . n / |n| within 4u |P| of h), and the square,
//     the division and nn add 5u relative to the square, 2.6u to the distance: within 7.1u |P| + 2.7u h of h.
//     X inside means |P| <= h + diam: within 9.8u h + 7.1u diam.
//  2. Otherwise the nearest of the three edges. Each segment (closest_on_segment_local with its start's offset
//     w and edge e) is within 9.9u |w| + u |e| of its exact distance (its parameter within 7u |w| / |e|, the
//     closest point within 7.1u |w| + u |e| of the true one, the difference and its square 2.7u of the
//     distance), plus u |w| + u |e| for the rounding of w and e themselves (b's and c's offsets): with |w| <=
//     |P| + diam <= D + 2 diam, within 11u D + 24.1u diam. When one side is proven outer, X is truly outside
//     T' and its nearest point Y is D away on an edge whose line X is not strictly inside of (p - Y lies in
//     the normal cone at Y: an edge's outer side, or at a corner the outer side of one of its two edges), so
//     the edges proven inner are skipped. Otherwise all three: the nearest is D when T' has no plane or X is
//     outside; when X is inside, an unsure side puts X within delta = 46u (h + 2 diam) of its line, so within
//     delta of T's boundary (the perpendicular to that line leaves T' before reaching it), at a distance
//     sqrt(h^2 + delta^2), at most delta^2 / 2h < 2^-90 h above h when h >= diam, else delta <= 138u diam.
// So every backend's value (surface_value below, this one raised at most to its box's square, itself at most
// the true square to 5u) is within that bound, and the searches' filters need to reach only 2^-49 D +
// 2^-45 diam past a triangle (surface_bounds.h), where the plain evaluation (inside tests from cross products
// of p - a, p - b, p - c, whose rounding grows with |p - a|^2) could be off by 2^-21 of the distance at 6.5e10.
XHD_HD SurfacePoint closest_on_triangle_local(Dvec3 ap, Dvec3 ab, Dvec3 ac) {
  const Dvec3 n = dcross_accurate(ab, ac);
  const Dvec3 bc = dsub(ac, ab), bp = dsub(ap, ab), cp = dsub(ap, ac);
  const Dvec3 ca = {-ac.x, -ac.y, -ac.z};
  // No plane (repeated or collinear corners): the triangle is its three edges.
  EdgeSide on_ab = kUnsure, on_bc = kUnsure, on_ca = kUnsure;
  if (n.x != 0.0 || n.y != 0.0 || n.z != 0.0) {
    on_ab = edge_side(ap, ab, n);
    on_bc = edge_side(bp, bc, n);
    on_ca = edge_side(cp, ca, n);
    const double s = ddot(ap, n), nn = ddot(n, n);
    if (on_ab == kInner && on_bc == kInner && on_ca == kInner && nn > 0.0) {  // (nn 0: n's squares underflow)
      const double h = s / nn;  // signed height over the plane, in units of n
      return {s * s / nn, {ap.x - h * n.x, ap.y - h * n.y, ap.z - h * n.z}};
    }
  }
  // Proven outside one edge: the edges proven inner are skipped. Otherwise (unsure, or no plane) all three.
  const bool outside = on_ab == kOuter || on_bc == kOuter || on_ca == kOuter;
  SurfacePoint best{static_cast<double>(INFINITY), {0.0, 0.0, 0.0}};
  if (!outside || on_ab != kInner) best = nearer(best, closest_on_segment_local(ap, ab));
  if (!outside || on_bc != kInner) best = nearer(best, shifted(closest_on_segment_local(bp, bc), ab));
  if (!outside || on_ca != kInner) best = nearer(best, shifted(closest_on_segment_local(cp, ca), ac));
  return best;
}

// Closest point of segment [a, b] to p (a zero-length segment is the point a).
XHD_HD SurfacePoint closest_on_segment(Dvec3 p, Dvec3 a, Dvec3 b) {
  return shifted(closest_on_segment_local(dsub(p, a), dsub(b, a)), a);
}

// Exact closest point of the triangle to p: its squared distance, and the point in p's coordinates.
XHD_HD SurfacePoint closest_on_triangle(Dvec3 p, Dvec3 a, Dvec3 b, Dvec3 c) {
  return shifted(closest_on_triangle_local(dsub(p, a), dsub(b, a), dsub(c, a)), a);
}

// The box of corners a, b, c: their exact least and greatest coordinate per axis.
struct CornerBox {
  double lo[3], hi[3];
};

// The least and greatest of three coordinates (finite): plain comparisons, as fmin/fmax would be library calls
// on the host.
XHD_HD double least_of(double a, double b, double c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); }
XHD_HD double greatest_of(double a, double b, double c) { return a > b ? (a > c ? a : c) : (b > c ? b : c); }

XHD_HD CornerBox corner_box(Dvec3 a, Dvec3 b, Dvec3 c) {
  return {{least_of(a.x, b.x, c.x), least_of(a.y, b.y, c.y), least_of(a.z, b.z, c.z)},
          {greatest_of(a.x, b.x, c.x), greatest_of(a.y, b.y, c.y), greatest_of(a.z, b.z, c.z)}};
}

// Squared distance from p to the box [lo, hi] (exact doubles), computed always the same way: per axis
// e = lo - p below, p - hi above, else 0, then (e0^2 + e1^2) + e2^2. Every step rounds monotonically, so a box
// that holds another gives at most the other's value, bit for bit: a hierarchy node's box of its triangles'
// corner boxes bounds each of their surface values below exactly, with no margin (the build's
// -ffp-contract=off and --fmad=false keep the steps as written).
XHD_HD double corner_box_dist2(Dvec3 p, const double lo[3], const double hi[3]) {
  const double q[3] = {p.x, p.y, p.z};
  double e[3];
  for (int k = 0; k < 3; ++k) e[k] = q[k] < lo[k] ? lo[k] - q[k] : (q[k] > hi[k] ? q[k] - hi[k] : 0.0);
  return (e[0] * e[0] + e[1] * e[1]) + e[2] * e[2];
}

// corner_box_dist2 of triangle (a, b, c)'s corner box.
XHD_HD double corner_box_dist2(Dvec3 p, Dvec3 a, Dvec3 b, Dvec3 c) {
  const CornerBox box = corner_box(a, b, c);
  return corner_box_dist2(p, box.lo, box.hi);
}

// The surface value of a triangle at p, the squared distance every search and the reference compare: the
// closest point's computed square (closest_on_triangle), raised to the corner box's square (corner_box_dist2,
// passed in) where that is larger. The box's square is at most the true square to 5u, below the bound above,
// so the value keeps that bound. Why the box: a query far from a flat part of a mesh (1e10 away from a face of
// 638 coplanar triangles) has its computed distances to all of them tie within rounding, and the nearest
// (ties to the smallest index) would need every one evaluated. Each value is at least its box's square, and a
// node's box square is at most that (monotone rounding), so a search skips any box whose square exceeds the
// best value, or equals it with every triangle inside of a larger index than the best's: exact pruning of
// rounding ties, with no evaluation. Far away the box squares of a face's triangles round alike, and so do
// most of their values.
XHD_HD SurfacePoint surface_value(Dvec3 p, Dvec3 a, Dvec3 b, Dvec3 c, double box_d2) {
  SurfacePoint s = closest_on_triangle(p, a, b, c);
  if (box_d2 > s.d2) s.d2 = box_d2;
  return s;
}

// Whether a triangle (or every triangle of a node) whose corner-box square is box_d2 and whose index is at
// least `least` can no longer win against the best value best_d2 of triangle best (ties to the smallest index).
XHD_HD bool cannot_win(double box_d2, uint32_t least, double best_d2, uint32_t best) {
  return box_d2 > best_d2 || (box_d2 == best_d2 && least >= best);
}

// Squared distance from p to the nearest point of a float box, in double: a lower bound of the
// distance to anything inside it.
XHD_HD double min_dist2_double(Dvec3 p, const Box& box) {
  const double q[3] = {p.x, p.y, p.z};
  double s = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double below = static_cast<double>(box.min[i]) - q[i];
    const double above = q[i] - static_cast<double>(box.max[i]);
    const double d = below > 0.0 ? below : (above > 0.0 ? above : 0.0);
    s += d * d;
  }
  return s;
}

}  // namespace xhd
