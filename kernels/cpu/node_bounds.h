// The CPU minimum search's per-node bounds of one hierarchy: each node's oriented box and DOP reaches, and
// for the small nodes their distinct points. Built for every node at once (level by level on every thread:
// for many queries), or each made the first time a search reaches its node (on demand: for one or a few
// queries; one query on two 1M-triangle spheres reached about a hundred of each mesh's million nodes, while
// building every node's bounds first took 1.9 of such a mesh's 2.1 s of build on one thread). A node made on
// demand is made on the thread that first asks, the same bits as the full build gives it (oriented_shape_of,
// node_point_blocks), so the searches visit the same pairs either way; a thread that asks while another makes
// it waits for that one. On demand over a hierarchy ordered as it is reached (lazy_f12_order.h), a node above
// its frontier gets the shape its making computed (from its run's moments: other bits than the full build's,
// as valid), and one on or below it is made as here once its subtree is ordered.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "../abi/large_buffer.h"
#include "../geometry/f12_bvh.h"
#include "../geometry/oriented_box.h"
#include "../geometry/oriented_box_build.h"
#include "../geometry/oriented_dop.h"
#include "make_once.h"
#include "node_points.h"

namespace xhd {

class Progress;
class LazyF12Order;

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

class NodeBounds {
 public:
  NodeBounds() = default;
  // mesh must outlive this. Nodes of at most point_node_triangles triangles get points; a large node's scans
  // are split among `threads` threads. Not on demand: every node's bounds are built here (honouring the
  // caller's cancel between levels, throwing Cancelled). lazy (on demand only, may be null): the order mesh is
  // in, made as it is reached; this then sets its shape sink.
  NodeBounds(const F12Mesh& mesh, uint32_t point_node_triangles, int threads, bool on_demand, const Progress& progress,
             LazyF12Order* lazy = nullptr);
  ~NodeBounds();
  NodeBounds(NodeBounds&& other) noexcept { *this = std::move(other); }
  NodeBounds& operator=(NodeBounds&& other) noexcept;

  // Whether this holds a hierarchy's bounds (the maximum's search needs none).
  bool ready() const { return mesh_ != nullptr; }

  // Safe to call from several threads at once.
  const NodeShape& shape(uint32_t node) const {
    if (on_demand_ && shape_state_[node].load(std::memory_order_acquire) != kMade) make_shape(node);
    return shapes_[node];
  }

  bool has_points(uint32_t node) const { return f12_level(node) >= first_point_level_; }
  NodePointsView points(uint32_t node) const {  // has_points(node)
    if (!on_demand_) return {built_points_.xs(node), built_points_.count(node)};
    const uint64_t k = node - first_point_node_;
    if (point_state_[k].load(std::memory_order_acquire) != kMade) make_points(node);
    return points_[k];
  }

  // Nodes made so far, counted over every node (for tests and profiles).
  uint64_t shapes_made() const;
  uint64_t points_made() const;

 private:
  void prepare_on_demand();
  void make_shape(uint32_t node) const;
  void make_points(uint32_t node) const;
  void free_points();

  const F12Mesh* mesh_ = nullptr;
  LazyF12Order* lazy_ = nullptr;
  Dvec3 origin_{0, 0, 0};  // what the moments are summed about
  int threads_ = 1;
  bool on_demand_ = false;
  uint32_t first_point_level_ = UINT32_MAX;
  uint64_t first_point_node_ = 0;
  mutable UninitLargeVector<NodeShape> shapes_;  // every node's: built, or written once when made
  NodePoints built_points_;                      // built: the small nodes' points
  // On demand: the large nodes' moments, summed once (each node made there would sum its subtree again);
  // the points made so far, and each node's state (kNotMade, kMaking, kMade).
  TopNodeMoments top_;
  NodePoints level_points_;         // one level's distinct vertices, which the larger nodes' scans read
  NodeVertexBlocks level_blocks_;   // views of them (first_level UINT32_MAX: none)
  std::unique_ptr<NodePointsView[]> points_;
  uint64_t point_nodes_ = 0;
  std::unique_ptr<std::atomic<uint8_t>[]> shape_state_, point_state_;
};

}  // namespace xhd
