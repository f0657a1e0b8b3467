// The frame point-to-surface searches run in. The searches themselves read the input's own coordinates
// in double (the grid's cells are placed in them; the hierarchy's float boxes are rounded outward around
// their differences to the origin o), with margins per region and per query (surface_bounds.h), so no
// rounding bound here depends on the largest coordinate of the input. The float copies of the query
// points relative to o only order the queries (Morton order), where no bound is needed.
//
// o is the centre of the bulk of the mesh's vertices (mesh_bulk.h), not of the whole box: a single wild
// vertex at 6.5e10 would otherwise put o at 3.25e10, where a float's step is 2048 and the hierarchy's boxes
// around the rest of the mesh could not be told apart.
#pragma once

#include "mesh_bulk.h"
#include "point_frame.h"
#include "point_triangle.h"
#include "xhd.h"

namespace xhd {

struct SurfaceFrame {
  PointFrame frame;  // a: the query points, b: the mesh's vertices
  MeshBulk bulk;     // of the mesh: sizes the grid and places o

  const float* points() const { return frame.a.xyz; }
  const float* vertices() const { return frame.b.xyz; }
  const PointTruth& point_truth() const { return frame.a.truth; }
  const PointTruth& vertex_truth() const { return frame.b.truth; }
  const double* origin() const { return frame.origin; }
};

void frame_surface(const xhd_points& points, const xhd_mesh& mesh, int threads, SurfaceFrame& out);

}  // namespace xhd
