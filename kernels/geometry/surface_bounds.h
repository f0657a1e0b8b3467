// How far the surface searches' filters (hierarchy boxes, grid cells, triangle boxes) must reach so they
// never drop a triangle the exact answer could choose, with every margin proportional to the geometry it
// concerns (the query's distance, the triangle's own size and coordinates) rather than to the largest
// coordinate of the whole input: one vertex at 6.5e10 must not widen the filters around a mesh of size 1.
//
// Evaluation error. closest_on_triangle (point_triangle.h) proves its computed distance d_c(T) (the root of the
// computed square) within 12.2u dist(p, T) + 204u diam(T) of the true distance, u = 2^-53, diam(T) the longest
// edge, and surface_value (the value every search and the reference compare) keeps that bound: the inside
// decision is made only where rounding cannot flip it, so the error grows with the distance and the triangle's
// size alone, never with |p - a|^2. With E = the largest extent of T's box (diam(T) <= 3^0.5 E):
// e(T) = 2^-49 dist(p, T) + 2^-44 E bounds it with room to spare.
//
// Lemma W (who can still win). Let b^2 be the best computed square so far. A triangle that can still win or
// tie has d_c(T) <= b, so dist(p, T) (1 - 2^-49) <= b + 2^-44 E, hence
//     dist(p, T) <= b (1 + 2^-48) + 2^-43 E.
// So a region R (box, cell) that holds T widened by its own pad 2^-43 E (T + ball of that radius) lies within
// b (1 + 2^-48) of p: its exact squared distance is at most b^2 (1 + 2^-47 + 2^-96); computed (a difference,
// three squares, two sums: relative 2^-50) from a query rounded by 2^-52 of |p - o| <= dist + |R| (the |R| part
// is in each region's pad, the rest is relative 2^-51 on the square), at most b^2 (1 + 2^-47 + 2^-49 + 2^-50 +
// 2^-95) < b^2 (1 + 2^-46). Every region whose computed lower bound exceeds reach2(b^2) = b^2 (1 + 2^-46)
// (computed: within 2^-53 of itself, still above that) is therefore safe to skip. The absolute 2^-1000 covers
// squares that underflow near zero. Regions also widen by 2^-50 of their own largest coordinate, for the rounding
// of their placement.
// At 6.5e10 from a mesh the reach is 5e-4 past the best distance; with the bound of 2^-40 of the distance assumed
// before the proven evaluation it was 0.24, a good part of a unit-sized mesh.
#pragma once

#include <cmath>

#include "box_math.h"

namespace xhd {

constexpr double kSurfaceReachFactor = 1.0 + 1.0 / (1ull << 46);
constexpr double kSurfaceUnderflow = 9.33e-302;  // 2^-1000
// Per unit of a triangle's extent: its own pad (Lemma W).
constexpr double kTrianglePadPerExtent = 1.0 / (1ull << 43);
// Per unit of a region's largest coordinate: the rounding of its placement and of the query's coordinates.
constexpr double kPlacementPerMagnitude = 1.0 / (1ull << 50);

// The largest computed squared lower bound a region may have and still hold a triangle that can win or tie
// against a best computed square of d2.
XHD_HD double surface_reach2(double d2) { return d2 * kSurfaceReachFactor + kSurfaceUnderflow; }

// A triangle's own pad: what Lemma W and its box's rounding ask of any region said to hold it, given its
// box's largest extent and largest coordinate magnitude.
XHD_HD double triangle_pad(double extent, double magnitude) {
  return kTrianglePadPerExtent * extent + kPlacementPerMagnitude * magnitude + 1e-300;
}

// Doubles rounded outward to float, for boxes that must hold what they bound.
XHD_HD float round_down_to_float(double v) {
  float f = static_cast<float>(v);
  if (static_cast<double>(f) > v) f = nextafterf(f, -static_cast<float>(INFINITY));
  return f;
}
XHD_HD float round_up_to_float(double v) {
  float f = static_cast<float>(v);
  if (static_cast<double>(f) < v) f = nextafterf(f, static_cast<float>(INFINITY));
  return f;
}

}  // namespace xhd
