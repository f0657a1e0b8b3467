// What every backend's mesh–mesh distance shares: the candidate pair and its order (ties to the smallest
// triangle of A, then of B), the pruning slack, and the argument checks.
#pragma once

#include <cmath>
#include <cstring>
#include <string>

#include "f12_bvh.h"
#include "../abi/validate.h"
#include "xhd.h"

namespace xhd {

// Widening of a moved box, relative to the coordinates: the rounding of a posed vertex to float
// (2^-24 a coordinate) and of the double arithmetic, with room to spare. Every backend widens by it.
constexpr double kMovedSlack = 4e-7;

struct Candidate {
  double d2;
  uint32_t ta, tb;  // original triangle indices
  PairPoints at;
};

// Is x a better answer than y? Minimum: smaller; maximum: larger; equal distances: smaller indices.
template <bool kMax>
XHD_HD bool better_candidate(const Candidate& x, const Candidate& y) {
  if (x.d2 != y.d2) return kMax ? x.d2 > y.d2 : x.d2 < y.d2;
  return x.ta != y.ta ? x.ta < y.ta : x.tb < y.tb;
}

template <bool kMax>
XHD_HD Candidate empty_candidate() {
  Candidate c;
  c.d2 = kMax ? -1.0 : static_cast<double>(INFINITY);
  c.ta = c.tb = 0xffffffffu;
  c.at = {c.d2, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, false};
  return c;
}

// The largest absolute coordinate a box reaches.
inline double largest_coordinate(const Box& b) {
  double scale = 0.0;
  for (int k = 0; k < 3; ++k) scale = std::fmax(scale, std::fmax(std::fabs(b.min[k]), std::fabs(b.max[k])));
  return scale;
}

// The largest absolute coordinate among `count` floats.
inline double largest_coordinate(const float* xyz, uint64_t count) {
  double scale = 0.0;
  for (uint64_t i = 0; i < count; ++i) scale = std::fmax(scale, std::fabs(static_cast<double>(xyz[i])));
  return scale;
}

// B as A sees it under a query's pose, for the searches of both backends, which move B's boxes (fitted once in
// B's own frame) when they reach them: nothing of B is re-posed or refitted per query. A box moves to a
// parallelepiped, bounded by its axis-aligned box, widened by eps (the rounding of B's posed vertices).
struct BoxMotion {
  double m[12];   // the frame pose (mesh_frame.h): B's copy into A's, row by row
  double abs[9];  // |its 3x3 part|
  double eps;
  double moved_scale;  // the largest coordinate of B as posed (its moved root box)

  // The box moved, as centre and half extents of its axis-aligned bound in A's frame, widened.
  XHD_HD CentredBox moved(const Box& box, double widen) const {
    const CentredBox local = centred(box);
    double c[3], h[3];
    for (int r = 0; r < 3; ++r) {
      c[r] = ((m[4 * r] * local.c.x + m[4 * r + 1] * local.c.y) + m[4 * r + 2] * local.c.z) + m[4 * r + 3];
      h[r] = abs[3 * r] * local.h.x + abs[3 * r + 1] * local.h.y + abs[3 * r + 2] * local.h.z + widen;
    }
    return {{c[0], c[1], c[2]}, {h[0], h[1], h[2]}};
  }
  XHD_HD CentredBox moved(const Box& box) const { return moved(box, eps); }
};

// The motion of B's boxes by the frame pose, B's root box being b_root: eps from the moved root's scale. Refuses a
// pose that moves B beyond the float range (every posed vertex lies within the moved root box, to rounding).
inline BoxMotion box_motion(const double* frame_pose, const Box& b_root) {
  BoxMotion out{};
  for (int i = 0; i < 12; ++i) out.m[i] = frame_pose[i];
  for (int i = 0; i < 9; ++i) out.abs[i] = std::fabs(frame_pose[4 * (i / 3) + i % 3]);
  const CentredBox root = out.moved(b_root, 0.0);
  out.moved_scale = 0.0;
  for (int k = 0; k < 3; ++k) out.moved_scale = std::fmax(out.moved_scale, std::fabs(dget(root.c, k)) + dget(root.h, k));
  if (!(out.moved_scale < 3e38)) throw InvalidArgument("the pose moves B's vertices beyond the float range");
  out.eps = kMovedSlack * (out.moved_scale + largest_coordinate(b_root));
  return out;
}

// Box bounds and exact distances round differently; pruning keeps every pair within this slack of the
// bound, so no pair whose rounded exact distance could win (or tie) is ever cut. Each exact candidate is
// the distance between two points computed, a few dozen operations in double, on the two triangles: within
// a few dozen ulps (2^-53) of the largest coordinate of the truth of where it should be. 1e-12 (about
// 9,000 ulps) of that coordinate is far above the rounding of either and far below any distance a user
// reads. Where the filters are float copies of double inputs, their distance from the truth is added on
// top (mesh_frame.h).
inline double pruning_slack(double largest_coordinate) { return 1e-12 * largest_coordinate; }

inline void write_pair(const Candidate& c, xhd_distance_pair& out) {
  out.distance = std::sqrt(c.d2);
  out.triangle_a = c.ta;
  out.triangle_b = c.tb;
  const double pa[3] = {c.at.on_a.x, c.at.on_a.y, c.at.on_a.z}, pb[3] = {c.at.on_b.x, c.at.on_b.y, c.at.on_b.z};
  std::memcpy(out.point_a, pa, sizeof(pa));
  std::memcpy(out.point_b, pb, sizeof(pb));
  out.intersecting = c.at.crossing ? 1 : 0;
}

inline void reset_distance_result(xhd_distance_result& r) {
  std::memset(&r, 0, sizeof(r));
  r.min.triangle_a = r.min.triangle_b = r.max.triangle_a = r.max.triangle_b = XHD_NO_INDEX;
  r.device = -1;
  for (int k = 0; k < 3; ++k) r.contact_min[k] = r.contact_max[k] = std::nan("");
  r.penetration_lower = r.penetration_upper = std::nan("");
}

// The contact facts of XHD_DISTANCE_CONTACTS, gathered pair by pair (in any order: a count and a union of
// boxes, so every backend and thread split gives the same bits).
struct Contacts {
  uint64_t pairs = 0;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};

