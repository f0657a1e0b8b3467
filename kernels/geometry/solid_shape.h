// Whether a mesh bounds a solid, and which way its triangles wind: what the penetration facts (penetration.h) must
// know of each mesh before they say anything about its inside (whether the solid is convex: convex_certificate.h).
#pragma once

#include <cstdint>
#include <vector>

#include "point_triangle.h"

namespace xhd {

// A mesh's vertices as doubles (3 a vertex: the input's own, or B's as posed) and its triangles.
struct SolidMesh {
  const double* xyz;
  uint64_t vertex_count;
  const uint32_t* triangles;
  uint64_t triangle_count;
};

inline Dvec3 solid_vertex(const SolidMesh& m, uint32_t v) {
  return {m.xyz[3ull * v], m.xyz[3ull * v + 1], m.xyz[3ull * v + 2]};
}

// What does not depend on where the vertices lie.
struct SolidTopology {
  // Every edge is run by exactly two triangles, in opposite directions, and no triangle names a vertex twice: a
  // watertight, consistently oriented surface, which bounds a solid (its inside by the even-odd rule).
  bool closed = false;
  std::vector<uint32_t> used;  // the vertices a triangle names, ascending: the only ones that count
  // Closed meshes only: the piece (triangles linked through shared edges) of each triangle, and how many there are.
  std::vector<uint32_t> piece;
  uint32_t pieces = 0;
  // Closed meshes only: for corner k of triangle t, the corner of the triangle across the edge from corner k to
  // corner k + 1 that is not on that edge (as a vertex index).
  std::vector<uint32_t> across;
};

SolidTopology solid_topology(const uint32_t* triangles, uint64_t triangle_count, uint64_t vertex_count);

// The largest magnitude of a used vertex's coordinates: the scale every tolerance below is taken of.
double solid_scale(const SolidMesh& m, const SolidTopology& t);

// +1 when the triangles wind counterclockwise seen from outside (the signed volume is positive), -1 when
// clockwise; 0 when some piece's signed volume is within rounding of 0 (a triangle and its reverse, a flattened
// tetrahedron: a piece that bounds nothing, whose vertices no interior comes near). Closed meshes only.
int solid_orientation(const SolidMesh& m, const SolidTopology& t);

}  // namespace xhd
