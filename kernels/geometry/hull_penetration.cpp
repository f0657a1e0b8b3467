#include "hull_penetration.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "../abi/parallel.h"
#include "point_triangle.h"

namespace xhd {
namespace {

constexpr double kU = 0x1p-53;
// Steps before the bounds are reported as they stand (each is a scan of both vertex sets). Polyhedral differences
// end in far fewer; round ones halve the nearest face's size every few steps, and reach the slack in a hundred or so.
constexpr uint32_t kMostSteps = 2048;

Dvec3 at(const double* xyz, uint32_t i) { return {xyz[3ull * i], xyz[3ull * i + 1], xyz[3ull * i + 2]}; }

struct SupportPoint {
  Dvec3 w;   // a - b: a corner of K
  double h;  // u.a - u.b: K's support value along u
  Dvec3 u;
};

// Support points of K = A - B; the first of equal values wins in each set, so the answer does not depend on threads.
class Support {
 public:
  Support(const double* a, const uint32_t* ua, size_t na, const double* b, const uint32_t* ub, size_t nb, int threads)
      : a_(a), ua_(ua), na_(na), b_(b), ub_(ub), nb_(nb), threads_(threads) {}

  SupportPoint operator()(Dvec3 u) const {
    const size_t ia = farthest(a_, ua_, na_, u), ib = farthest(b_, ub_, nb_, Dvec3{-u.x, -u.y, -u.z});
    const Dvec3 pa = at(a_, ua_[ia]), pb = at(b_, ub_[ib]);
    return {dsub(pa, pb), ddot(u, pa) - ddot(u, pb), u};
  }

 private:
  size_t farthest(const double* xyz, const uint32_t* used, size_t n, Dvec3 u) const {
    const int threads = n < (1u << 16) ? 1 : threads_;
    std::vector<std::pair<double, size_t>> best(std::max(threads, 1), {-INFINITY, 0});
    parallel_blocks(n, 1 << 14, threads, [&](size_t begin, size_t end, int tid) {
      std::pair<double, size_t>& mine = best[tid];
      for (size_t i = begin; i < end; ++i) {
        const double v = ddot(u, at(xyz, used[i]));
        if (v > mine.first || (v == mine.first && i < mine.second)) mine = {v, i};
      }
    });
    std::pair<double, size_t> top = best[0];
    for (const auto& b : best)
      if (b.first > top.first || (b.first == top.first && b.second < top.second)) top = b;
    return top.second;
  }

  const double* a_;
  const uint32_t* ua_;
  size_t na_;
  const double* b_;
  const uint32_t* ub_;
  size_t nb_;
  int threads_;
};

// A face of the polytope, its corners counterclockwise seen from outside.
struct Face {
  uint32_t v[3];
  Dvec3 n;          // unit outward normal (0 for a face with no plane)
  double distance;  // the origin's distance below the face's plane (n . v0); negative: the origin is beyond it
  double error;     // how far `distance` may be from the plane's through the corners as stored
  bool alive;
};

class Polytope {
 public:
  explicit Polytope(double slack) : slack_(slack) {}

  std::vector<Dvec3> corners;
  std::vector<Face> faces;

  // The first four corners, not in one plane (the fourth proven off the first three's plane), as a tetrahedron.
  bool start(const Dvec3 p[4]) {
    for (int i = 0; i < 4; ++i) corners.push_back(p[i]);
    const Dvec3 n = dcross_accurate(dsub(p[1], p[0]), dsub(p[2], p[0]));
    const double rise = ddot(n, dsub(p[3], p[0]));
    if (!(std::fabs(rise) > 64 * kU * std::sqrt(ddot(n, n)) * (norm(p[3]) + norm(p[0]) + 1e-300))) return false;
    // Counterclockwise from outside: the fourth corner below the first face.
    const uint32_t f[4][3] = {{0, 1, 2}, {0, 3, 1}, {1, 3, 2}, {2, 3, 0}};
    for (const auto& t : f) rise > 0 ? add(t[0], t[2], t[1]) : add(t[0], t[1], t[2]);
    return consistent_;
  }

