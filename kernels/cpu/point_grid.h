// Uniform grid over a target point set, the index of the X-HD method on the CPU.
// Points are sorted by cell; each cell's points are split into chunks of at most kChunkPoints, each with
// a tight MBR, so a crowded ("heavy") cell is still pruned piece by piece. A complete binary tree over the
// chunk MBRs (in Morton order) serves queries whose nearest neighbour lies beyond the ring search.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "../geometry/box_math.h"
#include "../abi/large_buffer.h"

namespace xhd {

constexpr uint32_t kChunkPoints = 16;

// Placement of a uniform grid: cubic cells of side `cell` from `origin`, dims cells per axis.
struct PointGridFrame {
  double origin[3] = {0, 0, 0};
  double cell = 1.0;
  double inv_cell = 1.0;
  int dims[3] = {1, 1, 1};

  size_t cell_count() const { return static_cast<size_t>(dims[0]) * dims[1] * dims[2]; }
  size_t cell_index(int x, int y, int z) const { return (static_cast<size_t>(z) * dims[1] + y) * dims[0] + x; }
  // Cell holding p, clamped into the grid for points outside it.
  void cell_of(const float p[3], int c[3]) const {
    for (int i = 0; i < 3; ++i) {
      const double t = (static_cast<double>(p[i]) - origin[i]) * inv_cell;
      c[i] = t <= 0.0 ? 0 : (t >= dims[i] ? dims[i] - 1 : static_cast<int>(t));
    }
  }
  uint32_t cell_key(const float p[3]) const {
    int c[3];
    cell_of(p, c);
    return static_cast<uint32_t>(cell_index(c[0], c[1], c[2]));
  }
};

struct PointGrid : PointGridFrame {
  int max_ring = 3;  // rings searched before falling back to the chunk tree

  UninitLargeVector<uint32_t> cell_chunks;   // chunks of cell c: [cell_chunks[c], cell_chunks[c + 1])
  UninitLargeVector<Box> chunk_boxes;        // tight MBR of each chunk
  UninitLargeVector<uint32_t> chunk_points;  // points of chunk k: [chunk_points[k], chunk_points[k + 1])
  UninitLargeVector<float> xyz;              // points sorted by cell and chunk, interleaved
  UninitLargeVector<uint32_t> ids;           // original index of each sorted point

  // The chunk tree is built on first use: most inputs never leave the ring search.
  int build_threads = 1;                           // threads that build it, as for the grid
  mutable uint32_t leaf_slots = 1;                 // leaves of the chunk tree (a power of two)
  mutable UninitLargeVector<Box> tree;             // 1-based heap: children of n are 2n and 2n + 1
  mutable UninitLargeVector<uint32_t> leaf_chunk;  // chunk at each leaf slot (unused slots have empty boxes)
  mutable std::once_flag tree_built;
  void ensure_tree() const;
};

// What a descent of the chunk tree does at a node.
enum class TreeStep { kSkip, kDescend, kStop };

// Depth first over the chunk tree, nearer child (to p) first: node(box) decides at every node whether to
// skip it, go on, or stop the whole descent; leaf(chunk) scans a chunk and returns true to stop.
template <class Node, class Leaf>
void descend_chunk_tree(const PointGrid& g, const float p[3], Node node, Leaf leaf) {
  g.ensure_tree();
  uint32_t stack[64];
  int top = 0;
  stack[top++] = 1;
  while (top > 0) {
    const uint32_t at = stack[--top];
    const TreeStep step = node(g.tree[at]);
    if (step == TreeStep::kStop) return;
    if (step == TreeStep::kSkip) continue;
    if (at >= g.leaf_slots) {
      if (leaf(g.leaf_chunk[at - g.leaf_slots])) return;
      continue;
    }
    const uint32_t left = 2 * at, right = left + 1;
    const bool left_nearer = min_dist2(p, g.tree[left]) <= min_dist2(p, g.tree[right]);
    stack[top++] = left_nearer ? right : left;
    stack[top++] = left_nearer ? left : right;
  }
}

// Builds the grid over n interleaved points into g (a fresh PointGrid). cell_size <= 0 picks the
// resolution automatically.
void build_point_grid(const float* xyz, size_t n, double cell_size, int threads, PointGrid& g);

}  // namespace xhd
