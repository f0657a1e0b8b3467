// A bounding volume hierarchy over a mesh's triangles, built on the host and searched by every backend
// (the CPU directly, the GPU after an upload of the same arrays): triangles sorted by the Morton code of
// their centroid, split at the middle of each range down to leaves of a few triangles, float boxes around
// the float copies of the triangles widened by the frame's pad (surface_frame.h), so they hold the triangles
// in the input's own coordinates, which the distances are evaluated over.
// The nearest-triangle search is one function for host and device, so both backends give the same
// triangle and the same double-precision distance for every point.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "../abi/large_buffer.h"
#include "point_triangle.h"
#include "surface_bounds.h"

namespace xhd {

// An internal node has count == 0 and children first and first + 1; a leaf holds the sorted triangle
// slots [first, first + count).
struct BvhNode {
  Box box;
  uint32_t first;
  uint32_t count;
};

constexpr uint32_t kBvhLeafTriangles = 4;
// Depth-first search keeps at most one deferred child per level; depth stays under 33 for 2^32 triangles.
constexpr int kBvhStack = 64;

// A node's exact box in the input's own coordinates (the union of its triangles' corner boxes) and the least
// original index of its triangles: with them a search skips a node none of whose triangles can win, rounding
// ties included, with no margin (point_triangle.h, surface_value and cannot_win). Faces are numbered 2k (the low
// face of axis k) and 2k + 1 (the high one); per face, the least index among the triangles whose corner box
// reaches it, and how far the others reach towards it (rounded outward to float; -inf on a high face, +inf on a
// low one, where every triangle reaches it).
struct BvhTieBox {
  double lo[3], hi[3];
  uint32_t least;
  uint32_t least_on[6];
  float inner[6];
};

// What the search reads: plain pointers (host or device memory).
struct BvhView {
  double origin[3];  // the boxes are relative to it
  const BvhNode* nodes;
  // Per sorted slot, the triangle's three vertices in the input's own coordinates (9 values): floats for a
  // float32 mesh, doubles for a double one (the other pointer is null).
  const float* corners;
  const double* corners64;
  const uint32_t* triangle;  // original triangle index per sorted slot
  const BvhTieBox* ties;     // per node, or null (not built): only the margins' pruning then
};

struct TriangleBvh {
  double origin[3] = {0.0, 0.0, 0.0};
  std::vector<BvhNode> nodes;
  std::vector<float> corners;
  std::vector<double> corners64;
  std::vector<uint32_t> triangle;
  UninitLargeVector<BvhTieBox> ties;  // every node's written by the build (a zero fill first cost as much again)

  BvhView view() const {
    return {{origin[0], origin[1], origin[2]},
            nodes.data(),
            corners.empty() ? nullptr : corners.data(),
            corners64.empty() ? nullptr : corners64.data(),
            triangle.data(),
            ties.empty() ? nullptr : ties.data()};
  }
};

// Point indices in Morton order of their position within the points' bounding box: the order in which
// queries share the most of their search paths.
std::vector<uint32_t> morton_order(const float* xyz, uint64_t count);

// Triangle indices in Morton order of their centroids (vertex indices must already be checked).
std::vector<uint32_t> triangle_morton_order(const float* xyz, const uint32_t* triangles, uint64_t count);

// Builds the hierarchy over the vertices `truth` (the input's own coordinates), its boxes relative to
// origin; `order_xyz` (float copies of the vertices, any frame) only orders the triangles. Vertex indices
// must already be checked against the vertex count. With tie_boxes, each node's BvhTieBox too (104 bytes a
// node, about 26 a triangle).
TriangleBvh build_triangle_bvh(const float* order_xyz, PointTruth truth, const uint32_t* triangles,
                               uint64_t triangle_count, const double origin[3], bool tie_boxes = true);

struct NearestTriangle {
  double d2 = static_cast<double>(INFINITY);  // squared distance to the nearest surface point found
  Dvec3 at{0.0, 0.0, 0.0};                    // that point
  uint32_t triangle = 0xffffffffu;            // its triangle (original index); ties go to the smallest
  uint32_t slot = 0xffffffffu;                // that triangle's sorted slot (a seed for a nearby query)
  uint32_t tests = 0;                         // point-triangle distances evaluated
};

// p in the input's own coordinates.
XHD_HD void offer_triangle(const BvhView& v, uint32_t slot, Dvec3 p, NearestTriangle& best) {
  const PointTruth corners{v.corners64 != nullptr ? nullptr : v.corners + 9ull * slot,
                           v.corners64 != nullptr ? v.corners64 + 9ull * slot : nullptr, 3};
  const Dvec3 a = truth_point(corners, 0), b = truth_point(corners, 1), c = truth_point(corners, 2);
  const double box_d2 = corner_box_dist2(p, a, b, c);
  const uint32_t id = v.triangle[slot];
  if (cannot_win(box_d2, id, best.d2, best.triangle)) return;
  const SurfacePoint s = surface_value(p, a, b, c, box_d2);
  ++best.tests;
  if (s.d2 < best.d2 || (s.d2 == best.d2 && id < best.triangle)) {
    best.d2 = s.d2;
    best.at = s.at;
    best.triangle = id;
    best.slot = slot;
  }
}

// Whether no triangle of a node whose box square box_d2 equals the best value can win (a far query whose values
// tie over a whole face of the mesh): split by the face of the box that p lies farthest beyond, the triangles that
// reach that face have box squares of at least box_d2 and indices of at least least_on; the others lie within
// the box pulled back to `inner`, whose square bounds theirs (monotone rounding). Without it a node holding one
// such face triangle and a low index elsewhere was searched: 67 nodes a query 6.5e10 from fandisk.
XHD_HD bool face_cannot_win(const BvhTieBox& tie, Dvec3 p, double box_d2, const NearestTriangle& best) {
  const double q[3] = {p.x, p.y, p.z};
  int face = -1;
  double widest = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double below = tie.lo[k] - q[k], above = q[k] - tie.hi[k];
    if (below > widest) widest = below, face = 2 * k;
    if (above > widest) widest = above, face = 2 * k + 1;
  }
  if (face < 0 || !cannot_win(box_d2, tie.least_on[face], best.d2, best.triangle)) return false;
  double lo[3] = {tie.lo[0], tie.lo[1], tie.lo[2]}, hi[3] = {tie.hi[0], tie.hi[1], tie.hi[2]};
  (face & 1 ? hi : lo)[face / 2] = static_cast<double>(tie.inner[face]);
  return cannot_win(corner_box_dist2(p, lo, hi), tie.least, best.d2, best.triangle);
}

