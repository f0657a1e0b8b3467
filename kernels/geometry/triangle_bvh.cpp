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
      centroid[3 * t + i] = (xyz[3ull * triangles[3 * t] + i] + xyz[3ull * triangles[3 * t + 1] + i] +
                             xyz[3ull * triangles[3 * t + 2] + i]) /
                            3.f;
  return morton_order(centroid.data(), count);
}

namespace {

// The box of the triangles in slots [first, first + count), relative to origin, in float: the corners'
// differences to the origin in double (each within 2^-53 of itself of the real difference), widened by the
// pad of the largest of them (surface_bounds.h: the pad's 2^-50 of the magnitude covers those roundings and
// the widening's own), then rounded outward. It holds every triangle of the leaf, widened by its own pad.
Box leaf_box(const TriangleBvh& bvh, uint32_t first, uint32_t count) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint32_t s = first; s < first + count; ++s)
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 3; ++k) {
        const size_t at = 9ull * s + 3 * c + k;
        const double v =
            (bvh.corners64.empty() ? static_cast<double>(bvh.corners[at]) : bvh.corners64[at]) - bvh.origin[k];
        lo[k] = std::min(lo[k], v);
        hi[k] = std::max(hi[k], v);
      }
  double extent = 0.0, magnitude = 0.0;
  for (int k = 0; k < 3; ++k) {
    extent = std::max(extent, hi[k] - lo[k]);
    magnitude = std::max({magnitude, std::fabs(lo[k]), std::fabs(hi[k])});
  }
  const double pad = triangle_pad(extent, magnitude);
  Box box;
  for (int k = 0; k < 3; ++k) {
    box.min[k] = round_down_to_float(lo[k] - pad);
    box.max[k] = round_up_to_float(hi[k] + pad);
  }
  return box;
}

// The tie box of two nodes' triangles together.
BvhTieBox merged(const BvhTieBox& a, const BvhTieBox& b) {
  BvhTieBox m;
  m.least = std::min(a.least, b.least);
  for (int k = 0; k < 3; ++k) {
    m.lo[k] = std::min(a.lo[k], b.lo[k]);
    m.hi[k] = std::max(a.hi[k], b.hi[k]);
    // A child that reaches the parent's face brings its own split; one that stops short of it is all inner.
    m.least_on[2 * k] = m.least_on[2 * k + 1] = 0xffffffffu;
    float inner_lo = static_cast<float>(INFINITY), inner_hi = -static_cast<float>(INFINITY);
    for (const BvhTieBox* c : {&a, &b}) {
      if (c->lo[k] == m.lo[k]) {
        m.least_on[2 * k] = std::min(m.least_on[2 * k], c->least_on[2 * k]);
        inner_lo = std::min(inner_lo, c->inner[2 * k]);
      } else {
        inner_lo = std::min(inner_lo, round_down_to_float(c->lo[k]));
      }
      if (c->hi[k] == m.hi[k]) {
        m.least_on[2 * k + 1] = std::min(m.least_on[2 * k + 1], c->least_on[2 * k + 1]);
        inner_hi = std::max(inner_hi, c->inner[2 * k + 1]);
      } else {
        inner_hi = std::max(inner_hi, round_up_to_float(c->hi[k]));
      }
    }
    m.inner[2 * k] = inner_lo;
    m.inner[2 * k + 1] = inner_hi;
  }
  return m;
}

// The tie box of the triangles in slots [first, first + count): each triangle's own (its corner box, which
// reaches every face of itself), merged.
BvhTieBox leaf_tie_box(const TriangleBvh& bvh, uint32_t first, uint32_t count) {
  auto corner = [&](uint32_t s, int c) {
    const size_t at = 9ull * s + 3 * c;
    if (bvh.corners64.empty()) return Dvec3{bvh.corners[at], bvh.corners[at + 1], bvh.corners[at + 2]};
    return Dvec3{bvh.corners64[at], bvh.corners64[at + 1], bvh.corners64[at + 2]};
  };
  // No triangle (an empty mesh's root): an empty box, whose square is infinite, so no search enters it.
  BvhTieBox tie{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0xffffffffu, {}, {}};
  for (uint32_t s = first; s < first + count; ++s) {
    const CornerBox box = corner_box(corner(s, 0), corner(s, 1), corner(s, 2));
    BvhTieBox own;
    own.least = bvh.triangle[s];
    for (int k = 0; k < 3; ++k) {
      own.lo[k] = box.lo[k];
      own.hi[k] = box.hi[k];
      own.least_on[2 * k] = own.least_on[2 * k + 1] = own.least;
      own.inner[2 * k] = static_cast<float>(INFINITY);
      own.inner[2 * k + 1] = -static_cast<float>(INFINITY);
    }
    tie = s == first ? own : merged(tie, own);
  }
  return tie;
}

}  // namespace

TriangleBvh build_triangle_bvh(const float* xyz, PointTruth truth, const uint32_t* triangles, uint64_t count,
                               const double origin[3], bool tie_boxes) {
  TriangleBvh bvh;
  for (int k = 0; k < 3; ++k) bvh.origin[k] = origin[k];
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
  if (tie_boxes) bvh.ties.resize(bvh.nodes.size());
  for (size_t i = bvh.nodes.size(); i-- > 0;) {
    BvhNode& node = bvh.nodes[i];
    box_make_empty(node.box);
    if (node.count > 0) {
      // Leaves bound their triangles (leaf_box); parents merge their children.
      node.box = leaf_box(bvh, node.first, node.count);
      if (tie_boxes) bvh.ties[i] = leaf_tie_box(bvh, node.first, node.count);
    } else {
      box_merge(node.box, bvh.nodes[node.first].box);
      box_merge(node.box, bvh.nodes[node.first + 1].box);
      if (tie_boxes) bvh.ties[i] = merged(bvh.ties[node.first], bvh.ties[node.first + 1]);
    }
  }
  return bvh;
}

}  // namespace xhd
