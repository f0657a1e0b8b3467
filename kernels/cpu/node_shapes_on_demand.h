// The CPU minimum search's per-node bounds of one hierarchy (oriented box, DOP reaches, and for small nodes
// their distinct points), each made the first time a search reaches its node. A single query visits a few
// thousand node pairs of the millions a hierarchy has: building every node's bounds first took 1.9 of a
// 1M-triangle mesh's 2.1 s of build on one thread. Each node is made on the thread that first asks, the
// same bits as the level-by-level build gives it (oriented_shape_of, node_point_blocks), so the searches
// visit the same pairs; a thread that asks while another makes it waits for that one.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "../geometry/f12_bvh.h"
#include "../geometry/oriented_box.h"
#include "../geometry/oriented_dop.h"

namespace xhd {

// A node's oriented box and DOP reaches, read together (two cache lines that are fetched as a pair).
struct alignas(128) NodeShape {
  OrientedBox box;
  DopReaches dop;
};

// A small node's points: padded values of each coordinate, xs then ys then zs (node_points.h).
struct NodePointsView {
  const float* xs;
  uint32_t padded;
};

class NodeShapesOnDemand {
 public:
  NodeShapesOnDemand() = default;
  // mesh must outlive this. Nodes of at most point_node_triangles triangles get points; a large node's scans
  // are split among `threads` threads.
  NodeShapesOnDemand(const F12Mesh& mesh, uint32_t point_node_triangles, int threads);
  ~NodeShapesOnDemand();
  NodeShapesOnDemand(NodeShapesOnDemand&& other) noexcept { *this = std::move(other); }
  NodeShapesOnDemand& operator=(NodeShapesOnDemand&& other) noexcept;

  // Whether this holds a hierarchy's bounds (the maximum's search needs none).
  bool ready() const { return mesh_ != nullptr; }

  // Safe to call from several threads at once.
  const NodeShape& shape(uint32_t node) const {
    if (shape_state_[node].load(std::memory_order_acquire) != kMade) make_shape(node);
    return shapes_[node];
  }

  bool has_points(uint32_t node) const { return f12_level(node) >= first_point_level_; }
  NodePointsView points(uint32_t node) const {  // has_points(node)
    const uint64_t k = node - first_point_node_;
    if (point_state_[k].load(std::memory_order_acquire) != kMade) make_points(node);
    return points_[k];
  }

  // Nodes made so far, counted over every node (for tests and profiles).
  uint64_t shapes_made() const;
  uint64_t points_made() const;

 private:
  enum : uint8_t { kNotMade = 0, kMaking = 1, kMade = 2 };

  void make_shape(uint32_t node) const;
  void free_points();
  void make_points(uint32_t node) const;

  const F12Mesh* mesh_ = nullptr;
  int threads_ = 1;
  uint32_t first_point_level_ = UINT32_MAX;
  uint64_t first_point_node_ = 0;
  // Written once per node, before its state says made; the pages of nodes never reached are never touched.
  // Ordinary pages, not huge ones: each node reached would fault in, and clear, 2 MiB (12% of a 1M-triangle
  // pair's CPU time when they were).
  std::unique_ptr<NodeShape[]> shapes_;
  std::unique_ptr<NodePointsView[]> points_;
  uint64_t nodes_ = 0, point_nodes_ = 0;
  std::unique_ptr<std::atomic<uint8_t>[]> shape_state_, point_state_;
};

}  // namespace xhd
