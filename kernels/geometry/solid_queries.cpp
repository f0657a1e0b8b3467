#include "solid_queries.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "surface_brute_point.h"

namespace xhd {
namespace {

// Rays leave in directions no mesh is likely to line up with: not along an axis, a diagonal or a simple ratio.
constexpr Dvec3 kRays[3] = {{0.5718336271, 0.6291712113, 0.5263467591},
                            {-0.3842016433, 0.8170933427, -0.4298118129},
                            {0.7346220081, -0.2281377763, -0.6389712951}};

// Boxes are widened before a ray is tested against them, in the hierarchy's frame (relative to its origin o, the
// middle of the mesh's box), by kRayBoxWidening of the ray's start and twice the box's largest magnitude on each axis:
// far above the slab test's rounding, far below any gap a user means, and never smaller for a box than for a box it
// holds. A triangle's own box is widened so (once), a node's twice over (its float rounding besides): a ray that meets
// a triangle's widened box meets every node's above it, so the hierarchy and the reference test the same triangles.
constexpr double kRayBoxWidening = 1e-12;

bool ray_meets(Dvec3 q, Dvec3 d, const double lo[3], const double hi[3], double widening) {
  double t_in = 0.0, t_out = INFINITY;
  for (int k = 0; k < 3; ++k) {
    const double qk = dget(q, k), dk = dget(d, k);
    const double pad = widening * (std::fabs(qk) + 2 * std::max(std::fabs(lo[k]), std::fabs(hi[k]))) + 1e-300;
    const double low = lo[k] - pad, high = hi[k] + pad;
    if (dk == 0.0) {
      if (qk < low || qk > high) return false;
      continue;
    }
    double t0 = (low - qk) / dk, t1 = (high - qk) / dk;
    if (t0 > t1) std::swap(t0, t1);
    t_in = std::max(t_in, t0 - pad / std::fabs(dk));
    t_out = std::min(t_out, t1 + pad / std::fabs(dk));
    if (t_in > t_out) return false;
  }
  return true;
}

bool ray_meets_node(Dvec3 q, Dvec3 d, const Box& box) {
  const double lo[3] = {box.min[0], box.min[1], box.min[2]}, hi[3] = {box.max[0], box.max[1], box.max[2]};
  return ray_meets(q, d, lo, hi, 2 * kRayBoxWidening);
}

// One triangle against the ray p + t d, t > 0 (q = p - o): 1 crossed, 0 missed, -1 undecided. A triangle whose
// widened box the ray misses is missed; one with no area is skipped (its points lie on its neighbours' edges, whose
// own tests see the ray there). The line meets the triangle's inside when the three triple products
// d . (a - p) x (b - p) (and cyclic) share a sign; where it meets the plane, t > 0 when (a - p) . (b - p) x (c - p)
// has that sign too.
int ray_crosses(Dvec3 p, Dvec3 q, Dvec3 d, const Corners3& t, const double o[3]) {
  double lo[3], hi[3];
  for (int k = 0; k < 3; ++k) {
    const double a = dget(t.v[0], k) - o[k], b = dget(t.v[1], k) - o[k], c = dget(t.v[2], k) - o[k];
    lo[k] = std::min({a, b, c}), hi[k] = std::max({a, b, c});
  }
  if (!ray_meets(q, d, lo, hi, kRayBoxWidening)) return 0;
  const Dvec3 n = dcross_accurate(dsub(t.v[1], t.v[0]), dsub(t.v[2], t.v[0]));
  if (n.x == 0.0 && n.y == 0.0 && n.z == 0.0) return 0;
  const Dvec3 a = dsub(t.v[0], p), b = dsub(t.v[1], p), c = dsub(t.v[2], p);
  const int s[3] = {proven_triple_sign(d, a, b), proven_triple_sign(d, b, c), proven_triple_sign(d, c, a)};
  bool plus = false, minus = false, unknown = false;
  for (int k = 0; k < 3; ++k) plus |= s[k] > 0, minus |= s[k] < 0, unknown |= s[k] == 0;
  if (plus && minus) return 0;  // proven on opposite sides of two edges: the line passes by
  if (unknown) return -1;       // along an edge or a corner, or the triangle is flat along the ray
  const int side = proven_triple_sign(a, b, c);
  if (side == 0) return -1;  // p lies on the triangle (within rounding)
  return side == (plus ? 1 : -1) ? 1 : 0;
}

}  // namespace

// Shewchuk's bound for an orientation determinant of differences rounded once each is (7 + 56u)u times the
// permanent (Adaptive precision floating-point arithmetic, 1997); 16u covers it and the rounding of the permanent.
int proven_triple_sign(Dvec3 u, Dvec3 v, Dvec3 w) {
  const double value = ddot(u, dcross(v, w));
  const double permanent = std::fabs(u.x) * (std::fabs(v.y * w.z) + std::fabs(v.z * w.y)) +
                           std::fabs(u.y) * (std::fabs(v.z * w.x) + std::fabs(v.x * w.z)) +
                           std::fabs(u.z) * (std::fabs(v.x * w.y) + std::fabs(v.y * w.x));
  const double bound = 16.0 * 0x1p-53 * permanent;
  return value > bound ? 1 : (value < -bound ? -1 : 0);
}

SolidQueries::SolidQueries(const SolidMesh& m, bool every_triangle) : m_(m), every_(every_triangle) {
  for (int k = 0; k < 3; ++k) low_[k] = INFINITY, high_[k] = -INFINITY;
  for (uint64_t i = 0; i < 3 * m.triangle_count; ++i)
    for (int k = 0; k < 3; ++k) {
      const double x = m.xyz[3ull * m.triangles[i] + k];
      low_[k] = std::min(low_[k], x), high_[k] = std::max(high_[k], x);
    }
  for (int k = 0; k < 3; ++k) origin_[k] = 0.5 * low_[k] + 0.5 * high_[k];
  if (every_ || m.triangle_count == 0) return;
  std::vector<float> order(3 * m.vertex_count);  // float copies only order the triangles
  for (uint64_t i = 0; i < 3 * m.vertex_count; ++i) order[i] = static_cast<float>(m.xyz[i] - origin_[i % 3]);
  bvh_ = build_triangle_bvh(order.data(), PointTruth{nullptr, m.xyz, m.vertex_count}, m.triangles, m.triangle_count,
                            origin_);
}

Corners3 SolidQueries::triangle(uint64_t i) const {
  Corners3 c;
  for (int k = 0; k < 3; ++k) {
    const double* v = m_.xyz + 3ull * m_.triangles[3 * i + k];
    c.v[k] = {v[0], v[1], v[2]};
  }
  return c;
}

int SolidQueries::crossings(Dvec3 p, Dvec3 d) const {
  int parity = 0;
  const Dvec3 q = {p.x - origin_[0], p.y - origin_[1], p.z - origin_[2]};
  auto offer = [&](const Corners3& t) {
    const int crossed = ray_crosses(p, q, d, t, origin_);
    if (crossed < 0) return false;
    parity ^= crossed;
    return true;
  };
  if (every_) {
    for (uint64_t i = 0; i < m_.triangle_count; ++i)
      if (!offer(triangle(i))) return -1;
    return parity;
  }
  const BvhView v = bvh_.view();  // its origin is origin_
  uint32_t stack[kBvhStack];  // each pop pushes at most two: never deeper than the tree and one
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const BvhNode node = v.nodes[stack[--top]];
    if (!ray_meets_node(q, d, node.box)) continue;
    if (node.count == 0) {
      stack[top++] = node.first;
      stack[top++] = node.first + 1;
      continue;
    }
    for (uint32_t s = node.first; s < node.first + node.count; ++s) {
      const double* c = v.corners64 + 9ull * s;
      if (!offer(Corners3{{{c[0], c[1], c[2]}, {c[3], c[4], c[5]}, {c[6], c[7], c[8]}}})) return -1;
    }
  }
  return parity;
}

