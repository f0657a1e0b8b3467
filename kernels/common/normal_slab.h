// Normal slabs: the extent of a node's geometry along its mean normal. For a patch of a smooth surface the
// slab is far thinner than the node's box (the sagitta against the box's side), so two patches facing
// each other across a small gap, the common case near a minimum distance, are told apart long before
// their boxes are. A lower bound only: it never replaces the tight boxes the enhanced bounds rely on.
#pragma once

#include "box_math.h"
#include "point_triangle.h"

namespace xhd {

// Every vertex v of the node satisfies lo <= u·v <= hi for the float vector u (unit to float precision),
// or u is zero when the node's normals spread too widely for a slab to help (the box alone is used then).
struct Slab {
  float u[3];
  double lo, hi;
};

XHD_HD bool has_slab(const Slab& s) { return s.u[0] != 0.f || s.u[1] != 0.f || s.u[2] != 0.f; }

// A box as centre and half extents, in double (exact for float boxes).
struct CentredBox {
  Dvec3 c, h;
};

XHD_HD CentredBox centred(const Box& b) {
  return {{0.5 * (static_cast<double>(b.min[0]) + b.max[0]), 0.5 * (static_cast<double>(b.min[1]) + b.max[1]),
           0.5 * (static_cast<double>(b.min[2]) + b.max[2])},
          {0.5 * (static_cast<double>(b.max[0]) - b.min[0]), 0.5 * (static_cast<double>(b.max[1]) - b.min[1]),
           0.5 * (static_cast<double>(b.max[2]) - b.min[2])}};
}

// The node's extent along the direction w: the box's projection, narrowed by the slab when there is one
// (w = α u + p: α·[lo, hi] plus the box's projection on p).
XHD_HD void node_extent(const CentredBox& box, const Slab& slab, Dvec3 w, double* lo, double* hi) {
  const Dvec3 c = box.c, h = box.h;
  const double cw = ddot(c, w), hw = h.x * fabs(w.x) + h.y * fabs(w.y) + h.z * fabs(w.z);
  *lo = cw - hw;
  *hi = cw + hw;
  if (!has_slab(slab)) return;
  const Dvec3 u = {slab.u[0], slab.u[1], slab.u[2]};
  const double alpha = ddot(u, w);
  const Dvec3 p = {w.x - alpha * u.x, w.y - alpha * u.y, w.z - alpha * u.z};
  const double cp = ddot(c, p), hp = h.x * fabs(p.x) + h.y * fabs(p.y) + h.z * fabs(p.z);
  const double slo = alpha >= 0.0 ? alpha * slab.lo : alpha * slab.hi;
  const double shi = alpha >= 0.0 ? alpha * slab.hi : alpha * slab.lo;
  const double nlo = slo + cp - hp, nhi = shi + cp + hp;
  *lo = nlo > *lo ? nlo : *lo;
  *hi = nhi < *hi ? nhi : *hi;
}

// How far apart the slab of one node and the extent of the other along its normal are.
XHD_HD double slab_separation(const Slab& slab, const CentredBox& other_box, const Slab& other_slab) {
  if (!has_slab(slab)) return 0.0;
  double lo, hi;
  node_extent(other_box, other_slab, {slab.u[0], slab.u[1], slab.u[2]}, &lo, &hi);
  const double gap = lo - slab.hi > slab.lo - hi ? lo - slab.hi : slab.lo - hi;
  // u is unit only to float precision: the gap along u, over |u|, is the distance it proves.
  const double norm = sqrt(static_cast<double>(slab.u[0]) * slab.u[0] + static_cast<double>(slab.u[1]) * slab.u[1] +
                           static_cast<double>(slab.u[2]) * slab.u[2]);
  return gap > 0.0 ? gap / norm : 0.0;
}

// A lower bound of the minimum distance between two nodes (squared), from both slabs.
XHD_HD double slab_gap2(const CentredBox& ba, const Slab& sa, const CentredBox& bb, const Slab& sb) {
  const double ga = slab_separation(sa, bb, sb), gb = slab_separation(sb, ba, sa);
  const double g = ga > gb ? ga : gb;
  return g * g;
}

// A slab under the rigid motion v -> R v + t (R orthogonal), widened by eps for the rounding of the
// moved vertices.
XHD_HD Slab move_slab(const Slab& s, const double* pose, double eps) {
  if (!has_slab(s)) return s;
  Slab out;
  double shift = 0.0;
  for (int r = 0; r < 3; ++r) {
    const double ur = pose[4 * r] * s.u[0] + pose[4 * r + 1] * s.u[1] + pose[4 * r + 2] * s.u[2];
    out.u[r] = static_cast<float>(ur);
    shift += ur * pose[4 * r + 3];
  }
  // eps also covers rounding R u to float (the interval is for R u itself).
  out.lo = s.lo + shift - eps;
  out.hi = s.hi + shift + eps;
  return out;
}

}  // namespace xhd
