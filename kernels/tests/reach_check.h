// Whether a point lies within a node's DOP reaches (oriented_dop.h), for the native tests of the shapes.
#pragma once

#include <cstdint>

#include "../geometry/oriented_dop.h"

namespace xhd_test {

// q: the point along the box's three axes, measured from its centre. Each of the 26 directions s0·u0 + s1·u1 +
// s2·u2 must reach no further than its stored reach (in units of dop_unit(r), rounded up; 65535: unbounded).
inline bool within_reaches(const double q[3], const xhd::DopReaches& reaches) {
  const double unit = xhd::dop_unit(reaches.r);
  bool within = true;
  for (int s0 = -1; s0 <= 1; ++s0)
    for (int s1 = -1; s1 <= 1; ++s1)
      for (int s2 = -1; s2 <= 1; ++s2) {
        if (s0 == 0 && s1 == 0 && s2 == 0) continue;
        const double h = s0 * q[0] + s1 * q[1] + s2 * q[2];
        const uint16_t stored = reaches.h[xhd::dop_slot(s0, s1, s2)];
        within = within && (stored == 65535 || h <= stored * unit * (1 + 1e-9));
      }
  return within;
}

}  // namespace xhd_test
