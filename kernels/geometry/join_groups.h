// The join's view of a collection (xhd_join_set): its objects' triangles in double over the input's own
// coordinates, grouped per object into facet groups of nearby triangles (3DPipe's "voxels"), each group and
// object with its box and an anchor (one of its vertices). Boxes give lower bounds of distances, anchors upper
// bounds: the distance between two vertices is a distance between two points of the surfaces.
#pragma once

#include <cstdint>
#include <vector>

#include "triangle_pair.h"
#include "xhd.h"
#include "../abi/large_buffer.h"

namespace xhd {

struct DBox {
  double lo[3], hi[3];
};

// The smallest distance between two boxes (0 when they overlap), in double, squared.
inline double box_gap2(const DBox& a, const DBox& b) {
  double s = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double d = a.lo[k] > b.hi[k] ? a.lo[k] - b.hi[k] : (b.lo[k] > a.hi[k] ? b.lo[k] - a.hi[k] : 0.0);
    s += d * d;
  }
  return s;
}

inline double box_gap(const DBox& a, const DBox& b) { return std::sqrt(box_gap2(a, b)); }

inline double point_distance(const Dvec3& p, const Dvec3& q) {
  const Dvec3 d = dsub(p, q);
  return std::sqrt(ddot(d, d));
}

// A checked xhd_join_set, read in place.
struct JoinSetView {
  const float* f32 = nullptr;
  const double* f64 = nullptr;
  const uint32_t* triangles = nullptr;
  const uint64_t* object_faces = nullptr;
  uint64_t objects = 0;
  uint64_t vertex_count = 0;

  Dvec3 vertex(uint32_t i) const {
    if (f64 != nullptr) return {f64[3ull * i], f64[3ull * i + 1], f64[3ull * i + 2]};
    return dload(f32 + 3ull * i);
  }
  // Triangle t of the whole set (object_faces[o] + local index).
  Corners3 corners(uint64_t t) const {
    Corners3 c;
    for (int k = 0; k < 3; ++k) c.v[k] = vertex(triangles[3 * t + k]);
    return c;
  }
};

// The arrays with an element per triangle or group are left unwritten when sized (UninitLargeVector) and first
// written by the parallel loops that fill them: zero-filled, a billion triangles' boxes took seconds on one core.
struct GroupedSet {
  JoinSetView set;
  UninitLargeVector<uint64_t> order;        // the set's triangles, each object's run permuted so groups are contiguous
  UninitLargeVector<uint64_t> group_begin;  // group g is order[group_begin[g], group_begin[g + 1])
  std::vector<uint64_t> object_group;       // object o's groups are [object_group[o], object_group[o + 1])
  UninitLargeVector<DBox> group_box;
  UninitLargeVector<Dvec3> group_anchor;
  UninitLargeVector<DBox> slot_box;  // each triangle's box, by its slot in order
  // Each object's groups as the leaves of the binary tree their median splits made (groups_near): object o's
  // 2 n - 1 node boxes (n its groups) start at 2 object_group[o] - o, in preorder.
  UninitLargeVector<DBox> node_box;
  std::vector<DBox> object_box;
  std::vector<Dvec3> object_anchor;
  double largest_coordinate = 0.0;  // over the set's triangles' corners
};

// Calls visit(g) for each group g of object o whose box lies within reach of q (box_gap(group_box[g], q) <=
// reach), in increasing order. Each node of the tree over the object's groups halves its count of them, the
// left child taking count / 2, as the median splits did, so its nodes are compact; a node's box holds its groups' boxes and box_gap, rounding
// included, never shrinks as a box grows, so a node too far has no group within reach.
template <class Visit>
void groups_near(const GroupedSet& s, uint64_t o, const DBox& q, double reach, Visit visit) {
  const uint64_t g0 = s.object_group[o], groups = s.object_group[o + 1] - g0;
  const DBox* nodes = s.node_box.data() + (2 * g0 - o);
  struct Entry {
    uint64_t first, count, node;
  };
  Entry stack[130];  // one entry a level and one more: at most 65 for 2^64 groups
  int top = 0;
  stack[top++] = {0, groups, 0};
  while (top > 0) {
    const Entry e = stack[--top];
    if (!(box_gap(nodes[e.node], q) <= reach)) continue;
    if (e.count == 1) {
      visit(g0 + e.first);
      continue;
    }
    const uint64_t half = e.count / 2;
    stack[top++] = {e.first + half, e.count - half, e.node + 2 * half};
    stack[top++] = {e.first, half, e.node + 1};
  }
}

// Checks the set (offsets, indices, coordinates; an object without triangles is refused by its index) and
// groups it: each object's triangles are split at the median centroid along the longest side of their
// centroids' box until a run holds at most group_size. Threads work on objects side by side.
void group_join_set(const xhd_join_set& in, const char* name, uint32_t group_size, int threads, GroupedSet& out);

}  // namespace xhd
