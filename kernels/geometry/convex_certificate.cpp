#include "convex_certificate.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "../abi/parallel.h"
#include "triangle_bvh.h"

namespace xhd {
namespace {

constexpr double kU = 0x1p-53;
constexpr uint32_t kLeafVertices = 8;

// The used vertices relative to c, in a binary tree of boxes (Morton order, ranges halved): the largest u . (v - c)
// by branch and bound, the same value a scan of every vertex computes (a box is passed over only when its bound,
// widened by its rounding, is below the best found).
class SupportTree {
 public:
  SupportTree(const SolidMesh& m, const std::vector<uint32_t>& used, Dvec3 c) {
    std::vector<float> rough(3 * used.size());
    for (size_t i = 0; i < used.size(); ++i)
      for (int k = 0; k < 3; ++k) rough[3 * i + k] = static_cast<float>(m.xyz[3ull * used[i] + k] - dget(c, k));
    const std::vector<uint32_t> order = morton_order(rough.data(), used.size());
    points_.resize(used.size());
    for (size_t i = 0; i < used.size(); ++i) {
      const double* v = m.xyz + 3ull * used[order[i]];
      points_[i] = {v[0] - c.x, v[1] - c.y, v[2] - c.z};
    }
    nodes_.push_back({{}, {}, 0, static_cast<uint32_t>(points_.size()), 0});
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const Node r = nodes_[i];
      if (r.count <= kLeafVertices) continue;
      const uint32_t half = r.count / 2;
      nodes_[i].children = static_cast<uint32_t>(nodes_.size());
      nodes_.push_back({{}, {}, r.first, half, 0});
      nodes_.push_back({{}, {}, r.first + half, r.count - half, 0});
    }
    for (Node& n : nodes_) {
      for (int k = 0; k < 3; ++k) n.lo[k] = INFINITY, n.hi[k] = -INFINITY;
      for (uint32_t j = n.first; j < n.first + n.count; ++j)
        for (int k = 0; k < 3; ++k)
          n.lo[k] = std::min(n.lo[k], dget(points_[j], k)), n.hi[k] = std::max(n.hi[k], dget(points_[j], k));
    }
  }

  // at_least: a value some vertex reaches (a face's own corner): boxes that cannot beat it are passed over at once.
  double max_dot(Dvec3 u, double at_least) const {
    double best = at_least;
    uint32_t stack[128];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const Node& n = nodes_[stack[--top]];
      if (reach(n, u) < best) continue;
      if (n.children == 0) {
        for (uint32_t j = n.first; j < n.first + n.count; ++j) best = std::max(best, ddot(u, points_[j]));
        continue;
      }
      // The nearer-looking child last, so that it is searched first.
      const bool left_first = reach(nodes_[n.children], u) >= reach(nodes_[n.children + 1], u);
      stack[top++] = left_first ? n.children + 1 : n.children;
      stack[top++] = left_first ? n.children : n.children + 1;
    }
    return best;
  }

 private:
  struct Node {
    double lo[3], hi[3];
    uint32_t first, count;
    uint32_t children;  // 0 for a leaf
  };

  // The most u . v can be in the node's box, widened by its rounding: a box below the best holds no better vertex.
  static double reach(const Node& n, Dvec3 u) {
    double bound = 0.0, size = 0.0;
    for (int k = 0; k < 3; ++k) {
      const double uk = dget(u, k);
      bound += uk >= 0.0 ? uk * n.hi[k] : uk * n.lo[k];
      size += std::fabs(uk) * std::max(std::fabs(n.lo[k]), std::fabs(n.hi[k]));
    }
    return bound + 8 * kU * size;
  }

  std::vector<Dvec3> points_;
  std::vector<Node> nodes_;
};

}  // namespace