// Whether none of a node's triangles can win against the best so far, its box square box_d2.
XHD_HD bool node_cannot_win(const BvhTieBox& tie, Dvec3 p, double box_d2, const NearestTriangle& best) {
  return cannot_win(box_d2, tie.least, best.d2, best.triangle) ||
         (box_d2 == best.d2 && face_cannot_win(tie, p, box_d2, best));
}

// The search over the tie boxes (host): a node is skipped when none of its triangles can win by its exact box
// (cannot_win), which implies every margin the float boxes need, and children are taken nearer box first, then
// smaller least index, so that where a far query's values tie over a whole face the smallest index is reached
// first and the rest of the face is skipped node by node (1e10 from fandisk: 638 tied triangles evaluated a
// query before, a few now).
XHD_HD void nearest_triangle_by_ties(const BvhView& v, Dvec3 p, NearestTriangle& best) {
  struct Entry {
    uint32_t node;
    double box_d2;
  };
  Entry stack[kBvhStack];
  int top = 0;
  stack[top++] = {0, corner_box_dist2(p, v.ties[0].lo, v.ties[0].hi)};
  while (top > 0) {
    const Entry e = stack[--top];
    if (node_cannot_win(v.ties[e.node], p, e.box_d2, best)) continue;
    const BvhNode node = v.nodes[e.node];
    if (node.count > 0) {
      for (uint32_t s = node.first; s < node.first + node.count; ++s) offer_triangle(v, s, p, best);
      continue;
    }
    const BvhTieBox &left = v.ties[node.first], &right = v.ties[node.first + 1];
    const Entry l = {node.first, corner_box_dist2(p, left.lo, left.hi)};
    const Entry r = {node.first + 1, corner_box_dist2(p, right.lo, right.hi)};
    const bool left_first = l.box_d2 < r.box_d2 || (l.box_d2 == r.box_d2 && left.least < right.least);
    // Push the later child first so the earlier one is searched next.
    const Entry first = left_first ? l : r, later = left_first ? r : l;
    if (!node_cannot_win(v.ties[later.node], p, later.box_d2, best)) stack[top++] = later;
    if (!node_cannot_win(v.ties[first.node], p, first.box_d2, best)) stack[top++] = first;
  }
}

// Nearest-first depth-first search from the root, p in the input's coordinates. `best` may arrive seeded
// with a candidate (a tighter start prunes more); boxes beyond surface_reach2 of the best so far are
// skipped, which keeps every triangle that could still win, ties (a smaller index) included: each box
// holds its triangles widened by their pads, relative to o, and p - o is taken in double (surface_bounds.h).
// Where the tie boxes were built, the search goes by them instead (the same answer).
XHD_HD void nearest_triangle(const BvhView& v, Dvec3 p, NearestTriangle& best) {
  if (v.ties != nullptr) {
    nearest_triangle_by_ties(v, p, best);
    return;
  }
  const Dvec3 q = {p.x - v.origin[0], p.y - v.origin[1], p.z - v.origin[2]};
  uint32_t stack[kBvhStack];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const BvhNode node = v.nodes[stack[--top]];
    double reach = surface_reach2(best.d2);
    if (min_dist2_double(q, node.box) > reach) continue;
    if (node.count > 0) {
      for (uint32_t s = node.first; s < node.first + node.count; ++s) offer_triangle(v, s, p, best);
      continue;
    }
    reach = surface_reach2(best.d2);
    const double near_left = min_dist2_double(q, v.nodes[node.first].box);
    const double near_right = min_dist2_double(q, v.nodes[node.first + 1].box);
    // Push the farther child first so the nearer one is searched next.
    const bool left_first = near_left <= near_right;
    const uint32_t nearer = left_first ? node.first : node.first + 1;
    const uint32_t farther = left_first ? node.first + 1 : node.first;
    if ((left_first ? near_right : near_left) <= reach) stack[top++] = farther;
    if ((left_first ? near_left : near_right) <= reach) stack[top++] = nearer;
  }
}

}  // namespace xhd