  // Adds corner w, seen from face `from` (w beyond its plane): every face w is beyond, reached from `from` through
  // such faces, goes; the rim they leave is joined to w. False when the polytope came out malformed (an edge
  // claimed twice), which rounding can do on nearly flat rims: the caller stops there.
  bool grow(uint32_t from, Dvec3 w) {
    const uint32_t iw = static_cast<uint32_t>(corners.size());
    corners.push_back(w);
    std::vector<uint32_t> seen{from}, stack{from};
    std::vector<std::pair<uint32_t, uint32_t>> rim;
    faces[from].alive = false;
    while (!stack.empty()) {
      const Face f = faces[stack.back()];
      stack.pop_back();
      for (int k = 0; k < 3; ++k) {
        const uint32_t i = f.v[k], j = f.v[(k + 1) % 3];
        const auto it = edges_.find(key(j, i));
        if (it == edges_.end()) return false;
        Face& g = faces[it->second];
        if (!g.alive) continue;
        if (beyond(g, w)) {
          g.alive = false;
          stack.push_back(it->second);
        } else {
          rim.push_back({i, j});
        }
      }
    }
    for (size_t f = 0; f < faces.size(); ++f)
      if (!faces[f].alive && faces[f].v[0] != kGone) {
        for (int k = 0; k < 3; ++k) edges_.erase(key(faces[f].v[k], faces[f].v[(k + 1) % 3]));
        faces[f].v[0] = kGone;
      }
    for (const auto& [i, j] : rim) add(i, j, iw);
    return consistent_;
  }

  // The live face nearest the origin's side (smallest distance).
  uint32_t nearest() const {
    uint32_t best = UINT32_MAX;
    for (uint32_t f = 0; f < faces.size(); ++f)
      if (faces[f].alive && (best == UINT32_MAX || faces[f].distance < faces[best].distance)) best = f;
    return best;
  }

  // The origin's proven distance to the polytope's boundary when it lies inside every face, else 0.
  double inner_radius() const {
    double r = INFINITY;
    for (const Face& f : faces)
      if (f.alive) r = std::min(r, f.distance - f.error);
    return r > 0.0 && std::isfinite(r) ? r : 0.0;
  }

  bool beyond(const Face& f, Dvec3 w) const { return ddot(f.n, dsub(w, corners[f.v[0]])) > slack_; }

 private:
  static constexpr uint32_t kGone = UINT32_MAX;
  static uint64_t key(uint32_t i, uint32_t j) { return static_cast<uint64_t>(i) << 32 | j; }
  static double norm(Dvec3 v) { return std::sqrt(ddot(v, v)); }

  void add(uint32_t i, uint32_t j, uint32_t k) {
    const Dvec3 p0 = corners[i], e1 = dsub(corners[j], p0), e2 = dsub(corners[k], p0);
    const Dvec3 n = dcross_accurate(e1, e2);
    const double length = norm(n);
    Face f{{i, j, k}, {0.0, 0.0, 0.0}, -INFINITY, INFINITY, true};
    if (length > 0.0) {
      f.n = {n.x / length, n.y / length, n.z / length};
      f.distance = ddot(f.n, p0);
      // The normal's direction is off by the edges' rounding (u of each, over the face's area: a sliver's normal is
      // poorly known) and the cross product's and division's (a few u); the distance by that times |p0|, plus its
      // own dot product's. Taken four times over.
      const double tilt = 4 * kU * (1.0 + norm(e1) * norm(e2) / length);
      f.error = 4 * (tilt * (norm(p0) + norm(e1) + norm(e2)) + 4 * kU * norm(p0));
    }
    const uint32_t index = static_cast<uint32_t>(faces.size());
    faces.push_back(f);
    for (int m = 0; m < 3; ++m)
      if (!edges_.emplace(key(f.v[m], f.v[(m + 1) % 3]), index).second) consistent_ = false;
  }

