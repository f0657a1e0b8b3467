// An f12 hierarchy ordered only where a search reaches it: for one query (`xhd distance` with one pose), whose
// search reaches about a hundred of a 7.5M-triangle mesh's 15M nodes, while ordering every triangle first
// (build_f12_mesh) took most of a single query's wall time.
//
// The top levels, whose nodes every search reaches, are split at once on every thread (f12_split_shared_levels).
// Below them, a node is made the first time it is reached: its parent is split (f12_split_node: the same halves
// as build_f12_mesh's, so every node holds the same triangles as in the full build), then its run's corners are
// gathered and its tight box (and, for the minimum, its oriented shape) computed from them. A node of the
// frontier level, the first whose nodes hold at most kFrontierTriangles, is made with its whole subtree ordered
// (f12_split_subtree: exactly build_f12_mesh's slots), every box below it, and its corners and triangle indices
// final, so the nodes below it need nothing more from here. Once every
// node is reached, mesh, truth and boxes hold exactly what build_f12_mesh, truth_corners and f12_boxes give.
//
// Thread safety: reach() may be called from any number of threads. A node's run is read only while the node
// is made, and its parent is split only after the parent is made, so no run is read while it is permuted.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "../abi/large_buffer.h"
#include "../geometry/f12_bvh.h"
#include "../geometry/mesh_frame.h"
#include "../geometry/oriented_box_build.h"
#include "make_once.h"

namespace xhd {

class HostPhases;
class Progress;

class LazyF12Order {
 public:
  // Nodes of the frontier level hold at most this many triangles: above it, nodes are split one at a time as
  // reached; below, whole subtrees at once. Chosen, not tuned: a frontier node's subtree is ordered on one thread
  // in well under a millisecond, and the levels above it hold about one node per this many triangles.
  static constexpr uint64_t kFrontierTriangles = 1 << 12;

  // Copies what it needs of frame (its float vertices, triangles and, where the copy is not the truth, the
  // input's doubles): the caller's arrays may be freed after context creation. mesh, truth and boxes are
  // sized here and written as nodes are made; they must outlive this. The top levels are made here (honouring
  // the caller's cancel between them, throwing Cancelled).
  LazyF12Order(const MeshFrame& frame, uint64_t vertex_count, F12Mesh& mesh, UninitLargeVector<double>& truth,
               UninitLargeVector<Box>& boxes, int threads, const Progress& progress);
  ~LazyF12Order();

  // Where a made node above the frontier puts its oriented shape (the minimum's searches read it; none for
  // the maximum alone). Set before any node is reached: the top levels' shapes are made here.
  void set_shape_sink(const OrientedShapeSink& sink);

  // Makes the node if it is not yet made (above the frontier), or its frontier ancestor (below): then its box,
  // its corners and triangle indices where it is a frontier node or below, and its shape where a sink is set
  // and it is above the frontier, are written.
  void reach(uint32_t node) const {
    const uint32_t level = f12_level(node);
    const uint32_t node_at = level <= frontier_ ? node : ((node + 1) >> (level - frontier_)) - 1;
    if (made_[node_at].load(std::memory_order_acquire) != kMade) make(node_at);
  }

  // The first level whose nodes hold at most kFrontierTriangles (the leaves' at most).
  uint32_t frontier() const { return frontier_; }
  // The point the oriented shapes' moments are summed about (fixed, unlike the first slot's corner).
  const Dvec3& origin() const { return origin_; }
  // Nodes made so far (above and on the frontier), for tests and profiles.
  uint64_t nodes_made() const;

 private:
  void make_top(const Progress& progress, HostPhases& phases);
  void make(uint32_t node) const;
  void split(uint32_t node) const;
  Box gather(uint32_t first, uint32_t last) const;
  Box gather_here(uint32_t first, uint32_t last) const;
  void make_above(uint32_t node) const;
  void make_frontier(uint32_t node) const;

  F12Mesh& mesh_;
  UninitLargeVector<double>& truth_;
  UninitLargeVector<Box>& boxes_;
  const int threads_;
  uint32_t frontier_ = 0;
  uint32_t top_ = 0;  // levels 0 .. top_ - 1 made at once
  std::vector<Box> below_;  // the tight boxes of the nodes on level top_
  Dvec3 origin_{0, 0, 0};
  bool with_truth_ = false;
  OrientedShapeSink sink_{nullptr, 0, nullptr, 0};
  UninitLargeVector<float> xyz_;       // the float copy's vertices
  UninitLargeVector<uint32_t> triangles_;
  UninitLargeVector<double> xyz64_;    // the input's, where the copy is not the truth
  mutable UninitLargeVector<F12Centroid> order_, spare_;  // the order so far, and the shared splits' scratch
  std::unique_ptr<std::atomic<uint8_t>[]> made_, split_;  // per node above and on the frontier
};

}  // namespace xhd
