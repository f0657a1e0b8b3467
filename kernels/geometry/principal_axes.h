// A node's box axes (oriented_box.h), one definition for the CPU's build and the GPU's: principal axes of a
// covariance (closed form, Jacobi rotations where the eigenvalues are too close), and a leaf's from its first
// triangle. Any orthonormal axes give a valid box; these give a thin one.
#pragma once

#include <cmath>

#include "box_math.h"
#include "oriented_box.h"
#include "point_triangle.h"

namespace xhd {

// The eigenvectors of a symmetric 3x3 matrix (columns of v), by cyclic Jacobi rotations. Any orthonormal
// axes give a valid box; the principal ones give a thin one.
XHD_HD void principal_axes(double a[3][3], double v[3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) v[i][j] = i == j ? 1.0 : 0.0;
  // Rough axes do: a box along them is valid, only a little thicker.
  for (int sweep = 0; sweep < 6; ++sweep) {
    const double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    const double diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];
    if (!(off > 1e-12 * diag)) return;
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        if (a[p][q] == 0.0) continue;
        const double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
        const double t = fabs(theta) > 1e150
                             ? 0.5 / theta
                             : copysign(1.0, theta) / (fabs(theta) + sqrt(theta * theta + 1.0));
        const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < 3; ++k) {
          const double kp = a[k][p], kq = a[k][q];
          a[k][p] = c * kp - s * kq;
          a[k][q] = s * kp + c * kq;
        }
        for (int k = 0; k < 3; ++k) {
          const double pk = a[p][k], qk = a[q][k];
          a[p][k] = c * pk - s * qk;
          a[q][k] = s * pk + c * qk;
        }
        for (int k = 0; k < 3; ++k) {
          const double kp = v[k][p], kq = v[k][q];
          v[k][p] = c * kp - s * kq;
          v[k][q] = s * kp + c * kq;
        }
      }
  }
}

XHD_HD Dvec3 unit(Dvec3 v) {
  const double n = sqrt(ddot(v, v));
  return {v.x / n, v.y / n, v.z / n};
}

// Axes u0 and (u1 made orthogonal to it), completed by their cross product; orthonormal in double, then
// rounded to float (the bounds allow for that). False where they do not span a plane.
XHD_HD bool set_axes(Dvec3 u0, Dvec3 u1, OrientedBox& box) {
  if (!(ddot(u0, u0) > 0.0)) return false;
  u0 = unit(u0);
  const double along = ddot(u1, u0);
  u1 = {u1.x - along * u0.x, u1.y - along * u0.y, u1.z - along * u0.z};
  if (!(ddot(u1, u1) > 1e-12 * ddot(u0, u0))) return false;
  u1 = unit(u1);
  const Dvec3 u[3] = {u0, u1, dcross(u0, u1)};
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 3; ++k) box.u[j][k] = static_cast<float>(dget(u[j], k));
  return true;
}

// The eigenvector of symmetric a for its eigenvalue lambda: the largest cross product of two rows of
// a - lambda I (their common normal). False where every such product is rounding noise (lambda repeated).
XHD_HD bool eigenvector_of(const double a[3][3], double lambda, Dvec3& v) {
  const Dvec3 r0 = {a[0][0] - lambda, a[0][1], a[0][2]}, r1 = {a[1][0], a[1][1] - lambda, a[1][2]},
              r2 = {a[2][0], a[2][1], a[2][2] - lambda};
  const Dvec3 c[3] = {dcross(r0, r1), dcross(r0, r2), dcross(r1, r2)};
  int best = 0;
  double best_n = ddot(c[0], c[0]);
  for (int k = 1; k < 3; ++k) {
    const double n = ddot(c[k], c[k]);
    if (n > best_n) best = k, best_n = n;
  }
  const double rows = ddot(r0, r0) + ddot(r1, r1) + ddot(r2, r2);
  if (!(best_n > 1e-18 * rows * rows)) return false;
  v = unit(c[best]);  // unit, for set_axes's test of the second axis against the first's length
  return true;
}