  double slack_;
  bool consistent_ = true;
  std::unordered_map<uint64_t, uint32_t> edges_;  // directed edge -> the face that runs it
};

// Four support points spanning space, from the 14 directions of the axes and the diagonals: the two farthest
// apart, the farthest from their line, the farthest from their plane.
bool first_tetrahedron(const Support& support, Dvec3 out[4], std::vector<SupportPoint>& seen) {
  for (int x = -1; x <= 1; ++x)
    for (int y = -1; y <= 1; ++y)
      for (int z = -1; z <= 1; ++z) {
        const int ones = (x != 0) + (y != 0) + (z != 0);
        if (ones != 1 && ones != 3) continue;
        const double s = ones == 1 ? 1.0 : 0.5773502691896258;
        seen.push_back(support(Dvec3{x * s, y * s, z * s}));
      }
  double far = -1.0;
  for (size_t i = 0; i < seen.size(); ++i)
    for (size_t j = i + 1; j < seen.size(); ++j) {
      const Dvec3 d = dsub(seen[i].w, seen[j].w);
      if (ddot(d, d) > far) far = ddot(d, d), out[0] = seen[i].w, out[1] = seen[j].w;
    }
  const Dvec3 line = dsub(out[1], out[0]);
  far = -1.0;
  for (const SupportPoint& s : seen) {
    const Dvec3 c = dcross(line, dsub(s.w, out[0]));
    if (ddot(c, c) > far) far = ddot(c, c), out[2] = s.w;
  }
  const Dvec3 n = dcross(line, dsub(out[2], out[0]));
  far = -1.0;
  for (const SupportPoint& s : seen) {
    const double rise = std::fabs(ddot(n, dsub(s.w, out[0])));
    if (rise > far) far = rise, out[3] = s.w;
  }
  return far > 0.0;
}

}  // namespace

HullPenetration hull_penetration(const double* a, const uint32_t* used_a, size_t count_a, const double* b,
                                 const uint32_t* used_b, size_t count_b, double slack, int threads) {
  HullPenetration r;
  if (count_a == 0 || count_b == 0) return r;
  const Support support(a, used_a, count_a, b, used_b, count_b, threads);
  double best = INFINITY;
  // The 14 first directions are unit to the last bit or two, as the faces' normals are; the slack covers that.
  auto offer = [&](Dvec3 u, double h) {
    if (h < best) best = h, r.direction[0] = u.x, r.direction[1] = u.y, r.direction[2] = u.z;
  };
  auto finish = [&](double lower) {
    r.apart = best <= 0.0;
    // Apart by more than the slack: no move at all is needed; else the least move found, widened.
    r.upper = best < -slack ? 0.0 : std::max(best, 0.0) + slack;
    r.lower = r.apart ? 0.0 : std::max(0.0, lower - slack);
    return r;
  };
  std::vector<SupportPoint> seen;
  Dvec3 first[4];
  const bool spans = first_tetrahedron(support, first, seen);
  for (const SupportPoint& s : seen) offer(s.u, s.h);
  Polytope p(slack);
  if (!spans || !p.start(first)) return finish(0.0);  // K is flat: no inside to bound from below
  for (const SupportPoint& s : seen)  // the other first support points, where they lie outside
    for (uint32_t f = 0; f < p.faces.size(); ++f)
      if (p.faces[f].alive && p.beyond(p.faces[f], s.w)) {
        if (!p.grow(f, s.w)) return finish(0.0);
        break;
      }
  for (r.steps = 0; r.steps < kMostSteps; ++r.steps) {
    const uint32_t f = p.nearest();
    if (f == UINT32_MAX || !(p.faces[f].error < INFINITY)) break;
    const Dvec3 u = p.faces[f].n;
    const SupportPoint s = support(u);
    offer(u, s.h);
    if (best <= 0.0) return finish(0.0);
    if (!(s.h - p.faces[f].distance > slack) || !p.beyond(p.faces[f], s.w)) {
      r.converged = true;
      break;
    }
    if (!p.grow(f, s.w)) break;
  }
  return finish(p.inner_radius());
}

}  // namespace xhd
