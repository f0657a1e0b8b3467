// The f12-BVH of gDist (../shared/papers/gdist-mesh-distance-gpu.txt, section 7.3): a full binary tree
// over the triangles with 2^depth leaves of 1 or 2 triangles each, stored implicitly in
// breadth-first order (node (level, i) at 2^level - 1 + i), boxes only. The k-th descendants of a node
// are a contiguous run, found by shifts, so one thread per descendant pair needs no pointers. Boxes are
// tight (from the float corners, never enlarged), which the enhanced bounds below rely on.
#pragma once

#include <cstdint>
#include <vector>

#include "box_math.h"
#include "../abi/large_buffer.h"
#include "triangle_pair.h"

namespace xhd {

class Progress;

struct F12Shape {
  uint32_t triangles;  // n >= 1
  uint32_t depth;      // leaves = 2^depth <= n < 2^(depth + 1)
};

XHD_HD F12Shape f12_shape(uint32_t triangles) {
  uint32_t depth = 0;
  while ((2ull << depth) <= triangles) ++depth;
  return {triangles, depth};
}

XHD_HD uint64_t f12_node_count(const F12Shape& s) { return (2ull << s.depth) - 1; }
XHD_HD uint64_t f12_node(uint32_t level, uint64_t i) { return ((1ull << level) - 1) + i; }
XHD_HD uint32_t f12_level(uint64_t node) {
#if defined(__CUDA_ARCH__)
  return 63 - __clzll(static_cast<long long>(node + 1));
#else
  return 63 - __builtin_clzll(node + 1);
#endif
}

// Sorted triangle slots [first, next first) of leaf i: ⌊i·n / 2^depth⌋, so every leaf holds 1 or 2.
XHD_HD uint32_t f12_leaf_first(const F12Shape& s, uint64_t leaf) {
  return static_cast<uint32_t>((leaf * s.triangles) >> s.depth);
}

// The sorted triangle slots [first, last) under node (level, i): a run, since every subtree is one.
struct F12Slots {
  uint32_t first, last;
};
XHD_HD F12Slots f12_node_slots(const F12Shape& s, uint32_t level, uint64_t i) {
  const uint32_t shift = s.depth - level;
  return {f12_leaf_first(s, i << shift), f12_leaf_first(s, (i + 1) << shift)};
}
XHD_HD F12Slots f12_node_slots(const F12Shape& s, uint64_t node) {
  const uint32_t level = f12_level(node);
  return f12_node_slots(s, level, node - ((1ull << level) - 1));
}

// ---- Bounds between two tight boxes, in double from the float corners ----

// Per axis: the gap between two intervals (0 when they overlap) and their farthest spread.
XHD_HD double interval_gap(double a0, double a1, double b0, double b1) {
  const double g = b0 - a1 > a0 - b1 ? b0 - a1 : a0 - b1;
  return g > 0.0 ? g : 0.0;
}
XHD_HD double interval_far(double a0, double a1, double b0, double b1) { return a1 - b0 > b1 - a0 ? a1 - b0 : b1 - a0; }

// Lower bound of the minimum distance (squared): the boxes' gap.
XHD_HD double box_gap2(const Box& a, const Box& b) {
  double s = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double g = interval_gap(a.min[k], a.max[k], b.min[k], b.max[k]);
    s += g * g;
  }
  return s;
}

// A box as centre and half extents, in double (exact for float boxes).
struct CentredBox {
  Dvec3 c, h;
};

XHD_HD CentredBox centred(const Box& b) {
  return {{0.5 * (static_cast<double>(b.min[0]) + b.max[0]), 0.5 * (static_cast<double>(b.min[1]) + b.max[1]),
           0.5 * (static_cast<double>(b.min[2]) + b.max[2])},
          {0.5 * (static_cast<double>(b.max[0]) - b.min[0]), 0.5 * (static_cast<double>(b.max[1]) - b.min[1]),
           0.5 * (static_cast<double>(b.max[2]) - b.min[2])}};
}

