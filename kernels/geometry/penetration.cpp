#include "penetration.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <optional>

#include "../abi/host_phases.h"
#include "../abi/parallel.h"
#include "convex_certificate.h"
#include "hull_penetration.h"
#include "mesh_distance_common.h"

namespace xhd {

// A closed mesh as a solid under one placement: its winding, and, made when first asked for, the two queries of its
// inside and its convexity certificate.
struct PenetrationProbe::Solid {
  SolidMesh mesh;
  const SolidTopology* topology;
  int orientation = 0;

  Solid(const SolidMesh& m, const SolidTopology& t, bool every_triangle, int threads)
      : mesh(m), topology(&t), every_(every_triangle), threads_(threads) {
    orientation = solid_orientation(m, t);
  }
  bool usable() const { return orientation != 0; }

  const SolidQueries& queries() {
    if (!queries_) queries_ = std::make_unique<SolidQueries>(mesh, every_);
    return *queries_;
  }
  const ConvexCertificate& convexity() {
    if (!certificate_) certificate_ = convex_certificate(mesh, *topology, orientation, queries(), threads_);
    return *certificate_;
  }

 private:
  bool every_;
  int threads_;
  std::unique_ptr<SolidQueries> queries_;
  std::optional<ConvexCertificate> certificate_;
};

namespace {

// Grid points a side over the overlap of the two boxes, and the pattern search's halvings.
constexpr int kGridSide = 12;
constexpr int kPatternRounds = 40;

bool within_box(const SolidQueries& q, Dvec3 p) {
  for (int k = 0; k < 3; ++k)
    if (dget(p, k) < q.low()[k] || dget(p, k) > q.high()[k]) return false;
  return true;
}

// The deepest point found: the largest d_A(p) + d_B(p) over points proven inside both (0 when none), and whether a
// used vertex inside the other's box could not be placed (so "no vertex inside" is not proven).
struct Deepest {
  double depth = 0.0;
  double depth2 = 0.0;  // a vertex's: its squared distance (depth = its root)
  Dvec3 at{0.0, 0.0, 0.0};
  size_t index = 0;  // of the vertex at `at` (ties go to the smallest, whatever the threads)
  bool found = false;
  bool undecided_vertex = false;
};

// d_A(p) + d_B(p) when p is proven inside both, else -1.
double depth_sum(const SolidQueries& a, const SolidQueries& b, Dvec3 p) {
  if (a.inside(p) != Inside::kInside || b.inside(p) != Inside::kInside) return -1.0;
  return std::sqrt(a.distance2(p)) + std::sqrt(b.distance2(p));
}

// Every used vertex of `of` proven inside `in`, at its distance to `in`'s surface (its own surface's distance is 0).
// Once a thread has a vertex inside, a vertex with a triangle of `in` nearer than that one's depth cannot be
// deepest and is passed over after a search that stops at the first such triangle: it is where most vertices of
// two deeply overlapping meshes end, without their inside test or the full nearest search.
Deepest deepest_vertex(const SolidMesh& of, const std::vector<uint32_t>& used, const SolidQueries& in, int threads) {
  std::vector<Deepest> parts(std::max(threads, 1));
  parallel_blocks(used.size(), 256, threads, [&](size_t begin, size_t end, int tid) {
    Deepest& mine = parts[tid];
    for (size_t i = begin; i < end; ++i) {
      const Dvec3 p = solid_vertex(of, used[i]);
      if (!within_box(in, p)) continue;
      if (mine.found && in.nearer_than(p, mine.depth2)) continue;
      const Inside where = in.inside(p);
      if (where == Inside::kUndecided) mine.undecided_vertex = true;
      if (where != Inside::kInside) continue;
      const double d2 = in.distance2(p);
      if (!mine.found || d2 > mine.depth2 || (d2 == mine.depth2 && i < mine.index))
        mine.depth2 = d2, mine.at = p, mine.index = i, mine.found = true;
    }
  });
  Deepest all;
  for (const Deepest& d : parts) {
    all.undecided_vertex |= d.undecided_vertex;
    if (d.found && (!all.found || d.depth2 > all.depth2 || (d.depth2 == all.depth2 && d.index < all.index))) {
      const bool undecided = all.undecided_vertex;
      all = d;
      all.undecided_vertex = undecided;
    }
  }
  all.depth = std::sqrt(all.depth2);
  return all;
}

// Cell centres of a grid over the overlap of the two boxes, then a pattern search (steps along the axes, halved
// when none deepens) from the deepest point so far.
Deepest deepest_inside_both(const SolidQueries& a, const SolidQueries& b, Deepest best, int threads) {
  double lo[3], hi[3];
  for (int k = 0; k < 3; ++k) {
    lo[k] = std::max(a.low()[k], b.low()[k]);
    hi[k] = std::min(a.high()[k], b.high()[k]);
    if (!(lo[k] < hi[k])) return best;
  }
  auto cell = [&](int k, int i) { return lo[k] + (hi[k] - lo[k]) * ((i + 0.5) / kGridSide); };
  std::vector<double> sums(kGridSide * kGridSide * kGridSide);
  parallel_blocks(sums.size(), 8, threads, [&](size_t begin, size_t end, int) {
    for (size_t g = begin; g < end; ++g) {
      const int i = static_cast<int>(g % kGridSide), j = static_cast<int>(g / kGridSide % kGridSide),
                k = static_cast<int>(g / (kGridSide * kGridSide));
      sums[g] = depth_sum(a, b, Dvec3{cell(0, i), cell(1, j), cell(2, k)});
    }
  });
  for (size_t g = 0; g < sums.size(); ++g)
    if (sums[g] > (best.found ? best.depth : 0.0)) {
      const int i = static_cast<int>(g % kGridSide), j = static_cast<int>(g / kGridSide % kGridSide),
                k = static_cast<int>(g / (kGridSide * kGridSide));
      best.depth = sums[g], best.at = Dvec3{cell(0, i), cell(1, j), cell(2, k)}, best.found = true;
    }
  if (!best.found) return best;
  double step = 0.5 * std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}) / kGridSide;
  for (int round = 0; round < kPatternRounds && step > 0.0; ++round) {
    Deepest next = best;
    for (int k = 0; k < 6; ++k) {
      Dvec3 p = best.at;
      (k / 2 == 0 ? p.x : k / 2 == 1 ? p.y : p.z) += (k % 2 ? -step : step);
      const double d = depth_sum(a, b, p);
      if (d > next.depth) next.depth = d, next.at = p;
    }
    if (next.depth > best.depth) best = next;
    else step *= 0.5;
  }
  return best;
}

}  // namespace

