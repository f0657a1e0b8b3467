#include "normal_slab_build.h"

#include <cmath>

#include "parallel.h"

namespace xhd {
namespace {

// A slab only pays when the node's normals mostly agree: |Σ n| at least this share of Σ |n|.
constexpr double kMinAgreement = 0.5;

}  // namespace

LargeVector<Slab> build_slabs(const F12Mesh& mesh, const Box* boxes, int threads) {
  const F12Shape& s = mesh.shape;
  const uint64_t nodes = f12_node_count(s);
  LargeVector<Slab> slabs(nodes);
  // Per node: Σ of its triangles' normals (length twice the area) and Σ of their lengths.
  LargeVector<Dvec3> sum(nodes);
  LargeVector<double> spread(nodes);
  const auto settle = [&](uint64_t node, const auto& extent) {
    Slab& slab = slabs[node];
    slab = Slab{{0.f, 0.f, 0.f}, 0.0, 0.0};
    const double length = std::sqrt(ddot(sum[node], sum[node]));
    if (!(length > 0.0) || length < kMinAgreement * spread[node]) return;
    for (int k = 0; k < 3; ++k) slab.u[k] = static_cast<float>(dget(sum[node], k) / length);
    extent(Dvec3{slab.u[0], slab.u[1], slab.u[2]}, &slab.lo, &slab.hi);
  };
  // Leaves: exact, from their corners.
  const uint64_t leaves = 1ull << s.depth;
  const float* c = mesh.corners.data();
  parallel_blocks(leaves, 4096, threads, [&](size_t begin, size_t end, int) {
    for (size_t i = begin; i < end; ++i) {
      const uint64_t node = f12_node(s.depth, i);
      const uint32_t first = f12_leaf_first(s, i), last = f12_leaf_first(s, i + 1);
      Dvec3 total{0.0, 0.0, 0.0};
      double lengths = 0.0;
      for (uint32_t t = first; t < last; ++t) {
        const Corners3 k = load_corners(c + 9ull * t);
        const Dvec3 n = dcross(dsub(k.v[1], k.v[0]), dsub(k.v[2], k.v[0]));
        total = {total.x + n.x, total.y + n.y, total.z + n.z};
        lengths += std::sqrt(ddot(n, n));
      }
      sum[node] = total;
      spread[node] = lengths;
      settle(node, [&](Dvec3 u, double* lo, double* hi) {
        *lo = INFINITY, *hi = -INFINITY;
        for (uint64_t v = 3ull * first; v < 3ull * last; ++v) {
          const double h = ddot(u, dload(c + 3 * v));
          *lo = std::fmin(*lo, h);
          *hi = std::fmax(*hi, h);
        }
      });
    }
  });
  // Internal nodes: the children's extents along the parent's normal (each from the child's box and slab):
  // a little wider than the exact extent, found in constant time.
  for (uint32_t level = s.depth; level-- > 0;) {
    const uint64_t count = 1ull << level;
    parallel_blocks(count, 4096, threads, [&](size_t begin, size_t end, int) {
      for (size_t i = begin; i < end; ++i) {
        const uint64_t node = f12_node(level, i), left = f12_node(level + 1, 2 * i), right = left + 1;
        sum[node] = {sum[left].x + sum[right].x, sum[left].y + sum[right].y, sum[left].z + sum[right].z};
        spread[node] = spread[left] + spread[right];
        settle(node, [&](Dvec3 u, double* lo, double* hi) {
          double llo, lhi, rlo, rhi;
          node_extent(centred(boxes[left]), slabs[left], u, &llo, &lhi);
          node_extent(centred(boxes[right]), slabs[right], u, &rlo, &rhi);
          *lo = std::fmin(llo, rlo);
          *hi = std::fmax(lhi, rhi);
        });
      }
    });
  }
  return slabs;
}

// The pose's 3x3 part is orthogonal to within 1e-9 (a rigid motion, perhaps a reflection).
bool is_rigid(const double* pose) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const double dot = pose[i] * pose[j] + pose[4 + i] * pose[4 + j] + pose[8 + i] * pose[8 + j];
      if (std::fabs(dot - (i == j ? 1.0 : 0.0)) > 1e-9) return false;
    }
  return true;
}

}  // namespace xhd
