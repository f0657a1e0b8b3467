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

// The tie box of the triangles in slots [first, first + count): their corners' exact extent, least index, and
// per face the least index of those reaching it and the reach of the others.
BvhTieBox leaf_tie_box(const TriangleBvh& bvh, uint32_t first, uint32_t count) {
  auto corner = [&](uint32_t s, int c, int k) {
    const size_t at = 9ull * s + 3 * c + k;
    return bvh.corners64.empty() ? static_cast<double>(bvh.corners[at]) : bvh.corners64[at];
  };
  BvhTieBox tie{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0xffffffffu, {}, {}};
  for (uint32_t s = first; s < first + count; ++s) {
    tie.least = std::min(tie.least, bvh.triangle[s]);
    for (int k = 0; k < 3; ++k) {
      tie.lo[k] = std::min({tie.lo[k], corner(s, 0, k), corner(s, 1, k), corner(s, 2, k)});
      tie.hi[k] = std::max({tie.hi[k], corner(s, 0, k), corner(s, 1, k), corner(s, 2, k)});
    }
  }
  for (int k = 0; k < 3; ++k) {
    uint32_t least_lo = 0xffffffffu, least_hi = 0xffffffffu;
    double inner_lo = INFINITY, inner_hi = -INFINITY;
    for (uint32_t s = first; s < first + count; ++s) {
      const double lo = std::min({corner(s, 0, k), corner(s, 1, k), corner(s, 2, k)});
      const double hi = std::max({corner(s, 0, k), corner(s, 1, k), corner(s, 2, k)});
      if (lo == tie.lo[k]) least_lo = std::min(least_lo, bvh.triangle[s]);
      else inner_lo = std::min(inner_lo, lo);
      if (hi == tie.hi[k]) least_hi = std::min(least_hi, bvh.triangle[s]);
      else inner_hi = std::max(inner_hi, hi);
    }
    tie.least_on[2 * k] = least_lo;
    tie.least_on[2 * k + 1] = least_hi;
    tie.inner[2 * k] = round_down_to_float(inner_lo);
    tie.inner[2 * k + 1] = round_up_to_float(inner_hi);
  }
  return tie;
}

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