PenetrationProbe::PenetrationProbe(const xhd_mesh& a, const xhd_mesh& b, bool every_triangle, int threads)
    : threads_(threads),
      every_(every_triangle),
      a_input_(a, threads),
      b_input_(b, threads),
      a_topology_(solid_topology(a_input_.triangles(), a_input_.triangle_count(), a_input_.vertex_count())),
      b_topology_(solid_topology(b_input_.triangles(), b_input_.triangle_count(), b_input_.vertex_count())),
      a_xyz_(a_input_.posed_vertices64(kIdentityPose)),
      b_own_xyz_(b_input_.posed_vertices64(kIdentityPose)) {
  if (b_topology_.closed)
    b_own_scale_ = solid_scale(SolidMesh{b_own_xyz_.data(), b_input_.vertex_count(), b_input_.triangles(),
                                         b_input_.triangle_count()},
                               b_topology_);
  if (a_topology_.closed)
    a_ = std::make_unique<Solid>(
        SolidMesh{a_xyz_.data(), a_input_.vertex_count(), a_input_.triangles(), a_input_.triangle_count()},
        a_topology_, every_, threads_);
  if (b_topology_.closed)
    b_own_ = std::make_unique<Solid>(
        SolidMesh{b_own_xyz_.data(), b_input_.vertex_count(), b_input_.triangles(), b_input_.triangle_count()},
        b_topology_, every_, threads_);
}

PenetrationProbe::~PenetrationProbe() = default;

