#include "surface_frame.h"

namespace xhd {

void frame_surface(const xhd_points& points, const xhd_mesh& mesh, int threads, SurfaceFrame& out) {
  const xhd_points vertices{mesh.xyz, mesh.vertex_count, mesh.xyz64};
  const PointTruth truth{mesh.xyz64 == nullptr ? mesh.xyz : nullptr, mesh.xyz64, mesh.vertex_count};
  out.bulk = mesh_bulk(truth, mesh.triangles, mesh.triangle_count);
  double origin[3];
  for (int k = 0; k < 3; ++k) origin[k] = 0.5 * out.bulk.lo[k] + 0.5 * out.bulk.hi[k];
  frame_points(points, &vertices, threads, out.frame, out.bulk.empty ? nullptr : origin);
}

}  // namespace xhd
