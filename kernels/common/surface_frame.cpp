#include "surface_frame.h"

#include <algorithm>
#include <cmath>

namespace xhd {

void frame_surface(const xhd_points& points, const xhd_mesh& mesh, int threads, SurfaceFrame& out) {
  const xhd_points vertices{mesh.xyz, mesh.vertex_count, mesh.xyz64};
  frame_points(points, &vertices, threads, out.frame);
  // The largest input coordinate: at most the origin's largest plus the largest copy (and its rounding).
  const double* o = out.frame.origin;
  const double largest = std::max({std::fabs(o[0]), std::fabs(o[1]), std::fabs(o[2])}) + 2.0 * out.frame.largest;
  const double evaluation = std::ldexp(largest, -40);
  // bounds.slack is 2E plus the point grid's placement slack: it covers the 2E the pad needs.
  out.pad = out.frame.bounds.slack + 2.0 * evaluation;
}

}  // namespace xhd
