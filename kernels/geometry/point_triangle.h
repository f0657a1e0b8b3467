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

// Closest point of triangle (a, b, c) to p, as an offset from a. ap = p - a, ab = b - a, ac = c - a.
XHD_HD SurfacePoint closest_on_triangle_local(Dvec3 ap, Dvec3 ab, Dvec3 ac) {
  const Dvec3 n = dcross(ab, ac);
  const double nn = ddot(n, n);
  const Dvec3 bc = dsub(ac, ab), bp = dsub(ap, ab), cp = dsub(ap, ac);
  if (nn > 0.0) {
    // p projects inside when it lies on the inner side of all three edges (seen along n).
    const Dvec3 pa = {-ap.x, -ap.y, -ap.z}, pb = {-bp.x, -bp.y, -bp.z}, pc = {-cp.x, -cp.y, -cp.z};
    const bool in_ab = ddot(dcross(pa, pb), n) >= 0.0;
    const bool in_bc = ddot(dcross(pb, pc), n) >= 0.0;
    const bool in_ca = ddot(dcross(pc, pa), n) >= 0.0;
    if (in_ab && in_bc && in_ca) {
      const double h = ddot(ap, n) / nn;  // signed height over the plane, in units of n
      const Dvec3 q = {ap.x - h * n.x, ap.y - h * n.y, ap.z - h * n.z};
      const Dvec3 d = dsub(ap, q);
      return {ddot(d, d), q};
    }
    // Outside a convex polygon, the nearest boundary point lies on an edge whose inner side p misses.
    SurfacePoint best{static_cast<double>(INFINITY), {0.0, 0.0, 0.0}};
    if (!in_ab) best = nearer(best, closest_on_segment_local(ap, ab));
    if (!in_bc) best = nearer(best, shifted(closest_on_segment_local(bp, bc), ab));
    if (!in_ca) best = nearer(best, shifted(closest_on_segment_local(cp, {-ac.x, -ac.y, -ac.z}), ac));
    return best;
  }
  return nearer(nearer(closest_on_segment_local(ap, ab), shifted(closest_on_segment_local(bp, bc), ab)),
                shifted(closest_on_segment_local(cp, {-ac.x, -ac.y, -ac.z}), ac));
}

// Closest point of segment [a, b] to p (a zero-length segment is the point a).
XHD_HD SurfacePoint closest_on_segment(Dvec3 p, Dvec3 a, Dvec3 b) {
  return shifted(closest_on_segment_local(dsub(p, a), dsub(b, a)), a);
}

// Exact closest point of the triangle to p: its squared distance, and the point in p's coordinates.
XHD_HD SurfacePoint closest_on_triangle(Dvec3 p, Dvec3 a, Dvec3 b, Dvec3 c) {
  return shifted(closest_on_triangle_local(dsub(p, a), dsub(b, a), dsub(c, a)), a);
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
