// Two questions about a point and a closed mesh, answered over the mesh's double vertices: is the point inside the
// solid (the even-odd rule along a ray, every crossing decided by signs proven despite rounding), and how far is it
// from the surface (the exact nearest-triangle distance of triangle_bvh.h). Through a triangle hierarchy, or, for
// the reference, by every triangle in turn: a ray's signs are taken only of triangles whose own box it meets, and a
// distance is the least over every triangle that could be nearest, so both ways answer the same.
#pragma once

#include <cstdint>

#include "point_triangle.h"
#include "triangle_pair.h"
#include "solid_shape.h"
#include "triangle_bvh.h"

namespace xhd {

enum class Inside { kOutside = -1, kUndecided = 0, kInside = 1 };

class SolidQueries {
 public:
  SolidQueries(const SolidMesh& m, bool every_triangle);

  // Inside or outside, or undecided when the point lies within rounding of the surface's plane at a crossing, or
  // each of three rays passed within rounding of an edge.
  Inside inside(Dvec3 p) const;

  // Squared distance to the nearest point of the surface.
  double distance2(Dvec3 p) const;

  // Whether some triangle lies nearer than sqrt(d2) (its squared distance below d2): a search that stops at the
  // first such triangle, for points that need their distance only when it is at least sqrt(d2).
  bool nearer_than(Dvec3 p, double d2) const;

  // The box of the used vertices.
  const double* low() const { return low_; }
  const double* high() const { return high_; }

 private:
  // The parity of crossings along p + t d, t > 0, or -1 when a crossing could not be decided.
  int crossings(Dvec3 p, Dvec3 d) const;
  Corners3 triangle(uint64_t i) const;

  SolidMesh m_;
  bool every_;
  TriangleBvh bvh_;
  double low_[3], high_[3];
  double origin_[3];  // the middle of the box: the hierarchy's origin, and the frame the rays' boxes are tested in
};

// The sign of a x b + ... (a triple product u . (v x w) of differences rounded once each), proven despite rounding:
// +1 or -1, or 0 when the value lies within its rounding bound of 0.
int proven_triple_sign(Dvec3 u, Dvec3 v, Dvec3 w);

}  // namespace xhd
