// How far a float32 search can be from the truth, so that it can serve as a filter for exact answers.
//
// The truth is the double-precision distance between the input's own coordinates (doubles, or float32
// for files that store float32). The searches run on float32 copies p' = fl(p - o) of every point p,
// relative to one origin o near the data. Two things separate a computed float value from the truth:
//
//  1. Input rounding. |p - o - p'| <= E for every point (Euclidean), so for any pair the real distance
//     D' between the float copies and the true distance D differ by at most 2E. E = 0 when the floats are
//     the input itself (float32 files, o = 0).
//  2. Arithmetic. Every squared quantity the searches compare (a pair's dist2, a box's MinDist^2 or
//     MaxDist^2) is three differences of floats, three squares and two sums. Each operation rounds with
//     relative error at most u = 2^-24 (differences included: fl(a - b) = (a - b)(1 + e)); the terms are
//     non-negative, so in any order, with or without fused multiply-adds, the computed value c of an
//     exact value X satisfies |c - X| <= 6u/(1 - 6u) X < kRelative X, plus kAbsolute where it underflows.
//     The CPU grid places cells in double from float points: a point may sit in a neighbouring cell by
//     the rounding of its cell coordinate, at most kPlacementSlack times the largest coordinate magnitude
//     M, which adds to the slack (point_frame.h; the GPU's padded cell boxes need nothing more).
//
// So with S = 2E + kPlacementSlack * M + sqrt(2 kAbsolute) (the slack, in distance units):
//   a pair whose computed squared distance is c is truly at most   upper(c) = sqrt((c + A) / (1 - K)) + S,
//   a region whose computed lower bound is c is truly at least     lower(c) = sqrt((c - A) / (1 + K)) - S.
// below(d) and reach(d) invert these with a further 2^-40 relative margin that covers their own double
// rounding (a handful of operations at 2^-53 each), and round to float in the safe direction.
#pragma once

#include <cmath>

#include "box_math.h"  // XHD_HD: the bounds are used on the host and inside GPU kernels

namespace xhd {

// How far a float copy fl32(fl64(x - o)) of a point can be from x - o (Euclidean), when the largest
// |coordinate| of the copy is `largest`. Per coordinate the double difference rounds by at most 2^-53 of
// itself and the float by at most 2^-24 of the result (2^-149 absolute below the normal range): together
// below 2^-24 (1 + 2^-20) of the largest float. Three coordinates: sqrt(3) < 1.75.
inline double float_copy_error(double largest) {
  return 1.75 * (largest * std::ldexp(1.0 + std::ldexp(1.0, -20), -24) + std::ldexp(1.0, -149));
}

struct FilterBounds {
  static constexpr double kRelative = 1.0 / (1 << 20);  // K: 16u, well above 6u/(1 - 6u)
  static constexpr double kAbsolute = 1e-36;            // A: float underflow near zero (normal min 1.2e-38)
  static constexpr double kMargin = 1.0 / (1ull << 40);

  double slack = 0.0;         // S
  bool copies_exact = false;  // E = 0: the float copies are the input's coordinates, or those less the origin exactly

  // An upper bound on the true distance of a pair whose computed float squared distance is c.
  XHD_HD double upper(float c) const {
    const double t = (c + kAbsolute) / (1.0 - kRelative);
    return sqrt(t > 0.0 ? t : 0.0) + slack;
  }
  // A lower bound on the true distance to anything in a region whose computed squared lower bound is c.
  XHD_HD double lower(float c) const {
    const double t = (c - kAbsolute) / (1.0 + kRelative);
    return sqrt(t > 0.0 ? t : 0.0) - slack;
  }

  // The largest float t (or -1 when none) such that a computed squared distance <= t proves the pair is
  // truly closer than d, strictly: upper(t) < d.
  XHD_HD float below(double d) const {
    const double room = d - slack;
    if (!(room > 0.0)) return -1.f;
    const double t = room * room * (1.0 - kRelative) * (1.0 - kMargin) - kAbsolute;
    if (!(t >= 0.0)) return -1.f;
    float f = static_cast<float>(t);
    if (static_cast<double>(f) > t) f = nextafterf(f, -1.f);
    return f;
  }

  // A float r such that every pair truly within d has a computed squared distance <= r, and every box or
  // cell holding such a point a computed squared MinDist <= r.
  XHD_HD float reach(double d) const {
    const double r = d + slack;
    const double t = r * r * (1.0 + kRelative) * (1.0 + kMargin) + kAbsolute;
    float f = static_cast<float>(t);
    if (static_cast<double>(f) < t) f = nextafterf(f, INFINITY);
    return f;
  }

  // The pruning threshold while the largest settled nearest distance is computed as c: any query within
  // it of some target point is truly nearer than that settled query, so it cannot be a witness, ties
  // included. -1 (nothing pruned) while c < 0.
  XHD_HD float prune_threshold(float c) const { return c < 0.f ? -1.f : below(lower(c)); }
};

}  // namespace xhd