void PenetrationProbe::query(const double* pose, double min_distance, xhd_distance_result& r) const {
  HostPhases phases("penetration");
  for (double& d : r.penetration_direction) d = 0.0;
  r.penetration_lower = r.penetration_upper = std::nan("");
  const std::vector<double> b_xyz = b_input_.posed_vertices64(pose);
  std::unique_ptr<Solid> b;
  if (b_topology_.closed)
    b = std::make_unique<Solid>(
        SolidMesh{b_xyz.data(), b_input_.vertex_count(), b_input_.triangles(), b_input_.triangle_count()}, b_topology_,
        every_, threads_);
  phases.mark("B posed, its solid");
  const bool a_solid = a_ && a_->usable(), b_solid = b && b->usable();
  r.solids_flags = (a_solid ? XHD_SOLIDS_A_CLOSED : 0) | (b_solid ? XHD_SOLIDS_B_CLOSED : 0);
  if (!a_solid || !b_solid) {
    r.solids = XHD_SOLIDS_OPEN;
    return;
  }
  const double slack =
      pruning_slack(std::max(solid_scale(a_->mesh, a_topology_), solid_scale(b->mesh, b_topology_)));
  const HullPenetration hull = hull_penetration(a_->mesh.xyz, a_topology_.used.data(), a_topology_.used.size(),
                                                b->mesh.xyz, b_topology_.used.data(), b_topology_.used.size(), slack,
                                                threads_);
  phases.mark("hull bounds");
  r.penetration_upper = hull.upper;
  if (hull.apart) {  // a plane parts the hulls, or they touch (to the computed support values): no move needed
    r.solids = XHD_SOLIDS_APART;
    r.penetration_lower = 0.0;
    return;
  }
  for (int k = 0; k < 3; ++k) r.penetration_direction[k] = hull.direction[k];
  // The hulls' lower bound, less what each solid may fall short of its hull (convex_certificate.h), is the solids'.
  // Where both corrections are within the slack, the solids are convex to their rounding, and once the hull bounds
  // have met they are the depth's: nothing is left to find.
  double lower = 0.0;
  if (hull.lower > 0.0) {
    const ConvexCertificate& ca = a_->convexity();
    // B's own certificate moved by the pose (convex_certificate.h), or, for a pose far from rigid, B's as posed.
    ConvexCertificate cb;
    if (ca.holds && b_own_->usable()) {
      cb = posed_certificate(b_own_->convexity(), pose, b_own_scale_);
      if (!cb.holds) cb = b->convexity();
    }
    phases.mark("convexity");
    if (ca.holds && cb.holds) {
      lower = std::max(0.0, hull.lower - ca.correction - cb.correction);
      if (ca.correction <= slack && cb.correction <= slack) r.solids_flags |= XHD_SOLIDS_CONVEX;
    }
    if ((r.solids_flags & XHD_SOLIDS_CONVEX) && hull.converged && lower > 0.0) {
      r.penetration_lower = lower;
      r.solids = XHD_SOLIDS_OVERLAP;
      return;
    }
  }
  const Deepest in_b = deepest_vertex(a_->mesh, a_topology_.used, b->queries(), threads_);
  const Deepest in_a = deepest_vertex(b->mesh, b_topology_.used, a_->queries(), threads_);
  phases.mark("vertices inside");
  Deepest vertex = in_b;
  if (in_a.found && (!vertex.found || in_a.depth > vertex.depth)) vertex = in_a;
  // Surfaces apart with no vertex of either inside the other: neither solid holds the other, so they are disjoint.
  // The surfaces' distance was measured with B posed as the distances pose it (a float32 B rounded to float): it
  // must exceed how far that moved any vertex from B as posed here.
  if (min_distance > float_displacement(pose, b_xyz) && !vertex.found && !in_a.undecided_vertex && !in_b.undecided_vertex) {
    r.solids = XHD_SOLIDS_APART;
    r.penetration_lower = r.penetration_upper = 0.0;
    for (double& d : r.penetration_direction) d = 0.0;
    return;
  }
  const Deepest deepest = deepest_inside_both(a_->queries(), b->queries(), vertex, threads_);
  phases.mark("deepest point");
  if (deepest.found) lower = std::max(lower, deepest.depth - slack);
  r.penetration_lower = lower;
  r.solids = r.penetration_lower > 0.0 ? XHD_SOLIDS_OVERLAP : XHD_SOLIDS_UNDECIDED;
}

// How far posing a float32 B as the distances do (each posed vertex rounded to float) moves a vertex from B posed in
// double, at most (0 for a double B: both pose it alike). A point of a triangle moves no farther than its corners.
double PenetrationProbe::float_displacement(const double* pose, const std::vector<double>& exact) const {
  if (!b_input_.is_float32()) return 0.0;
  const std::vector<double> rounded = b_input_.posed_vertices(pose);
  double most = 0.0;
  for (uint32_t v : b_topology_.used) {
    double d2 = 0.0;
    for (int k = 0; k < 3; ++k) d2 += (rounded[3ull * v + k] - exact[3ull * v + k]) * (rounded[3ull * v + k] - exact[3ull * v + k]);
    most = std::max(most, std::sqrt(d2));
  }
  return most * (1.0 + 1e-12);
}

}  // namespace xhd
