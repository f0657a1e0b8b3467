// Whether a mesh bounds a solid, which way its triangles wind, and whether that solid is convex: what the
// penetration facts (penetration.h) must know of each mesh before they say anything about its inside.
#pragma once

#include <cstdint>
#include <vector>

namespace xhd {

// A mesh's vertices as doubles (3 a vertex: the input's own, or B's as posed) and its triangles.
struct SolidMesh {
  const double* xyz;
  uint64_t vertex_count;
  const uint32_t* triangles;
  uint64_t triangle_count;
};

// What does not depend on where the vertices lie.
struct SolidTopology {
  // Every edge is run by exactly two triangles, in opposite directions, and no triangle names a vertex twice: a
  // watertight, consistently oriented surface, which bounds a solid (its inside by the even-odd rule).
  bool closed = false;
  // Closed, one piece (triangles linked through shared edges), and V - E + F = 2: a surface like a sphere's.
  bool sphere = false;
  std::vector<uint32_t> used;  // the vertices a triangle names, ascending: the only ones that count
  // Closed meshes only: for corner k of triangle t, the corner of the triangle across the edge from corner k to
  // corner k + 1 that is not on that edge (as a vertex index).
  std::vector<uint32_t> across;
};

SolidTopology solid_topology(const uint32_t* triangles, uint64_t triangle_count, uint64_t vertex_count);

// The largest magnitude of a used vertex's coordinates: the scale every tolerance below is taken of.
double solid_scale(const SolidMesh& m, const SolidTopology& t);

// +1 when the triangles wind counterclockwise seen from outside (the signed volume is positive), -1 when
// clockwise, 0 when the signed volume is within rounding of 0 (no solid to speak of). Closed meshes only.
int solid_orientation(const SolidMesh& m, const SolidTopology& t);

// How far a corner may rise above the plane of the triangle across an edge, in units of solid_scale, and the edge
// still count as flat (convex): far above the rounding of that height, far below any bend a user means.
constexpr double kConvexFlatness = 1e-12;

// Whether the closed, sphere-like mesh bounds a convex solid: every edge bends outward or lies flat
// (kConvexFlatness), and the corner angles at every vertex add up to at most 2π (so no vertex's fan winds
// round twice). A closed surface that is convex near each of its points, in one piece, bounds a convex solid.
bool solid_convex(const SolidMesh& m, const SolidTopology& t, int orientation);

}  // namespace xhd
