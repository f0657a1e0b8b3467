// How far B must move to leave A, for the convex hulls of their vertices: the expanding polytope method (EPA) on
// the Minkowski difference K = A - B, written for bounds rather than for a single answer.
//   upper: for any unit u, moving B by h_K(u) along u (h_K the support function: max u.a - min u.b) puts every
//          vertex of B on the far side of every vertex of A along u, which separates the hulls and so the meshes,
//          convex or not. The smallest h_K(u) met is kept.
//   lower: a polytope whose corners are support points of K lies inside K; while it holds the origin, the
//          origin's distance to its nearest face (less that distance's rounding) bounds the hulls' depth
//          from below. That bounds the meshes' depth only where each mesh is its own hull (convex solids).
// Each step splits the nearest face by K's support point along its normal, until that point lies within `slack`
// of the face: then the two bounds meet within the slack and the rounding, the hulls' depth found.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xhd {

struct HullPenetration {
  bool apart = false;      // h_K(u) <= 0 as computed for some u: the hulls are apart or touch (to its rounding)
  bool converged = false;  // the bounds met (else the step cap or a degenerate polytope stopped the steps)
  double lower = 0.0;      // the hulls' depth is at least this (0 while the polytope does not hold the origin)
  double upper = 0.0;      // moving B by this along `direction` separates the hulls (slack included; 0 when apart
                           // by more than the slack)
  double direction[3] = {0.0, 0.0, 0.0};
  uint32_t steps = 0;
};

// a, b: vertices (3 doubles each) of which only those named in used_a / used_b count (B as posed). slack: what
// the bounds are widened by (their rounding is far below it). threads: for the support scans.
HullPenetration hull_penetration(const double* a, const uint32_t* used_a, size_t count_a, const double* b,
                                 const uint32_t* used_b, size_t count_b, double slack, int threads);

}  // namespace xhd
