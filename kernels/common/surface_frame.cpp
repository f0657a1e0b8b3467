#include "surface_frame.h"

#include <cmath>

namespace xhd {

void frame_surface(const xhd_points& points, const xhd_mesh& mesh, int threads, SurfaceFrame& out) {
  const xhd_points vertices{mesh.xyz, mesh.vertex_count, mesh.xyz64};
  frame_points(points, &vertices, threads, out.frame);
  const double evaluation = std::ldexp(out.frame.largest_input, -40);
  // bounds.slack is 2E plus the point grid's placement slack: it covers the 2E the pad needs.
  out.pad = out.frame.bounds.slack + 2.0 * evaluation;
}

}  // namespace xhd
