// The double-precision reference for one point against a mesh: every triangle's surface value (point_triangle.h),
// in triangle order, over the input's own coordinates, the first of equally near triangles kept (ties to the
// smallest index). The brute point-to-surface method runs it for every point; a surface compare runs it for each
// direction's witness, which so gets the triangle and closest point the reference gives, on every backend.
#pragma once

#include <cmath>
#include <cstdint>

#include "point_triangle.h"
#include "point_truth.h"

namespace xhd {

struct BruteNearest {
  SurfacePoint best;
  uint32_t triangle;
};

inline BruteNearest nearest_triangle_brute(const PointTruth& vertices, const uint32_t* triangles, uint64_t count,
                                           Dvec3 p) {
  BruteNearest out{{static_cast<double>(INFINITY), {0.0, 0.0, 0.0}}, 0};
  for (uint64_t t = 0; t < count; ++t) {
    const uint32_t* v = triangles + 3 * t;
    const Dvec3 a = truth_point(vertices, v[0]), b = truth_point(vertices, v[1]), c = truth_point(vertices, v[2]);
    const double box_d2 = corner_box_dist2(p, a, b, c);
    if (cannot_win(box_d2, static_cast<uint32_t>(t), out.best.d2, out.triangle)) continue;  // its value is no less
    const SurfacePoint s = surface_value(p, a, b, c, box_d2);
    if (s.d2 < out.best.d2) {
      out.best = s;
      out.triangle = static_cast<uint32_t>(t);
    }
  }
  return out;
}

}  // namespace xhd