  // A pair at distance 0: the overlap of its triangles' boxes (never empty: they share a point) joins the union.
  XHD_HD void add(const Corners3& a, const Corners3& b) {
    ++pairs;
    for (int k = 0; k < 3; ++k) {
      double alo = dget(a.v[0], k), ahi = alo, blo = dget(b.v[0], k), bhi = blo;
      for (int i = 1; i < 3; ++i) {
        const double x = dget(a.v[i], k), y = dget(b.v[i], k);
        alo = x < alo ? x : alo, ahi = x > ahi ? x : ahi, blo = y < blo ? y : blo, bhi = y > bhi ? y : bhi;
      }
      // + 0.0: a -0 corner counts as +0, so the union's bits do not depend on the order pairs come in.
      const double from = (alo > blo ? alo : blo) + 0.0, to = (ahi < bhi ? ahi : bhi) + 0.0;
      lo[k] = from < lo[k] ? from : lo[k];
      hi[k] = to > hi[k] ? to : hi[k];
    }
  }
  void merge(const Contacts& o) {
    pairs += o.pairs;
    for (int k = 0; k < 3; ++k) lo[k] = std::fmin(lo[k], o.lo[k]), hi[k] = std::fmax(hi[k], o.hi[k]);
  }
  void write(xhd_distance_result& r) const {
    r.contact_pairs = pairs;
    for (int k = 0; k < 3; ++k) {
      r.contact_min[k] = pairs > 0 ? lo[k] : std::nan("");
      r.contact_max[k] = pairs > 0 ? hi[k] : std::nan("");
    }
  }
};

inline void check_distance_call(const xhd_mesh* a, const xhd_mesh* b, const xhd_distance_options* options) {
  if (options == nullptr) throw InvalidArgument("options must not be null");
  constexpr int32_t kKnown = XHD_DISTANCE_MIN | XHD_DISTANCE_MAX | XHD_DISTANCE_CONTACTS | XHD_DISTANCE_ON_DEMAND |
                             XHD_DISTANCE_PENETRATION;
  if ((options->which & (XHD_DISTANCE_MIN | XHD_DISTANCE_MAX)) == 0 || (options->which & ~kKnown) != 0)
    throw InvalidArgument(
        "which must be XHD_DISTANCE_MIN, XHD_DISTANCE_MAX or both (and XHD_DISTANCE_CONTACTS, XHD_DISTANCE_ON_DEMAND, "
        "XHD_DISTANCE_PENETRATION)");
  if ((options->which & XHD_DISTANCE_CONTACTS) != 0 && (options->which & XHD_DISTANCE_MIN) == 0)
    throw InvalidArgument("XHD_DISTANCE_CONTACTS needs XHD_DISTANCE_MIN");
  if ((options->which & XHD_DISTANCE_PENETRATION) != 0 && (options->which & XHD_DISTANCE_MIN) == 0)
    throw InvalidArgument("XHD_DISTANCE_PENETRATION needs XHD_DISTANCE_MIN");
  if (options->method != XHD_DISTANCE_BVH && options->method != XHD_DISTANCE_BRUTE)
    throw InvalidArgument("unknown distance method " + std::to_string(options->method));
  if (options->threads < 0) throw InvalidArgument("threads must be >= 0");
  check_mesh(a);
  check_mesh(b);
}

inline void check_pose(const double* pose) {
  if (pose == nullptr) return;
  for (int i = 0; i < 12; ++i)
    if (!std::isfinite(pose[i])) throw InvalidArgument("the pose has a non-finite entry");
}

constexpr double kIdentityPose[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};

}  // namespace xhd