ConvexCertificate convex_certificate(const SolidMesh& m, const SolidTopology& t, int orientation,
                                     const SolidQueries& inside, int threads) {
  ConvexCertificate out;
  if (!t.closed || orientation == 0 || t.used.empty()) return out;
  Dvec3 c{0.0, 0.0, 0.0};
  for (uint32_t v : t.used) c = {c.x + m.xyz[3ull * v], c.y + m.xyz[3ull * v + 1], c.z + m.xyz[3ull * v + 2]};
  const double n_used = static_cast<double>(t.used.size());
  c = {c.x / n_used, c.y / n_used, c.z / n_used};
  double far = 0.0;
  for (uint32_t v : t.used) {
    const Dvec3 d = dsub(solid_vertex(m, v), c);
    far = std::max(far, std::sqrt(ddot(d, d)));
  }
  far *= 1.0 + 4 * kU;
  // Per face: how far c lies below its plane (proven: less the plane's rounding) and how far the vertices rise above
  // it at most (plus that rounding). A face's unit normal is off by its edges' rounding over its area and the cross
  // product's and division's (as in hull_penetration.cpp); a value u . w with |w| <= D then by that tilt times D,
  // plus its own few u of D. First c's place (cheap, and a mesh far from convex fails there), then the rises.
  struct Plane {
    Dvec3 u;
    double offset, error;
  };
  std::vector<Plane> planes(m.triangle_count);
  std::vector<double> below(std::max(threads, 1), INFINITY), rise(std::max(threads, 1), 0.0);
  parallel_blocks(m.triangle_count, 1024, threads, [&](size_t begin, size_t end, int tid) {
    for (size_t i = begin; i < end; ++i) {
      const uint32_t* f = m.triangles + 3 * i;
      const Dvec3 p0 = solid_vertex(m, f[0]), e1 = dsub(solid_vertex(m, f[1]), p0), e2 = dsub(solid_vertex(m, f[2]), p0);
      const Dvec3 n = dcross_accurate(e1, e2);
      const double length = std::sqrt(ddot(n, n));
      planes[i].error = -1.0;  // no plane: not one of I's faces
      if (!(length > 0.0)) continue;
      const double s = orientation / length;
      const Dvec3 u = {n.x * s, n.y * s, n.z * s};
      const double tilt = 4 * kU * (1.0 + std::sqrt(ddot(e1, e1)) * std::sqrt(ddot(e2, e2)) / length);
      planes[i] = {u, ddot(u, dsub(p0, c)), (tilt + 8 * kU) * 2 * far};
      below[tid] = std::min(below[tid], planes[i].offset - planes[i].error);
    }
  });
  const double rho = *std::min_element(below.begin(), below.end());
  if (!(rho > 0.0) || !std::isfinite(rho)) return out;
  const SupportTree tree(m, t.used, c);
  parallel_blocks(m.triangle_count, 256, threads, [&](size_t begin, size_t end, int tid) {
    for (size_t i = begin; i < end; ++i) {
      const Plane& p = planes[i];
      if (p.error < 0.0) continue;
      rise[tid] = std::max(rise[tid], tree.max_dot(p.u, p.offset) - p.offset + p.error);
    }
  });
  const double delta = *std::max_element(rise.begin(), rise.end());
  if (inside.inside(c) != Inside::kInside) return out;
  out.holds = true;
  out.correction = delta * far / rho * (1.0 + 1e-12);
  out.far = far;
  out.rho = rho;
  return out;
}

ConvexCertificate posed_certificate(const ConvexCertificate& own, const double pose[12], double largest) {
  ConvexCertificate out;
  if (!own.holds) return out;
  double eta2 = 0.0, reach = 0.0, shift = 0.0;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      double dot = 0.0;  // column i . column j of M
      for (int k = 0; k < 3; ++k) dot += pose[4 * k + i] * pose[4 * k + j];
      const double gap = dot - (i == j ? 1.0 : 0.0);
      eta2 += gap * gap;
    }
    reach = std::max(reach, std::fabs(pose[4 * i]) + std::fabs(pose[4 * i + 1]) + std::fabs(pose[4 * i + 2]));
    shift = std::max(shift, std::fabs(pose[4 * i + 3]));
  }
  const double eta = std::sqrt(eta2) + 1e-15;
  if (!(eta < 0.5)) return out;
  const double s = std::sqrt(1.0 + eta), r = std::sqrt(1.0 - eta);
  // pose_vertex64's three products and three sums, each within u of its partial magnitude, on every coordinate.
  const double e = 8 * kU * std::sqrt(3.0) * (reach * largest + shift);
  if (!(r * own.rho > 2 * e)) return out;
  out.holds = true;
  out.far = s * own.far + e;
  out.rho = r * own.rho - e;
  out.correction = (s * own.correction + e * (1.0 + s * own.far / (r * own.rho - e))) * (1.0 + 1e-12);
  return out;
}

}  // namespace xhd
