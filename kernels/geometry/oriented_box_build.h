// Host side of the oriented boxes (oriented_box.h): one per node of an f12 hierarchy, in the mesh's own
// frame, built once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "f12_bvh.h"
#include "../abi/large_buffer.h"
#include "oriented_box.h"
#include "oriented_dop.h"

namespace xhd {

class Progress;

// A node's distinct vertices, in blocks (x's, then y's, then z's, padded with repeats of a point) for the
// nodes of first_level and every level below: node k of those (counted from first_level's first) has
// padded[k] values of each coordinate from start[k]. The scans then read each vertex once instead of
// once per triangle around it. Any node above first_level reads its descendants' blocks on first_level.
struct NodeVertexBlocks {
  uint32_t first_level = UINT32_MAX;  // UINT32_MAX: none, every node reads its corners
  uint32_t last_level = UINT32_MAX;   // the nodes below it read their corners (their blocks are not held)
  const float* const* start = nullptr;
  const uint32_t* padded = nullptr;
};

// Where the build puts node k's box and reaches: at box + k * box_stride bytes (and reaches + k *
// reaches_stride where reaches is not null), so callers can build into their own records.
struct OrientedShapeSink {
  void* box;
  size_t box_stride;
  void* reaches;
  size_t reaches_stride;

  void put(uint64_t node, const OrientedBox& b, const DopReaches& r) const {
    *reinterpret_cast<OrientedBox*>(static_cast<char*>(box) + node * box_stride) = b;
    if (reaches != nullptr) *reinterpret_cast<DopReaches*>(static_cast<char*>(reaches) + node * reaches_stride) = r;
  }
};

// Every node's oriented box: axes from the covariance of its vertices (every corner of its triangles; a leaf's
// from its first triangle), centre and extents exact from its vertices; with_reaches: also its reaches along
// the 26 directions of its box's axes (rounded up). blocks (may be null) only change where the vertices are read, never the result: the
// extremes of a set are those of its distinct members. Level by level, leaves first; a level with fewer nodes
// than threads splits each node's vertices among the threads. Honours the caller's cancel between levels
// (throwing Cancelled).
void build_oriented_shapes(const F12Mesh& mesh, const NodeVertexBlocks* blocks, bool with_reaches, int threads,
                           const Progress& progress, const OrientedShapeSink& sink);

// First and second moments of a node's vertices (every corner of its triangles) about the mesh's first
// corner: they add up the tree.
struct NodeMoments {
  double n = 0.0;
  double s[3] = {0, 0, 0};
  double ss[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};

  void add(const Dvec3& p) {
    const double q[3] = {p.x, p.y, p.z};
    n += 1.0;
    for (int i = 0; i < 3; ++i) {
      s[i] += q[i];
      for (int j = 0; j < 3; ++j) ss[i][j] += q[i] * q[j];
    }
  }
  void add(const NodeMoments& o) {
    n += o.n;
    for (int i = 0; i < 3; ++i) {
      s[i] += o.s[i];
      for (int j = 0; j < 3; ++j) ss[i][j] += o.ss[i][j];
    }
  }
};

// The moments of every node of the top levels, breadth first, the same sums as the level-by-level build's.
struct TopNodeMoments {
  uint32_t levels = 0;  // levels 0 .. levels - 1
  std::vector<NodeMoments> at;
};

// The top levels down to the last whose nodes hold at least min_triangles triangles (none if the root holds
// fewer), in one pass over the corners on `threads` threads.
TopNodeMoments top_node_moments(const F12Mesh& mesh, uint64_t min_triangles, int threads);

// One node's box and reaches from its corners: for searches that visit few nodes and make each when first
// reached (cpu/node_bounds.h). With origin the mesh's first corner (as build_oriented_shapes sums the moments
// about), the same bits as build_oriented_shapes gives it. A large node's scans are split among `threads`
// threads (from the caller's pool, or new threads when called from a pool's job).
// top (may be null): moments already summed, so a node there is not summed again from its corners (without
// it, a node's moments are summed over its subtree on the calling thread).
// blocks (may be null): where the node's vertices are read, as for build_oriented_shapes.
void oriented_shape_of(const F12Mesh& mesh, uint64_t node, int threads, const TopNodeMoments* top,
                       const NodeVertexBlocks* blocks, const Dvec3& origin, OrientedBox& box, DopReaches& reaches);

// A node's box and reaches from its run of corners alone, whatever their order below it, for a node whose subtree
// is not ordered yet (cpu/lazy_f12_order.h): axes from a sample of the run's triangles, centre that of its tight
// box `tight`, extents from one scan of every corner (on `threads` threads), reaches those the box implies. A
// valid box, though looser than build_oriented_shapes's and not its bits; deterministic for a given run.
void oriented_shape_of_run(const F12Mesh& mesh, uint64_t node, const Box& tight, int threads, OrientedBox& box,
                           DopReaches& reaches);

// The same with extents and reaches from the corners of boxes that hold every vertex of the node between them
// (its descendants' tight boxes on some level) instead of a scan: looser, and a few hundred points a node.
void oriented_shape_over_boxes(const F12Mesh& mesh, uint64_t node, const Box& tight, const Box* parts,
                               uint64_t part_count, OrientedBox& box, DopReaches& reaches);

// The boxes alone, from the corners.
UninitLargeVector<OrientedBox> build_oriented_boxes(const F12Mesh& mesh, int threads, const Progress& progress);

// Whether the pose's 3x3 part is orthogonal (to 1e-9), so oriented boxes move with it as boxes.
bool is_rigid(const double* pose);

}  // namespace xhd