// Squared gap and squared farthest spread between two boxes given as centre and half extents (B's moved ones:
// the CPU's and the GPU's searches bound node pairs by these).
XHD_HD double centred_gap2(const CentredBox& a, const CentredBox& b) {
  const double g[3] = {fabs(a.c.x - b.c.x) - a.h.x - b.h.x, fabs(a.c.y - b.c.y) - a.h.y - b.h.y,
                       fabs(a.c.z - b.c.z) - a.h.z - b.h.z};
  double s = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double p = g[k] > 0.0 ? g[k] : 0.0;
    s += p * p;
  }
  return s;
}

XHD_HD double centred_far2(const CentredBox& a, const CentredBox& b) {
  const double f[3] = {fabs(a.c.x - b.c.x) + a.h.x + b.h.x, fabs(a.c.y - b.c.y) + a.h.y + b.h.y,
                       fabs(a.c.z - b.c.z) + a.h.z + b.h.z};
  double s = 0.0;
  for (int k = 0; k < 3; ++k) s += f[k] * f[k];
  return s;
}

// Upper bound of the maximum distance (squared): the boxes' farthest corners.
XHD_HD double box_far2(const Box& a, const Box& b) {
  double s = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double f = interval_far(a.min[k], a.max[k], b.min[k], b.max[k]);
    s += f * f;
  }
  return s;
}

// The enhanced bounds (section 4): each of the six faces of a tight box touches the geometry, so some
// point of face i of A and some point of face j of B are real points. Over the 36 face pairs, the least
// farthest spread bounds the minimum distance from above, and the largest gap bounds the maximum from
// below. On axis k a face of A is its full interval, or the single value min or max when k is its axis.
template <bool kGap>
XHD_HD double face_pair_bound2(const Box& a, const Box& b) {
  // part[k][fa][fb]: the squared gap (or spread) on axis k, fa/fb = 0 full, 1 the min face, 2 the max face.
  double part[3][3][3];
  for (int k = 0; k < 3; ++k) {
    const double ai[3][2] = {{a.min[k], a.max[k]}, {a.min[k], a.min[k]}, {a.max[k], a.max[k]}};
    const double bi[3][2] = {{b.min[k], b.max[k]}, {b.min[k], b.min[k]}, {b.max[k], b.max[k]}};
    for (int fa = 0; fa < 3; ++fa)
      for (int fb = 0; fb < 3; ++fb) {
        const double v = kGap ? interval_gap(ai[fa][0], ai[fa][1], bi[fb][0], bi[fb][1])
                              : interval_far(ai[fa][0], ai[fa][1], bi[fb][0], bi[fb][1]);
        part[k][fa][fb] = v * v;
      }
  }
  double best = kGap ? 0.0 : static_cast<double>(INFINITY);
  for (int fa = 0; fa < 6; ++fa)
    for (int fb = 0; fb < 6; ++fb) {
      double s = 0.0;
      for (int k = 0; k < 3; ++k) {
        const int ka = fa / 2 == k ? 1 + fa % 2 : 0, kb = fb / 2 == k ? 1 + fb % 2 : 0;
        s += part[k][ka][kb];
      }
      best = kGap ? (s > best ? s : best) : (s < best ? s : best);
    }
  return best;
}

XHD_HD double box_min_upper2(const Box& a, const Box& b) { return face_pair_bound2<false>(a, b); }
XHD_HD double box_max_lower2(const Box& a, const Box& b) { return face_pair_bound2<true>(a, b); }

// ---- Posing ----

// A vertex posed by the 3x4 affine matrix m (row by row), each row summed left to right in double and
// rounded once to float: the same bits as posing the file's vertices beforehand.
// The float nearest x, as a value the optimizer must keep: GCC 12 at -O3 -march=native was seen to reuse
// the unrounded double where the rounded float was read back (changing exact answers), and an empty asm
// that takes the float in a register rules that out.
XHD_HD float to_float(double x) {
  float f = static_cast<float>(x);
#if !defined(__CUDA_ARCH__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  asm volatile("" : "+x"(f));
#endif
  return f;
}

XHD_HD void pose_vertex(const double* m, const float* v, float* out) {
  for (int r = 0; r < 3; ++r)
    out[r] = to_float(((m[4 * r] * v[0] + m[4 * r + 1] * v[1]) + m[4 * r + 2] * v[2]) + m[4 * r + 3]);
}

// A double vertex posed the same way, kept in double: B's truth when its input is double (xhd.h).
XHD_HD void pose_vertex64(const double* m, const double* v, double* out) {
  for (int r = 0; r < 3; ++r) out[r] = ((m[4 * r] * v[0] + m[4 * r + 1] * v[1]) + m[4 * r + 2] * v[2]) + m[4 * r + 3];
}

