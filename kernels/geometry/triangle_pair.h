// Exact distances between two triangles, in double precision from float corners, for every backend.
// Minimum: the triangles intersect when an edge of one crosses the other (distance 0); otherwise the
// closest pair is a vertex against the other triangle (6 tests) or an edge against an edge (9 tests).
// Maximum: the farthest pair of two convex sets is a pair of their corners (9 tests). Degenerate
// triangles are their edges and corners; nothing divides by a zero length or area. Every test runs in a
// fixed order and keeps the first of equal candidates, so every backend returns the same points.
#pragma once

#include <initializer_list>

#include "point_triangle.h"

namespace xhd {

struct Corners3 {
  Dvec3 v[3];
};

struct PairPoints {
  double d2;      // squared distance between on_a and on_b
  Dvec3 on_a;     // the point of the first triangle
  Dvec3 on_b;     // the point of the second
  bool crossing;  // the triangles share a point: they cross or touch (minimum only)
};

XHD_HD double larger_abs(double m, double x) { return (x < 0.0 ? -x : x) > m ? (x < 0.0 ? -x : x) : m; }

XHD_HD double clamp_unit(double x) { return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x); }

// Closest points of segments [p0, p1] and [q0, q1]; a zero-length segment is its point.
XHD_HD PairPoints closest_segments(Dvec3 p0, Dvec3 p1, Dvec3 q0, Dvec3 q1) {
  const Dvec3 d1 = dsub(p1, p0), d2 = dsub(q1, q0), r = dsub(p0, q0);
  const double a = ddot(d1, d1), e = ddot(d2, d2), f = ddot(d2, r);
  double s = 0.0, t = 0.0;
  if (a > 0.0 && e > 0.0) {
    const double b = ddot(d1, d2), c = ddot(d1, r);
    const double denom = a * e - b * b;  // >= 0; 0 when the segments are parallel
    s = denom > 0.0 ? clamp_unit((b * f - c * e) / denom) : 0.0;
    t = (b * s + f) / e;
    if (t < 0.0) {
      t = 0.0;
      s = clamp_unit(-c / a);
    } else if (t > 1.0) {
      t = 1.0;
      s = clamp_unit((b - c) / a);
    }
  } else if (a > 0.0) {
    s = clamp_unit(-ddot(d1, r) / a);
  } else if (e > 0.0) {
    t = clamp_unit(f / e);
  }
  const Dvec3 x = {p0.x + s * d1.x, p0.y + s * d1.y, p0.z + s * d1.z};
  const Dvec3 y = {q0.x + t * d2.x, q0.y + t * d2.y, q0.z + t * d2.z};
  const Dvec3 d = dsub(x, y);
  return {ddot(d, d), x, y, false};
}

// Whether segment [p, q] crosses the triangle's interior or boundary with its endpoints strictly on
// opposite sides of the plane; *at receives the crossing point. A degenerate triangle has no plane:
// whatever crosses it is found by the segment tests instead.
// A triangle thinner than 2^-30 of its edges (|n| <= 2^-30 |e1| |e2|) counts as having no plane here too: its
// computed normal is then mostly rounding, the side tests along it can be wrong, and two such slivers that
// are skew segments 0.14 apart were reported crossing (distance 0). Its edges are within its width (below
// 2^-30 of its edges) of every point of it, so the segment tests find its distance to that accuracy instead.
constexpr double kThinTriangle2 = 0x1p-60;  // (2^-30)^2

XHD_HD bool has_reliable_plane(const Dvec3& e1, const Dvec3& e2, const Dvec3& n) {
  return ddot(n, n) > kThinTriangle2 * ddot(e1, e1) * ddot(e2, e2);
}

