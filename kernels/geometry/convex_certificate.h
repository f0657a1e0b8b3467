// A proof that a closed mesh's solid S is convex up to a measured amount, for the penetration depth's lower bound
// (hull_penetration.h bounds the depth of the vertices' hulls H; this says how far S's depth can fall below H's).
//   I: the points strictly below every face's plane (the faces with a plane; outward normals). From such a point
//      each of those triangles is seen counterclockwise, so the surface's winding number there is the same positive
//      integer all over I (I is convex and meets no triangle); so if one point c of I is inside S (the even-odd
//      rule, proven), all of I is inside: I ⊂ S ⊂ H.
//   δ: how far the vertices rise above the face planes at most (0 for a convex mesh, up to rounding); ρ: how far c
//      lies below every face plane; D: c's farthest vertex. Every vertex v then has a point of I within δD/(ρ + δ)
//      of it (on the segment to c), so each support value of I is within δD/ρ of H's.
//   So the depth of two such solids is at least the hulls' depth less δD/ρ of each: the correction.
// Nothing is assumed of the mesh's shape beyond its being closed and wound one way: a mesh far from convex gets a
// large correction (or none at all when c lies above some face plane), which the caller then does not use.
#pragma once

#include "solid_queries.h"
#include "solid_shape.h"

namespace xhd {

struct ConvexCertificate {
  bool holds = false;       // c is below every face plane and proven inside S
  double correction = 0.0;  // δD/ρ, rounding included: the hulls' depth less both solids' corrections bounds theirs
  double far = 0.0;         // D
  double rho = 0.0;         // ρ
};

ConvexCertificate convex_certificate(const SolidMesh& m, const SolidTopology& t, int orientation,
                                     const SolidQueries& inside, int threads);

// The certificate of the mesh posed by x -> Mx + t (pose: 12 doubles, rows of [M | t]) as pose_vertex64 computes it,
// from the mesh's own (largest: its used vertices' largest coordinate), without measuring the posed mesh again. M
// scales lengths by at most s = sqrt(1 + η) and at least r = sqrt(1 - η), η = |MᵀM - I| (Frobenius); the posing's
// rounding moves each vertex by at most e. The posed solid then holds P(I) shrunk by e (a point deeper than e in
// P(I) ⊂ P(S) keeps its side while the surface moves by e), whose support values fall short of P(I)'s by at most
// e sD/(rρ) (the segment argument again, about P(c), which has a ball of radius rρ in P(I)); and the posed vertices'
// hull exceeds P(H)'s by at most e. So the correction becomes s δD/ρ + e (1 + sD/(rρ)). Refused (holds false) for
// poses that are far from rigid (η >= 1/2) or shrink ρ below e: the caller then measures the posed mesh.
ConvexCertificate posed_certificate(const ConvexCertificate& own, const double pose[12], double largest);

}  // namespace xhd
