// Oriented 26-DOPs: per node, how far its vertices reach along the 26 directions s0·u0 + s1·u1 + s2·u2 of
// its oriented box's axes (each s in {-1, 0, 1}, not all 0). A patch of a curved surface fills its oriented box
// poorly: the surface bends away from the box's corners and edges, and two facing patches seen at a slant
// are told apart only by the bevels there. The bevels make the bound near the patches' true distance where
// a box bound stays short by their bulge, which on curved scenes cut the box pairs a search visits 2–5x.
// CPU backend only (the GPU keeps the paper's boxes).
#pragma once

#include <cstdint>

#include "oriented_box.h"

namespace xhd {

// Where direction s is stored: the 3x3x3 cube of signs, its centre (13) unused.
constexpr int kDopSlots = 27;
inline int dop_slot(int s0, int s1, int s2) { return 9 * (s0 + 1) + 3 * (s1 + 1) + (s2 + 1); }
constexpr int kDopFace[3] = {9, 3, 1};  // slot 13 ± kDopFace[j]: the face directions ±u_j

// A node's reaches along the 26 directions of its oriented box's axes u_j, measured from the box's centre,
// kept beside the boxes and read only where the boxes do not cut (60 bytes a node). Stored in units of
// r·sqrt(3)/65535, rounded up: no reach exceeds |s|·r <= sqrt(3)·r, and a negative one is stored as 0
// (still an upper bound).
struct DopReaches {
  uint16_t h[kDopSlots];
  float r;  // the node's radius about the box's centre, at most
};

// Plain comparisons: std::fmax's NaN rules keep it from being one instruction.
inline double larger(double a, double b) { return a > b ? a : b; }
inline double smaller(double a, double b) { return a < b ? a : b; }

inline double dop_unit(float r) { return static_cast<double>(r) * (1.7320508075688773 / 65535.0); }

// A DOP ready for the bounds, in double: A's as stored, B's moved by the pose.
struct DopView {
  Dvec3 c;
  Dvec3 u[3];
  const uint16_t* h;
  double unit;   // of h
  double slack;  // added to every reach: axes orthonormal only to float precision (any unit n differs
                 // from sum_j (n·u_j) u_j by under 1e-6, times the radius), and B's posed vertices' rounding
};

inline DopView dop_view(const OrientedBox& box, const DopReaches& d) {
  return {fvec(box.c), {fvec(box.u[0]), fvec(box.u[1]), fvec(box.u[2])}, d.h, dop_unit(d.r), kAxisSlack * d.r};
}

// B's, from its box already moved (move_oriented_box, which widened its extents by eps).
inline DopView dop_view(const MovedOrientedBox& box, const DopReaches& d, double eps) {
  return {box.c, {box.u[0], box.u[1], box.u[2]}, d.h, dop_unit(d.r), kAxisSlack * d.r + 2.0 * eps};  // sqrt(3)·eps at most
}

// An upper bound of max over the node of n·(v - c), for a unit n with components l_j = n·u_j. Ordered
// by size |l_a| >= |l_b| >= |l_c|, n is a sum with non-negative weights of a face direction f, an edge
// direction f + e_b and a corner direction f + e_b + e_c (signed as n): its reach is at most the same sum
// of their reaches.
inline double dop_reach(const DopView& d, const double l[3]) {
  const double m0 = std::fabs(l[0]), m1 = std::fabs(l[1]), m2 = std::fabs(l[2]);
  // Branch-free: the order of three magnitudes is data, and mispredicted branches cost more than the rest.
  const double top = larger(m0, larger(m1, m2)), low = smaller(m0, smaller(m1, m2));
  const double mid = (m0 + m1 + m2) - top - low;  // rounding far below the reaches' slack
  const int s0 = l[0] < 0.0 ? -1 : 1, s1 = l[1] < 0.0 ? -1 : 1, s2 = l[2] < 0.0 ? -1 : 1;
  const int corner = dop_slot(s0, s1, s2);
  // The edge drops the smallest component's sign, the face keeps only the largest's; picked by 0/1
  // products (ties pick either: their weight in the sum is then 0).
  const int low0 = (m0 <= m1) & (m0 <= m2), low1 = (1 - low0) & (m1 <= m2), low2 = 1 - low0 - low1;
  const int top0 = (m0 >= m1) & (m0 >= m2), top1 = (1 - top0) & (m1 >= m2), top2 = 1 - top0 - top1;
  const int small = low0 * 9 * s0 + low1 * 3 * s1 + low2 * s2;
  const int large = top0 * 9 * s0 + top1 * 3 * s1 + top2 * s2;
  const double units = (top - mid) * d.h[13 + large] + (mid - low) * d.h[corner - small] + low * d.h[corner];
  return units * d.unit + d.slack;
}

// A lower bound of the distance between A's DOP and B's moved DOP: the largest separation along a few
// directions, found by Gilbert's iteration on the two oriented boxes (their face reaches), starting from
// the line between the centres. Any direction gives a valid bound; `steps` more refine it. Returns as
// soon as a separation exceeds `enough` (then the pair is cut anyway).
inline double dop_gap(const DopView& a, const DopView& b, int steps, double enough) {
  const Dvec3 d = dsub(b.c, a.c);
  Dvec3 x = d;
  double best = 0.0;
  for (int k = 0;; ++k) {
    const double xx = ddot(x, x);
    if (!(xx > 0.0)) break;
    const double inv = 1.0 / std::sqrt(xx);
    const Dvec3 n = {x.x * inv, x.y * inv, x.z * inv};
    const double la[3] = {ddot(n, a.u[0]), ddot(n, a.u[1]), ddot(n, a.u[2])};
    const double lb[3] = {-ddot(n, b.u[0]), -ddot(n, b.u[1]), -ddot(n, b.u[2])};
    const double sep = ddot(n, d) - dop_reach(a, la) - dop_reach(b, lb);
    if (sep > best) best = sep;
    if (best > enough || k == steps) break;
    // The boxes' farthest points towards each other along n; x moves to the point of the segment from x to
    // their difference nearest the origin.
    Dvec3 pa = a.c, pb = b.c;
    for (int j = 0; j < 3; ++j) {
      const int sa = la[j] < 0.0 ? -1 : 1, sb = lb[j] < 0.0 ? -1 : 1;
      const double ea = a.unit * sa * a.h[13 + sa * kDopFace[j]];
      const double eb = b.unit * sb * b.h[13 + sb * kDopFace[j]];
      pa = {pa.x + ea * a.u[j].x, pa.y + ea * a.u[j].y, pa.z + ea * a.u[j].z};
      pb = {pb.x + eb * b.u[j].x, pb.y + eb * b.u[j].y, pb.z + eb * b.u[j].z};
    }
    const Dvec3 step = dsub(dsub(pb, pa), x);
    const double ss = ddot(step, step);
    if (!(ss > 0.0)) break;
    double t = -ddot(x, step) / ss;
    t = smaller(larger(t, 0.0), 1.0);
    x = {x.x + t * step.x, x.y + t * step.y, x.z + t * step.z};
  }
  return best;
}

}  // namespace xhd
