#include "triangle_bvh.h"

#include <algorithm>

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

TriangleBvh build_triangle_bvh(const float* xyz, const uint32_t* triangles, uint64_t count) {
  TriangleBvh bvh;
  const std::vector<uint32_t> sorted = triangle_morton_order(xyz, triangles, count);
  bvh.triangle.resize(count);
  bvh.corners.resize(9 * count);
  for (uint64_t s = 0; s < count; ++s) {
    const uint32_t t = sorted[s];
    bvh.triangle[s] = t;
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 3; ++i) bvh.corners[9 * s + 3 * k + i] = xyz[3ull * triangles[3ull * t + k] + i];
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
      for (uint32_t s = node.first; s < node.first + node.count; ++s)
        for (int k = 0; k < 3; ++k) box_grow(node.box, &bvh.corners[9ull * s + 3 * k]);
    } else {
      box_merge(node.box, bvh.nodes[node.first].box);
      box_merge(node.box, bvh.nodes[node.first + 1].box);
    }
  }
  return bvh;
}

}  // namespace xhd