Inside SolidQueries::inside(Dvec3 p) const {
  for (int k = 0; k < 3; ++k)
    if (dget(p, k) < low_[k] || dget(p, k) > high_[k]) return Inside::kOutside;
  for (const Dvec3& d : kRays) {
    const int parity = crossings(p, d);
    if (parity >= 0) return parity ? Inside::kInside : Inside::kOutside;
  }
  return Inside::kUndecided;
}

bool SolidQueries::nearer_than(Dvec3 p, double d2) const {
  // The surface value distance2 takes the least of (point_triangle.h), so that "nearer" agrees with it.
  auto nearer = [&](const Corners3& t) {
    return surface_value(p, t.v[0], t.v[1], t.v[2], corner_box_dist2(p, t.v[0], t.v[1], t.v[2])).d2 < d2;
  };
  if (every_) {
    for (uint64_t i = 0; i < m_.triangle_count; ++i)
      if (nearer(triangle(i))) return true;
    return false;
  }
  // Nearest child first, boxes beyond reach of d2 skipped (each holds its triangles: triangle_bvh.h).
  const BvhView v = bvh_.view();
  const Dvec3 q = {p.x - v.origin[0], p.y - v.origin[1], p.z - v.origin[2]};
  const double reach = surface_reach2(d2);
  uint32_t stack[kBvhStack];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const BvhNode node = v.nodes[stack[--top]];
    if (min_dist2_double(q, node.box) > reach) continue;
    if (node.count > 0) {
      for (uint32_t s = node.first; s < node.first + node.count; ++s) {
        const double* c = v.corners64 + 9ull * s;
        if (nearer(Corners3{{{c[0], c[1], c[2]}, {c[3], c[4], c[5]}, {c[6], c[7], c[8]}}})) return true;
      }
      continue;
    }
    const double left = min_dist2_double(q, v.nodes[node.first].box),
                 right = min_dist2_double(q, v.nodes[node.first + 1].box);
    stack[top++] = left <= right ? node.first + 1 : node.first;
    stack[top++] = left <= right ? node.first : node.first + 1;
  }
  return false;
}

double SolidQueries::distance2(Dvec3 p) const {
  if (!every_) {
    NearestTriangle best;
    nearest_triangle(bvh_.view(), p, best);
    return best.d2;
  }
  return nearest_triangle_brute(PointTruth{nullptr, m_.xyz, m_.vertex_count}, m_.triangles, m_.triangle_count, p)
      .best.d2;
}

}  // namespace xhd