// An endpoint's side counts only where its height above the plane exceeds the rounding of that height
// (a few ulps of |p - v0| |e1| |e2|; 1e-13 of it leaves a wide margin): a segment lying in the plane, or
// grazing it, has heights of rounding noise, often of opposite signs, and every turn of the line test below
// is then noise too, so a segment lying in the plane of a triangle 4 units away was taken for a crossing
// (distance 0). Such segments are left to the point and segment tests, which measure them.
XHD_HD bool segment_crosses_triangle(Dvec3 p, Dvec3 q, const Corners3& t, Dvec3* at) {
  const Dvec3 e1 = dsub(t.v[1], t.v[0]), e2 = dsub(t.v[2], t.v[0]);
  const Dvec3 n = dcross(e1, e2);
  if (!has_reliable_plane(e1, e2, n)) return false;
  const Dvec3 dp = dsub(p, t.v[0]), dq = dsub(q, t.v[0]);
  const double hp = ddot(dp, n), hq = ddot(dq, n);
  if (!((hp > 0.0 && hq < 0.0) || (hp < 0.0 && hq > 0.0))) return false;
  const double noise2 = 1e-26 * ddot(e1, e1) * ddot(e2, e2);  // (1e-13 |e1| |e2|)^2
  if (!(hp * hp > noise2 * ddot(dp, dp)) || !(hq * hq > noise2 * ddot(dq, dq))) return false;
  // The line pq passes inside when it turns the same way around all three edges.
  const Dvec3 pq = dsub(q, p);
  const double s0 = ddot(pq, dcross(dsub(t.v[0], p), dsub(t.v[1], p)));
  const double s1 = ddot(pq, dcross(dsub(t.v[1], p), dsub(t.v[2], p)));
  const double s2 = ddot(pq, dcross(dsub(t.v[2], p), dsub(t.v[0], p)));
  if (!((s0 >= 0.0 && s1 >= 0.0 && s2 >= 0.0) || (s0 <= 0.0 && s1 <= 0.0 && s2 <= 0.0))) return false;
  const double u = hp / (hp - hq);
  *at = {p.x + u * pq.x, p.y + u * pq.y, p.z + u * pq.z};
  // The turns are noise too where the line nearly holds an edge of the triangle (its corners within rounding
  // of the line): a segment far along that line passed. A crossing stands only where its point lies within
  // 1e-12 of the coordinates' magnitude of the triangle (as the searches' pruning slack), so a wrong one
  // could hide a distance of at most that; otherwise the point and segment tests measure the pair.
  double scale = 0.0;
  for (const Dvec3& v : {p, q, t.v[0], t.v[1], t.v[2]})
    for (int k = 0; k < 3; ++k) scale = larger_abs(scale, dget(v, k));
  const double room = 1e-12 * scale;
  return closest_on_triangle(*at, t.v[0], t.v[1], t.v[2]).d2 <= room * room;
}

XHD_HD void keep_nearer(PairPoints& best, const PairPoints& candidate) {
  if (candidate.d2 < best.d2) best = candidate;
}

