// The penetration facts of XHD_DISTANCE_PENETRATION (xhd.h): for two closed meshes, the solids they bound (the
// even-odd rule), whether those overlap, and bounds on the penetration depth: the length of the shortest
// translation of B after which the two solids' interiors are disjoint.
//   upper: the hull bound (hull_penetration.h), good for any solids.
//   lower: a point p inside both solids stays inside both while B moves by less than d_A(p) + d_B(p) (its
//          distances to the two surfaces: balls of those radii round p lie in each solid), so the largest such sum
//          over the points tried bounds the depth from below: every used vertex of each mesh inside the other (one
//          of the two distances 0), points of a 12 x 12 x 12 grid over the overlap of the two boxes, and a pattern
//          search from the best of them. Each inside is proven (solid_queries.h); an undecided point is left out.
//          The hull bound's lower bound, less each solid's convexity correction (convex_certificate.h), is one too;
//          where both solids are convex to their rounding, it meets the upper bound.
// B is posed in double (MeshTruth::posed_vertices64): a rigid pose keeps a convex float32 mesh convex, where the
// distances' float rounding of B's posed vertices would bend its flat faces by a float's step.
// Every bound is widened by the pruning slack (1e-12 of the largest coordinate), which is far above its rounding.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mesh_truth.h"
#include "solid_queries.h"
#include "solid_shape.h"
#include "xhd.h"

namespace xhd {

class PenetrationProbe {
 public:
  // Copies both meshes (B is posed per query). every_triangle: the reference's way (no hierarchies).
  PenetrationProbe(const xhd_mesh& a, const xhd_mesh& b, bool every_triangle, int threads);
  ~PenetrationProbe();

  // Writes the solids, flags, bounds and direction of r for B posed by pose; min_distance: the surfaces' exact
  // minimum distance under that pose (0 when they touch or cross).
  void query(const double* pose, double min_distance, xhd_distance_result& r) const;

 private:
  struct Solid;
  // How far the distances' posing of B (each vertex rounded to float for a float32 B) moved a vertex from `exact`,
  // B posed in double, at most.
  double float_displacement(const double* pose, const std::vector<double>& exact) const;
  const int threads_;
  const bool every_;
  MeshTruth a_input_, b_input_;
  SolidTopology a_topology_, b_topology_;
  std::vector<double> a_xyz_, b_own_xyz_;  // A, and B unposed, as doubles
  std::unique_ptr<Solid> a_, b_own_;       // B unposed: its convexity certificate, moved by each rigid pose
  double b_own_scale_ = 0.0;               // B unposed: its used vertices' largest coordinate
};

}  // namespace xhd