// The principal axes of symmetric a in closed form: its eigenvalues from the trigonometric solution of the
// characteristic cubic, then the eigenvectors of the two extreme ones, the better separated first. A few
// hundred operations where the Jacobi rotations took a few thousand (a quarter of the oriented shapes' time on
// the spheres). False where the eigenvalues are too close for it (the caller then rotates).
XHD_HD bool closed_form_axes(const double a[3][3], OrientedBox& box) {
  const double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
  const double q = (a[0][0] + a[1][1] + a[2][2]) / 3.0;
  const double d0 = a[0][0] - q, d1 = a[1][1] - q, d2 = a[2][2] - q;
  const double p = sqrt((d0 * d0 + d1 * d1 + d2 * d2 + 2.0 * off) / 6.0);
  if (!(p > 1e-6 * fabs(q))) return false;  // nearly isotropic: no direction stands out
  double b[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) b[i][j] = (a[i][j] - (i == j ? q : 0.0)) / p;
  const double det = b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1]) -
                     b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0]) +
                     b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0]);
  const double r = fmax(-1.0, fmin(1.0, det / 2.0));
  const double phi = acos(r) / 3.0;
  const double largest = q + 2.0 * p * cos(phi), smallest = q + 2.0 * p * cos(phi + 2.0943951023931957);
  const double middle = 3.0 * q - largest - smallest;
  // Each vector is found from the gap between its eigenvalue and the others; the wider gap goes first, and the
  // other vector is then only asked to be independent of it (set_axes makes it orthogonal). Where the other two
  // eigenvalues are equal (a patch as wide as it is long: most internal nodes of the spheres), every direction
  // across the first is principal: the coordinate axis least along it.
  const bool largest_first = largest - middle >= middle - smallest;
  Dvec3 first, second;
  if (!eigenvector_of(a, largest_first ? largest : smallest, first)) return false;
  if (!eigenvector_of(a, largest_first ? smallest : largest, second)) {
    const double ax = fabs(first.x), ay = fabs(first.y), az = fabs(first.z);
    second = ax <= ay && ax <= az ? Dvec3{1, 0, 0} : (ay <= az ? Dvec3{0, 1, 0} : Dvec3{0, 0, 1});
  }
  return set_axes(first, second, box);
}

// The principal axes of a covariance (a is its matrix; Jacobi's rotations work on a copy).
XHD_HD void covariance_axes(const double cov[3][3], OrientedBox& box) {
  if (closed_form_axes(cov, box)) return;
  double a[3][3], axes[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a[i][j] = cov[i][j];
  principal_axes(a, axes);
  if (!set_axes({axes[0][0], axes[1][0], axes[2][0]}, {axes[0][1], axes[1][1], axes[2][1]}, box))
    set_axes({1, 0, 0}, {0, 1, 0}, box);
}

// A leaf's axes from its first triangle (corners as stored, 9 floats): along its first edge, across it in its
// plane, and its normal. The edges are made unit first, so that set_axes's test of the second axis (against 1e-12
// of the first's length squared) asks only for corners not collinear, whatever the triangle's size. False for a
// degenerate triangle (the caller takes the moments' axes).
XHD_HD bool triangle_axes(const float* corners, OrientedBox& box) {
  const Dvec3 a = dload(corners), b = dload(corners + 3), c = dload(corners + 6);
  const Dvec3 ab = dsub(b, a), ac = dsub(c, a);
  const double lab = sqrt(ddot(ab, ab)), lac = sqrt(ddot(ac, ac));
  if (!(lab > 0.0 && lac > 0.0)) return false;
  const Dvec3 along = {ab.x / lab, ab.y / lab, ab.z / lab}, other = {ac.x / lac, ac.y / lac, ac.z / lac};
  return set_axes(along, dcross(dcross(along, other), along), box);
}

}  // namespace xhd
