// What every backend's xhd_points_compare shares: whether per-point outputs were asked for, their checks,
// and the rule that takes a direction's Hausdorff distance and witness from its per-point values.
#pragma once

#include <cmath>
#include <cstdint>

#include "validate.h"
#include "xhd.h"

namespace xhd {

// One direction's caller-owned outputs (either may be null).
struct PerPointOut {
  double* distance = nullptr;
  int64_t* nearest = nullptr;
};

inline bool wants_per_point(const xhd_per_point* p) {
  return p != nullptr && (p->distance_ab != nullptr || p->nearest_ab != nullptr || p->distance_ba != nullptr ||
                          p->nearest_ba != nullptr);
}

// Outputs for a direction that is not measured would silently stay unwritten: refused instead.
inline void check_per_point(const xhd_per_point& p, int directions) {
  if (!(directions & XHD_DIRECTION_AB) && (p.distance_ab != nullptr || p.nearest_ab != nullptr))
    throw InvalidArgument("per-point outputs for A -> B given, but directions does not ask for A -> B");
  if (!(directions & XHD_DIRECTION_BA) && (p.distance_ba != nullptr || p.nearest_ba != nullptr))
    throw InvalidArgument("per-point outputs for B -> A given, but directions does not ask for B -> A");
}

inline PerPointOut per_point_ab(const xhd_per_point& p) { return {p.distance_ab, p.nearest_ab}; }
inline PerPointOut per_point_ba(const xhd_per_point& p) { return {p.distance_ba, p.nearest_ba}; }

// The witness of a direction from its per-point values, as xhd_hausdorff picks it (finish_directed.cpp,
// exact_refine.cu): the largest squared distance (compared as squares: two different squares can share a
// square root), among equal ones the smallest source index; to is that point's nearest. Offers may come in
// any order (threads, chunks): the rule is a total order, so the answer does not depend on it.
struct PerPointWitness {
  double dist2 = -1.0;
  int64_t from = XHD_NO_INDEX;
  int64_t to = XHD_NO_INDEX;

  void offer(double d2, int64_t source, int64_t target) {
    if (d2 > dist2 || (d2 == dist2 && source < from)) {
      dist2 = d2;
      from = source;
      to = target;
    }
  }
  void merge(const PerPointWitness& o) {
    if (o.from != XHD_NO_INDEX) offer(o.dist2, o.from, o.to);
  }
  void write(xhd_directed& out) const {
    out.distance = from == XHD_NO_INDEX ? 0.0 : std::sqrt(dist2);
    out.from_index = from;
    out.to_index = to;
  }
};

}  // namespace xhd
