// What a float search of the points inside the frame's cube must know of the loose points (far outliers,
// point_frame.h) it does not see: whether a query is loose, and how near a loose target can be to a query
// inside the cube. Host and device.
#pragma once

#include <cmath>
#include <cstdint>

#include "box_math.h"  // XHD_HD

namespace xhd {

struct LooseGate {
  float cube = INFINITY;
  double copy_error = 0.0;  // how far a copy inside the cube can be from its point, per coordinate
  // Faces of the cube that loose targets lie beyond: bit 2k for -axis k, bit 2k + 1 for +axis k.
  uint32_t faces = 0;

  XHD_HD bool is_loose(const float p[3]) const {
    return fabsf(p[0]) > cube || fabsf(p[1]) > cube || fabsf(p[2]) > cube;
  }

  // A lower bound on the true distance from a query whose copy p lies inside the cube to every loose
  // target. A loose target beyond face (k, s) has s (t_k - o_k) > cube (its copy does, and rounding is
  // monotone), where the query has s (q_k - o_k) <= s p_k + copy_error. The double arithmetic rounds by
  // far less than the 2^-40 taken off. Infinite when there are no loose targets.
  XHD_HD double depth(const float p[3]) const {
    double d = INFINITY;
    for (int k = 0; k < 3; ++k) {
      if (faces & (1u << (2 * k))) d = fmin(d, static_cast<double>(cube) + p[k]);
      if (faces & (2u << (2 * k))) d = fmin(d, static_cast<double>(cube) - p[k]);
    }
    d = (d - copy_error) * (1.0 - 1.0 / 1099511627776.0);
    return d > 0.0 ? d : 0.0;
  }

  // Whether some loose target might be within distance d of the query with copy p (inside the cube).
  XHD_HD bool may_reach(const float p[3], double d) const { return faces != 0 && !(d < depth(p)); }
};

// The face a loose copy t lies beyond (one of them, if several), as a LooseGate::faces bit.
XHD_HD uint32_t face_beyond(const float t[3], float cube) {
  for (int k = 0; k < 3; ++k) {
    if (t[k] < -cube) return 1u << (2 * k);
    if (t[k] > cube) return 2u << (2 * k);
  }
  return 0;
}

}  // namespace xhd