// The exact minimum distance between triangles a and b, with its two points.
XHD_HD PairPoints triangle_pair_min(const Corners3& a, const Corners3& b) {
  Dvec3 at;
  for (int e = 0; e < 3; ++e)
    if (segment_crosses_triangle(a.v[e], a.v[(e + 1) % 3], b, &at)) return {0.0, at, at, true};
  for (int e = 0; e < 3; ++e)
    if (segment_crosses_triangle(b.v[e], b.v[(e + 1) % 3], a, &at)) return {0.0, at, at, true};
  PairPoints best{static_cast<double>(INFINITY), {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, false};
  for (int k = 0; k < 3; ++k) {
    const SurfacePoint s = closest_on_triangle(a.v[k], b.v[0], b.v[1], b.v[2]);
    keep_nearer(best, {s.d2, a.v[k], s.at, false});
  }
  for (int k = 0; k < 3; ++k) {
    const SurfacePoint s = closest_on_triangle(b.v[k], a.v[0], a.v[1], a.v[2]);
    keep_nearer(best, {s.d2, s.at, b.v[k], false});
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) keep_nearer(best, closest_segments(a.v[i], a.v[(i + 1) % 3], b.v[j], b.v[(j + 1) % 3]));
  best.crossing = best.d2 == 0.0;  // touching counts: the two share a point
  return best;
}

// triangle_pair_min and triangle_pair_max taken apart into their tests, one at a time, for a GPU warp that gives
// each test a lane (the leaf pairs of the mesh distance search: a single thread ran the minimum's 21 tests in a
// row, 12-16 us on an H200 for one pair of touching triangles). Each function's d2 is the least (the greatest) of
// its tests' values, whatever order they are taken in: the minimum is 0 where any edge crosses the other
// triangle (a crossing test's value: 0 where it holds, +inf where it does not), else the least candidate; the
// maximum is the greatest of the nine corner pairs. So the reduction of these values is the whole function's
// d2, bit for bit (kernels/tests: every test case, and random pairs). Only d2: the points are the whole
// function's to give.
constexpr int kPairMinTests = 21, kPairMaxTests = 9;

// Corner i (0-2) of c, chosen by selection rather than by indexing: on a GPU an array indexed by a value known only
// at run time is kept in local memory, and every use of the corners then waits on it.
XHD_HD Dvec3 corner_at(const Corners3& c, int i) { return i == 0 ? c.v[0] : (i == 1 ? c.v[1] : c.v[2]); }
XHD_HD Corners3 either(bool first, const Corners3& a, const Corners3& b) { return first ? a : b; }

// Each kind of test is called once, its operands chosen first (a's edge or b's, a's corner or b's): on a GPU the
// lanes of one kind then run one copy of its code, not one for each triangle in turn.
XHD_HD double triangle_pair_min_test(const Corners3& a, const Corners3& b, int k) {
  Dvec3 at;
  if (k < 6) {
    const bool own = k < 3;  // a's edge crossing b, else b's crossing a
    const Corners3 edges = either(own, a, b), other = either(own, b, a);
    const int e = own ? k : k - 3;
    return segment_crosses_triangle(corner_at(edges, e), corner_at(edges, e == 2 ? 0 : e + 1), other, &at)
               ? 0.0
               : static_cast<double>(INFINITY);
  }
  if (k < 12) {
    const bool own = k < 9;  // a's corner on b, else b's on a
    const Dvec3 corner = own ? corner_at(a, k - 6) : corner_at(b, k - 9);
    const Corners3 other = either(own, b, a);
    return closest_on_triangle(corner, other.v[0], other.v[1], other.v[2]).d2;
  }
  const int i = (k - 12) / 3, j = (k - 12) % 3;
  return closest_segments(corner_at(a, i), corner_at(a, i == 2 ? 0 : i + 1), corner_at(b, j),
                          corner_at(b, j == 2 ? 0 : j + 1))
      .d2;
}

XHD_HD double triangle_pair_max_test(const Corners3& a, const Corners3& b, int k) {
  const Dvec3 d = dsub(a.v[k / 3], b.v[k % 3]);
  return ddot(d, d);
}

// How far apart a and b lie along a's computed normal n (0 if their extents along it overlap, or a has no
// normal), squared. Any direction separates two convex sets by at most their distance, so this is a lower
// bound for whatever n the rounding produced, provided both triangles' extents along n are measured: for
// corners collinear up to rounding, n is rounding noise and not perpendicular to a's edges, so a's own
// corners do not share one height along it (taking them as all at height 0 overstated the gap many times
// over). The heights are dot products of differences, each within a few ulps of |difference| |n|: the
// callers' pruning slack (1e-12 of the coordinates) covers that.
//
// A triangle thinner than 2^-30 of its edges has no normal here, as in segment_crosses_triangle: its computed
// normal is mostly rounding.
XHD_HD double plane_separation2(const Corners3& a, const Corners3& b) {
  const Dvec3 e1 = dsub(a.v[1], a.v[0]), e2 = dsub(a.v[2], a.v[0]);
  const Dvec3 n = dcross(e1, e2);
  const double nn = ddot(n, n);
  if (!has_reliable_plane(e1, e2, n)) return 0.0;
  double a_lo = 0.0, a_hi = 0.0;  // a.v[0] is at height 0
  for (int k = 1; k < 3; ++k) {
    const double h = ddot(dsub(a.v[k], a.v[0]), n);
    a_lo = h < a_lo ? h : a_lo;
    a_hi = h > a_hi ? h : a_hi;
  }
  double b_lo = ddot(dsub(b.v[0], a.v[0]), n), b_hi = b_lo;
  for (int k = 1; k < 3; ++k) {
    const double h = ddot(dsub(b.v[k], a.v[0]), n);
    b_lo = h < b_lo ? h : b_lo;
    b_hi = h > b_hi ? h : b_hi;
  }
  const double gap = b_lo > a_hi ? b_lo - a_hi : (a_lo > b_hi ? a_lo - b_hi : 0.0);
  return gap * gap / nn;
}

// How far apart a and b lie along the line through their centroids (0 if their extents along it overlap),
// squared. For two small triangles far apart, a pair's distance is nearly its centroids' distance less their
// extents along that line, which this keeps; a normal's separation does not grow with the pair's sideways
// offset at all. On 3DPipe's nuclei within 400 of its vessels, where a vessel's triangles in a patch hundreds of
// units wide all face a nucleus at about the same height, the normals and the boxes (which lose up to a
// triangle's size) left about 860 triangle pairs an object pair to evaluate even with the answer known
// (docs/benchmarks.md). The direction n is 3 (centroid of b - centroid of a), from differences to a's first
// corner; any direction bounds the distance, and the heights' rounding is a few ulps of |corner - a.v[0]| |n|,
// which the callers' pruning slack covers as for plane_separation2.
XHD_HD double centroid_axis_separation2(const Corners3& a, const Corners3& b) {
  Dvec3 n = {0.0, 0.0, 0.0};
  for (int k = 0; k < 3; ++k) {
    const Dvec3 db = dsub(b.v[k], a.v[0]), da = dsub(a.v[k], a.v[0]);
    n = {n.x + db.x - da.x, n.y + db.y - da.y, n.z + db.z - da.z};
  }
  const double nn = ddot(n, n);
  if (!(nn > 0.0) || !(nn < static_cast<double>(INFINITY))) return 0.0;
  double a_hi = 0.0;  // a.v[0] is at height 0; b lies along +n
  for (int k = 1; k < 3; ++k) {
    const double h = ddot(dsub(a.v[k], a.v[0]), n);
    a_hi = h > a_hi ? h : a_hi;
  }
  double b_lo = ddot(dsub(b.v[0], a.v[0]), n);
  for (int k = 1; k < 3; ++k) {
    const double h = ddot(dsub(b.v[k], a.v[0]), n);
    b_lo = h < b_lo ? h : b_lo;
  }
  const double gap = b_lo > a_hi ? b_lo - a_hi : 0.0;
  return gap * gap / nn;
}

// A cheap lower bound of triangle_pair_min (squared): the separation along either triangle's normal.
// Two convex sets are at least as far apart as their projections on any direction.
XHD_HD double triangle_pair_lower2(const Corners3& a, const Corners3& b) {
  const double ab = plane_separation2(a, b), ba = plane_separation2(b, a);
  return ab > ba ? ab : ba;
}

// The join's cut (join.cpp, join_refine.cuh): whether a and b lie more than sqrt(r2) apart along the line
// through their centroids or along either normal, the centroid line tried first (it prunes most pairs that lie
// apart, for a third of the cost of the two normals). The mesh distance searches keep triangle_pair_lower2: their
// work counts are recorded in fixtures, and the centroid line has not been measured there.
XHD_HD bool triangle_pair_beyond(const Corners3& a, const Corners3& b, double r2) {
  return centroid_axis_separation2(a, b) > r2 || plane_separation2(a, b) > r2 || plane_separation2(b, a) > r2;
}

// The exact maximum distance between triangles a and b: their farthest pair of corners.
XHD_HD PairPoints triangle_pair_max(const Corners3& a, const Corners3& b) {
  PairPoints best{-1.0, a.v[0], b.v[0], false};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const Dvec3 d = dsub(a.v[i], b.v[j]);
      const double d2 = ddot(d, d);
      if (d2 > best.d2) best = {d2, a.v[i], b.v[j], false};
    }
  return best;
}

}  // namespace xhd
