// The frame point-to-surface searches run in: float copies of the query points and the mesh's vertices
// relative to one origin near the data (what the hierarchy's boxes, the grid's cells and the query order
// are built from), beside the input's own coordinates (what every distance is evaluated over), and the
// pad that widens every box and cell so the filters never exclude a triangle the truth would choose.
//
// Why the pad suffices. Let o be the origin, E the frame's input error (point_frame.cpp: every float copy
// is within E of its point minus o, per coordinate and in length; E = 0 when the floats are the input,
// o = 0), and e the evaluation error of a distance: closest_on_triangle works relative to a corner, so its
// computed distance d_c(T) of a triangle T is within e = 2^-40 M of the true one for coordinates up to M
// in magnitude (a few dozen roundings of 2^-53 of quantities below 4M). Take any T with d_c(T) <= d_c(best).
//  - Boxes: a box B around the float copies of T's corners, widened by w >= E, holds T - o (each point of
//    T - o is a convex combination of corners, each within E of its copy). The query's copy p' is within
//    E of p - o. So dist(p', B widened by w + E + 2e) <= dist(p, T) - 2e <= d_c(T) - e: its computed square
//    stays below d_c(T)^2 (e dwarfs the relative 2^-50 of that computation for d below 2^11 M), and the
//    search never prunes B while T could win, ties included.
//  - Cells: the grid lists T in every cell its copy crosses when widened by its slack >= E, so in the cell
//    holding x - o for T's closest point x; that cell lies within d_c(T) + e + E of p' per axis, which the
//    search's reach (sqrt(best) + slack) covers when the slack is at least e + E.
// So pad = 2E + 2e (plus the float placement slack) serves both; for float inputs at o = 0 it is 2e.
#pragma once

#include "point_frame.h"
#include "point_triangle.h"
#include "xhd.h"

namespace xhd {

struct SurfaceFrame {
  PointFrame frame;  // a: the query points, b: the mesh's vertices
  double pad = 0.0;

  const float* points() const { return frame.a.xyz; }
  const float* vertices() const { return frame.b.xyz; }
  const PointTruth& point_truth() const { return frame.a.truth; }
  const PointTruth& vertex_truth() const { return frame.b.truth; }
};

void frame_surface(const xhd_points& points, const xhd_mesh& mesh, int threads, SurfaceFrame& out);

}  // namespace xhd
