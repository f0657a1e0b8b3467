// Oriented boxes: per node, a box along the principal axes of the node's vertices. A patch of a smooth
// surface is thin along its normal and long along the surface, so two patches facing each other, or lying
// side by side, are told apart at sizes where their axis-aligned boxes (as thick as they are long) still
// overlap. Used for the minimum distance only: the GPU bounds it by the boxes' gap; the CPU measures the
// nodes' DOPs along the boxes' axes instead (oriented_dop.h). The tight axis-aligned boxes stay for the
// enhanced bounds.
#pragma once

#include "point_triangle.h"

namespace xhd {

// Every vertex v of the node satisfies |u_j·(v - c)| <= e_j. The axes are orthonormal to float precision;
// the bounds below allow for that (the box is the parallelepiped spanned by the dual basis, within 1e-6).
struct OrientedBox {
  float c[3];
  float u[3][3];
  float e[3];
};

// A box of B under a rigid pose [M | t]: its centre and axes moved (in double), the half extents widened by
// the rounding of B's posed vertices to float.
struct MovedOrientedBox {
  Dvec3 c;
  Dvec3 u[3];
  double e[3];
};

XHD_HD Dvec3 fvec(const float* v) { return {v[0], v[1], v[2]}; }

XHD_HD MovedOrientedBox move_oriented_box(const OrientedBox& b, const double* m, double eps) {
  MovedOrientedBox out;
  double c[3];
  for (int r = 0; r < 3; ++r)
    c[r] = ((m[4 * r] * b.c[0] + m[4 * r + 1] * b.c[1]) + m[4 * r + 2] * b.c[2]) + m[4 * r + 3];
  out.c = {c[0], c[1], c[2]};
  for (int j = 0; j < 3; ++j) {
    const float* u = b.u[j];
    out.u[j] = {m[0] * u[0] + m[1] * u[1] + m[2] * u[2], m[4] * u[0] + m[5] * u[1] + m[6] * u[2],
                m[8] * u[0] + m[9] * u[1] + m[10] * u[2]};
    out.e[j] = static_cast<double>(b.e[j]) + eps;
  }
  return out;
}

// Slack for axes orthonormal only to float precision: a share of the other box's extents added to every
// projected half extent, and a share taken off the squared gap.
constexpr double kAxisSlack = 1e-6;

// A box of A as it is, in double (the same type as B's moved boxes, so both sides share one code path).
XHD_HD MovedOrientedBox as_double(const OrientedBox& b) {
  return {fvec(b.c), {fvec(b.u[0]), fvec(b.u[1]), fvec(b.u[2])}, {b.e[0], b.e[1], b.e[2]}};
}

XHD_HD double positive(double x) { return x > 0.0 ? x : 0.0; }

// A lower bound of the squared distance between A's box and B's moved box. In A's axes, B's box is bounded
// by the box of its projections; the gaps on three orthonormal axes add in squares. The same in B's axes;
// the larger of the two counts.
XHD_HD double oriented_gap2(const MovedOrientedBox& a, const MovedOrientedBox& b) {
  const Dvec3 d = dsub(b.c, a.c);
  double r[3][3];  // r[i][j] = |a_i · b_j| + slack
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r[i][j] = fabs(ddot(a.u[i], b.u[j])) + kAxisSlack;
  double in_a = 0.0, in_b = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double g = fabs(ddot(a.u[i], d)) - a.e[i] - (b.e[0] * r[i][0] + b.e[1] * r[i][1] + b.e[2] * r[i][2]);
    in_a += positive(g) * positive(g);
  }
  const double be_sum = b.e[0] + b.e[1] + b.e[2];
  for (int j = 0; j < 3; ++j) {
    const double g =
        fabs(ddot(b.u[j], d)) - b.e[j] - kAxisSlack * be_sum - (a.e[0] * r[0][j] + a.e[1] * r[1][j] + a.e[2] * r[2][j]);
    in_b += positive(g) * positive(g);
  }
  return (in_a > in_b ? in_a : in_b) * (1.0 - 4.0 * kAxisSlack);
}

XHD_HD double oriented_gap2(const OrientedBox& a, const MovedOrientedBox& b) { return oriented_gap2(as_double(a), b); }

}  // namespace xhd
