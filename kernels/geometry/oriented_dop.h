// Oriented 26-DOPs: per node, how far its vertices reach along the 26 directions s0·u0 + s1·u1 + s2·u2 of
// its oriented box's axes (each s in {-1, 0, 1}, not all 0). A patch of a curved surface fills its oriented box
// poorly: the surface bends away from the box's corners and edges, and two facing patches seen at a slant
// are told apart only by the bevels there. The bevels make the bound near the patches' true distance where
// a box bound stays short by their bulge, which on curved scenes cut the box pairs a search visits 2–5x.
// Two bounds: along the boxes' thinnest axes (cheap, for patches facing each other), and along the line
// between the centres refined by Gilbert steps. Both backends: the GPU builds its own reaches (f12_build_gpu.h).
#pragma once

#include <cmath>
#include <cstdint>

#include "oriented_box.h"

namespace xhd {

// Where direction s is stored: the 3x3x3 cube of signs, its centre (13) unused.
constexpr int kDopSlots = 27;
XHD_HD constexpr int dop_slot(int s0, int s1, int s2) { return 9 * (s0 + 1) + 3 * (s1 + 1) + (s2 + 1); }
// Slot 13 ± dop_face(j): the face directions ±u_j.
XHD_HD constexpr int dop_face(int j) { return j == 0 ? 9 : (j == 1 ? 3 : 1); }

// A node's reaches along the 26 directions of its oriented box's axes u_j, measured from the box's centre,
// kept beside the boxes and read only where the boxes do not cut (60 bytes a node). Stored in units of
// r·sqrt(3)/65535, rounded up: no reach exceeds |s|·r <= sqrt(3)·r, and a negative one is stored as 0
// (still an upper bound).
struct DopReaches {
  uint16_t h[kDopSlots];
  float r;  // the node's radius about the box's centre, at most
};

// Plain comparisons: std::fmax's NaN rules keep it from being one instruction.
XHD_HD double larger(double a, double b) { return a > b ? a : b; }
XHD_HD double smaller(double a, double b) { return a < b ? a : b; }

XHD_HD double dop_unit(float r) { return static_cast<double>(r) * (1.7320508075688773 / 65535.0); }

// A DOP ready for the bounds: its oriented box in double (A's as stored, B's moved by the pose) and its
// reaches.
struct DopView {
  const MovedOrientedBox* box;
  const uint16_t* h;
  double unit;   // of h
  double slack;  // added to every reach: axes orthonormal only to float precision (any unit n differs
                 // from sum_j (n·u_j) u_j by under 1e-6, times the radius), and B's posed vertices' rounding
};

// A's: `box` is as_double of its stored box. B's: `box` was moved (move_oriented_box, which widened its
// extents by eps) and `eps` is that rounding again (sqrt(3)·eps at most along any direction).
XHD_HD DopView dop_view(const MovedOrientedBox& box, const DopReaches& d, double eps = 0.0) {
  return {&box, d.h, dop_unit(d.r), kAxisSlack * d.r + 2.0 * eps};
}

// For a direction with components l_j along the axes, ordered by size |l_a| >= |l_b| >= |l_c|: the slots
// of its face direction f (sign of l_a along u_a), edge direction f + e_b and corner direction f + e_b + e_c
// (signed as l). Indexed by the signs (bit j: l_j < 0) and three comparisons (bit 3: |l_0| < |l_1|,
// bit 4: |l_1| < |l_2|, bit 5: |l_0| < |l_2|); ties pick either, as their weight in the sum is then 0.
struct DopPick {
  uint8_t face, edge, corner;
};

XHD_HD constexpr DopPick dop_pick(int bits) {
  int sign[3] = {};
  for (int j = 0; j < 3; ++j) sign[j] = (bits >> j & 1) ? -1 : 1;
  const bool lt01 = bits >> 3 & 1, lt12 = bits >> 4 & 1, lt02 = bits >> 5 & 1;
  const int top = !lt01 && !lt02 ? 0 : (lt01 && !lt12 ? 1 : 2);
  const int low = lt01 && lt02 ? 0 : (!lt01 && lt12 ? 1 : 2);
  const int corner = dop_slot(sign[0], sign[1], sign[2]);
  return {static_cast<uint8_t>(13 + sign[top] * dop_face(top)),
          static_cast<uint8_t>(corner - sign[low] * dop_face(low)),
          static_cast<uint8_t>(corner)};
}

// The host looks the picks up (a table of 64); a GPU thread works them out (a few integer operations: a table
// would need a copy in device memory).
struct DopPicks {
  DopPick at[64];
  constexpr DopPicks() : at() {
    for (int bits = 0; bits < 64; ++bits) at[bits] = dop_pick(bits);
  }
};

inline constexpr DopPicks kDopPicks{};

// An upper bound of |n|·max over the node of n_hat·(v - c), for n with components l_j = n·u_j (not
// necessarily unit; the slack is not included). n is a sum with non-negative weights of its face, edge and
// corner directions (DopPick): its reach is at most the same sum of their reaches.
XHD_HD double dop_reach(const DopView& d, const double l[3]) {
  const double m0 = fabs(l[0]), m1 = fabs(l[1]), m2 = fabs(l[2]);
  // Branch-free: the order of three magnitudes is data, and mispredicted branches cost more than the rest.
  const double top = larger(m0, larger(m1, m2)), low = smaller(m0, smaller(m1, m2));
  const double mid = (m0 + m1 + m2) - top - low;  // rounding far below the reaches' slack
  const int bits =
      (l[0] < 0.0) | (l[1] < 0.0) << 1 | (l[2] < 0.0) << 2 | (m0 < m1) << 3 | (m1 < m2) << 4 | (m0 < m2) << 5;
#ifdef __CUDA_ARCH__
  const DopPick p = dop_pick(bits);
#else
  const DopPick p = kDopPicks.at[bits];
#endif
  return ((top - mid) * d.h[p.face] + (mid - low) * d.h[p.edge] + low * d.h[p.corner]) * d.unit;
}

// A lower bound of the distance between A's DOP and B's moved DOP, cheaper than dop_gap: the larger
// separation along the two boxes' thinnest axes, each pointed from its box towards the other. Along its own
// axis a DOP reaches its face reach; only the other DOP's reach needs the decomposition. Patches of a
// surface are thin along their normal, so for patches facing each other (terrains, a ball in a shell) this
// is the telling direction, and the other DOP's bevels make it tighter than the oriented boxes' bound.
XHD_HD double dop_thin_gap(const DopView& a, const DopView& b) {
  const Dvec3 d = dsub(b.box->c, a.box->c);
  double best = 0.0;
  for (int side = 0; side < 2; ++side) {
    const DopView &own = side ? b : a, &other = side ? a : b;
    const MovedOrientedBox &box = *own.box, &far = *other.box;
    const double* e = box.e;
    const int j = e[0] < e[1] ? (e[0] < e[2] ? 0 : 2) : (e[1] < e[2] ? 1 : 2);
    const double towards = side ? -ddot(box.u[j], d) : ddot(box.u[j], d);  // along u_j, to the other box
    const int s = towards < 0.0 ? -1 : 1;
    const Dvec3 x = {s * box.u[j].x, s * box.u[j].y, s * box.u[j].z};
    const double l[3] = {-ddot(x, far.u[0]), -ddot(x, far.u[1]), -ddot(x, far.u[2])};  // the other's, back along x
    const double raw = s * towards - own.h[13 + s * dop_face(j)] * own.unit - dop_reach(other, l);  // times |x|
    best = larger(best, raw / sqrt(ddot(x, x)) - (a.slack + b.slack));
  }
  return best;
}

// One of Gilbert's steps towards the direction that best separates two convex sets: x moves to the point nearest
// the origin of the segment from x to pb - pa, where pa and pb are the sets' farthest points towards each other
// along x. False where x would not move (another step would repeat this one). The DOP gap and both backends' hull
// gaps take these steps.
XHD_HD bool gilbert_step(Dvec3& x, const Dvec3& pa, const Dvec3& pb) {
  const Dvec3 step = dsub(dsub(pb, pa), x);
  const double ss = ddot(step, step);
  if (!(ss > 0.0)) return false;
  const double t = smaller(larger(-ddot(x, step) / ss, 0.0), 1.0);
  if (!(t > 0.0)) return false;
  x = {x.x + t * step.x, x.y + t * step.y, x.z + t * step.z};
  return true;
}

// A lower bound of the distance between A's DOP and B's moved DOP: the largest separation along a few
// directions, found by Gilbert's iteration on the two oriented boxes (their face reaches), starting from
// the line between the centres. Any direction gives a valid bound; `steps` more refine it. Returns as
// soon as a separation exceeds `enough` (then the pair is cut anyway). The directions stay unnormalised:
// the next one needs only the signs, so the square root and division are off the iteration's path.
XHD_HD double dop_gap(const DopView& a, const DopView& b, int steps, double enough) {
  const MovedOrientedBox &ba = *a.box, &bb = *b.box;
  const Dvec3 d = dsub(bb.c, ba.c);
  const double slack = a.slack + b.slack, enough_raw2 = (enough + slack) * (enough + slack);
  Dvec3 x = d;
  double best = 0.0;
  for (int k = 0;; ++k) {
    const double xx = ddot(x, x);
    if (!(xx > 0.0)) break;
    const double la[3] = {ddot(x, ba.u[0]), ddot(x, ba.u[1]), ddot(x, ba.u[2])};
    const double lb[3] = {-ddot(x, bb.u[0]), -ddot(x, bb.u[1]), -ddot(x, bb.u[2])};
    const double raw = ddot(x, d) - dop_reach(a, la) - dop_reach(b, lb);  // the separation times |x|
    best = larger(best, raw / sqrt(xx) - slack);
    if ((raw > 0.0 && raw * raw > enough_raw2 * xx) || k == steps) break;
    // The boxes' farthest points towards each other along x.
    Dvec3 pa = ba.c, pb = bb.c;
    for (int j = 0; j < 3; ++j) {
      const int sa = la[j] < 0.0 ? -1 : 1, sb = lb[j] < 0.0 ? -1 : 1;
      const double ea = a.unit * sa * a.h[13 + sa * dop_face(j)];
      const double eb = b.unit * sb * b.h[13 + sb * dop_face(j)];
      pa = {pa.x + ea * ba.u[j].x, pa.y + ea * ba.u[j].y, pa.z + ea * ba.u[j].z};
      pb = {pb.x + eb * bb.u[j].x, pb.y + eb * bb.u[j].y, pb.z + eb * bb.u[j].z};
    }
    if (!gilbert_step(x, pa, pb)) break;
  }
  return best;
}

}  // namespace xhd