XHD_HD Corners3 load_corners(const float* c) { return {{{c[0], c[1], c[2]}, {c[3], c[4], c[5]}, {c[6], c[7], c[8]}}}; }
XHD_HD Corners3 load_corners(const double* c) { return {{{c[0], c[1], c[2]}, {c[3], c[4], c[5]}, {c[6], c[7], c[8]}}}; }

// A triangle of B posed, from its corners as stored (9 values): float corners round each posed vertex to
// float, double ones keep it in double. The one definition of B's posed corners every backend shares.
XHD_HD Corners3 posed_corners(const double* m, const float* c) {
  float posed[9];
  for (int k = 0; k < 3; ++k) pose_vertex(m, c + 3 * k, posed + 3 * k);
  return load_corners(posed);
}
XHD_HD Corners3 posed_corners(const double* m, const double* c) {
  double posed[9];
  for (int k = 0; k < 3; ++k) pose_vertex64(m, c + 3 * k, posed + 3 * k);
  return load_corners(posed);
}

// ---- Host side ----

// A mesh in f12 order: the original index of each sorted slot, and its three corners (9 floats).
struct F12Mesh {
  F12Shape shape{1, 0};
  UninitLargeVector<uint32_t> triangle;  // original triangle index per sorted slot
  UninitLargeVector<float> corners;      // as given (A) or the source of every pose (B)
};

// Orders the triangles as a kd-tree of the f12 shape (the paper sorts by Morton code; see f12_bvh.cpp).
// Vertex indices must already be checked. Honours the caller's cancel between levels (throws Cancelled).
F12Mesh build_f12_mesh(const float* xyz, const uint32_t* triangles, uint64_t triangle_count, int threads,
                       const Progress& progress);

// The tight box of every node, leaves first (from their corners), then level by level up.
UninitLargeVector<Box> f12_boxes(const F12Mesh& mesh, int threads);

// One leaf's tight box, from its corners; and a node's (level, i) from its two children's in `boxes` (the
// implicit layout). f12_boxes is these over every node; a hierarchy ordered as reached makes them node by node.
Box f12_leaf_box(const F12Mesh& mesh, uint64_t leaf);
inline Box f12_children_box(const Box* boxes, uint32_t level, uint64_t i) {
  Box box = boxes[f12_node(level + 1, 2 * i)];
  box_merge(box, boxes[f12_node(level + 1, 2 * i + 1)]);
  return box;
}

// ---- The kd order in pieces, for hierarchies ordered only where a search reaches them (cpu/lazy_f12_order.h) ----

// A triangle as the kd order moves it: its centroid and index.
struct F12Centroid {
  float at[3];
  uint32_t triangle;
};

UninitLargeVector<F12Centroid> f12_centroids(const float* xyz, const uint32_t* triangles, uint64_t count, int threads);

// Splits every node of the first levels whose nodes hold many triangles (all of them reached by any search) on
// `threads` threads, as build_f12_mesh does, level by level through spare (sized as c, swapped with it each
// level); returns how many levels. Honours the caller's cancel between levels (throws Cancelled).
uint32_t f12_split_shared_levels(UninitLargeVector<F12Centroid>& c, UninitLargeVector<F12Centroid>& spare,
                                 const F12Shape& s, int threads, const Progress& progress);

// Splits node (level, i)'s run of c where the f12 layout puts its children's boundary, as build_f12_mesh does:
// a large run on `threads` threads through the same run of spare (sized as c; its contents are scratch),
// a smaller one on the calling thread. Each half then holds the same set of triangles as in build_f12_mesh's
// order, in some order of its own.
void f12_split_node(UninitLargeVector<F12Centroid>& c, UninitLargeVector<F12Centroid>& spare, const F12Shape& s,
                    uint32_t level, uint64_t i, int threads);

// Node (level, i) and every node below it, on the calling thread, each 2-triangle leaf in index order: the
// subtree's run then holds exactly build_f12_mesh's order.
void f12_split_subtree(UninitLargeVector<F12Centroid>& c, const F12Shape& s, uint32_t level, uint64_t i);

}  // namespace xhd
