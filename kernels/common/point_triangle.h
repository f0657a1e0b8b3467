// Exact closest point of a triangle to a point, in double precision, for every backend.
// Robust by construction rather than by case analysis of barycentric signs: the answer is the plane
// projection when it falls inside the triangle, else the nearest of the three edges. Degenerate
// triangles (repeated vertices, collinear corners) have no plane and are their edges, which are
// segments or single points; nothing divides by a zero area.
#pragma once

#include <cmath>

#include "box_math.h"

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

struct SurfacePoint {
  double d2;  // squared distance from the query
  Dvec3 at;   // the closest point
};

// Closest point of segment [a, b] to p; a zero-length segment is the point a.
XHD_HD SurfacePoint closest_on_segment(Dvec3 p, Dvec3 a, Dvec3 b) {
  const Dvec3 ab = dsub(b, a);
  const double len2 = ddot(ab, ab);
  double t = len2 > 0.0 ? ddot(dsub(p, a), ab) / len2 : 0.0;
  t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
  const Dvec3 q = {a.x + t * ab.x, a.y + t * ab.y, a.z + t * ab.z};
  const Dvec3 d = dsub(p, q);
  return {ddot(d, d), q};
}

XHD_HD SurfacePoint nearer(SurfacePoint u, SurfacePoint v) { return v.d2 < u.d2 ? v : u; }

XHD_HD SurfacePoint closest_on_triangle(Dvec3 p, Dvec3 a, Dvec3 b, Dvec3 c) {
  const Dvec3 n = dcross(dsub(b, a), dsub(c, a));
  const double nn = ddot(n, n);
  if (nn > 0.0) {
    // p projects inside when it lies on the inner side of all three edges (seen along n).
    const Dvec3 pa = dsub(a, p), pb = dsub(b, p), pc = dsub(c, p);
    const bool in_ab = ddot(dcross(pa, pb), n) >= 0.0;
    const bool in_bc = ddot(dcross(pb, pc), n) >= 0.0;
    const bool in_ca = ddot(dcross(pc, pa), n) >= 0.0;
    if (in_ab && in_bc && in_ca) {
      const double h = ddot(dsub(p, a), n) / nn;  // signed height over the plane, in units of n
      const Dvec3 q = {p.x - h * n.x, p.y - h * n.y, p.z - h * n.z};
      const Dvec3 d = dsub(p, q);
      return {ddot(d, d), q};
    }
    // Outside a convex polygon, the nearest boundary point lies on an edge whose inner side p misses.
    SurfacePoint best{static_cast<double>(INFINITY), {0.0, 0.0, 0.0}};
    if (!in_ab) best = nearer(best, closest_on_segment(p, a, b));
    if (!in_bc) best = nearer(best, closest_on_segment(p, b, c));
    if (!in_ca) best = nearer(best, closest_on_segment(p, c, a));
    return best;
  }
  return nearer(nearer(closest_on_segment(p, a, b), closest_on_segment(p, b, c)), closest_on_segment(p, c, a));
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
