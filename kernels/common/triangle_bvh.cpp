#include "triangle_bvh.h"

#include <algorithm>
#include <cmath>

namespace xhd {

// Indices 0..count-1 sorted by the 30-bit Morton code of point i within the points' bounding box; the
// index in the low bits makes every key distinct, so the order is fully determined.
std::vector<uint32_t> morton_order(const float* xyz, uint64_t count) {
  Box bounds;
  box_make_empty(bounds);
  for (uint64_t i = 0; i < count; ++i) box_grow(bounds, xyz + 3 * i);
  std::vector<uint64_t> keys(count);
  for (uint64_t i = 0; i < count; ++i) {
    unsigned int q[3];
    for (int k = 0; k < 3; ++k) {
      const double span = static_cast<double>(bounds.max[k]) - bounds.min[k];
      const double u = span > 0.0 ? (xyz[3 * i + k] - bounds.min[k]) / span : 0.0;
      q[k] = static_cast<unsigned int>(std::min(std::max(u * 1024.0, 0.0), 1023.0));
    }
    keys[i] = (static_cast<uint64_t>(morton3_10(q[0], q[1], q[2])) << 32) | i;
  }
  std::sort(keys.begin(), keys.end());
  std::vector<uint32_t> order(count);
  for (uint64_t i = 0; i < count; ++i) order[i] = static_cast<uint32_t>(keys[i] & 0xffffffffu);
  return order;
}

std::vector<uint32_t> triangle_morton_order(const float* xyz, const uint32_t* triangles, uint64_t count) {
  std::vector<float> centroid(3 * count);
  for (uint64_t t = 0; t < count; ++t)
    for (int i = 0; i < 3; ++i)
      centroid[3 * t + i] =
          (xyz[3ull * triangles[3 * t] + i] + xyz[3ull * triangles[3 * t + 1] + i] + xyz[3ull * triangles[3 * t + 2] + i]) / 3.f;
  return morton_order(centroid.data(), count);
}

namespace {

// The box grown by pad on every side, rounded outward so the float box still holds what it must.
void widen(Box& box, double pad) {
  if (!(pad > 0.0) || box_is_empty(box)) return;
  for (int k = 0; k < 3; ++k) {
    const double lo = static_cast<double>(box.min[k]) - pad, hi = static_cast<double>(box.max[k]) + pad;
    float flo = static_cast<float>(lo), fhi = static_cast<float>(hi);
    if (static_cast<double>(flo) > lo) flo = std::nextafter(flo, -INFINITY);
    if (static_cast<double>(fhi) < hi) fhi = std::nextafter(fhi, INFINITY);
    box.min[k] = flo;
    box.max[k] = fhi;
  }
}

}  // namespace

TriangleBvh build_triangle_bvh(const float* xyz, PointTruth truth, const uint32_t* triangles, uint64_t count, double pad) {
  TriangleBvh bvh;
  const std::vector<uint32_t> sorted = triangle_morton_order(xyz, triangles, count);
  bvh.triangle.resize(count);
  // The corners the distances are evaluated over, in the input's own type.
  if (truth.f64 != nullptr) bvh.corners64.resize(9 * count);
  else bvh.corners.resize(9 * count);
  for (uint64_t s = 0; s < count; ++s) {
    const uint32_t t = sorted[s];
    bvh.triangle[s] = t;
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 3; ++i) {
        const uint64_t at = 3ull * triangles[3ull * t + k] + i;
        if (truth.f64 != nullptr) bvh.corners64[9 * s + 3 * k + i] = truth.f64[at];
        else bvh.corners[9 * s + 3 * k + i] = truth.f32[at];
      }
  }

  // Ranges split at their middle; children are appended as a pair, so a child's index always exceeds its
  // parent's and the boxes can be filled in one backward pass.
  struct Range {
    uint32_t first, count;
  };
  std::vector<Range> ranges{{0, static_cast<uint32_t>(count)}};
  bvh.nodes.push_back({});
  for (size_t i = 0; i < ranges.size(); ++i) {
    const Range r = ranges[i];
    if (r.count <= kBvhLeafTriangles) {
      bvh.nodes[i].first = r.first;
      bvh.nodes[i].count = r.count;
      continue;
    }
    const uint32_t half = r.count / 2;
    bvh.nodes[i].first = static_cast<uint32_t>(ranges.size());
    bvh.nodes[i].count = 0;
    ranges.push_back({r.first, half});
    ranges.push_back({r.first + half, r.count - half});
    bvh.nodes.push_back({});
    bvh.nodes.push_back({});
  }
  for (size_t i = bvh.nodes.size(); i-- > 0;) {
    BvhNode& node = bvh.nodes[i];
    box_make_empty(node.box);
    if (node.count > 0) {
      // Leaves bound the float copies of their triangles, widened; parents merge their children.
      for (uint32_t s = node.first; s < node.first + node.count; ++s)
        for (int k = 0; k < 3; ++k) box_grow(node.box, xyz + 3ull * triangles[3ull * bvh.triangle[s] + k]);
      widen(node.box, pad);
    } else {
      box_merge(node.box, bvh.nodes[node.first].box);
      box_merge(node.box, bvh.nodes[node.first + 1].box);
    }
  }
  return bvh;
}

}  // namespace xhd
