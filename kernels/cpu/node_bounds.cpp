#include "node_bounds.h"

#include "../abi/host_phases.h"
#include "lazy_f12_order.h"
#include "make_once.h"

#include <algorithm>
#include <thread>
#include <vector>

#include <sys/mman.h>

namespace xhd {
namespace {

// Nodes of at least this many triangles have their moments summed before any is made (one parallel pass over
// the corners); a node made below them sums its own subtree, at most about twice this many triangles.
constexpr uint64_t kTopMomentsTriangles = 1 << 12;
// The nodes of the level whose nodes hold at most this many triangles get their distinct vertices before any
// node is made, and larger nodes scan those instead of their corners (about a sixth as many on a closed mesh).
constexpr uint32_t kBlockTriangles = 1 << 12;

}  // namespace

NodeBounds::NodeBounds(const F12Mesh& mesh, uint32_t point_node_triangles, int threads, bool on_demand,
                       const Progress& progress, LazyF12Order* lazy)
    : mesh_(&mesh),
      lazy_(on_demand ? lazy : nullptr),
      threads_(threads),
      on_demand_(on_demand),
      first_point_level_(node_points_first_level(mesh.shape, point_node_triangles)),
      shapes_(f12_node_count(mesh.shape)) {
  if (on_demand) {
    prepare_on_demand();
    return;
  }
  origin_ = dload(mesh.corners.data());
  // The points first: the oriented boxes and reaches are then scanned over each node's distinct vertices
  // instead of every corner (the same extremes, a sixth of the reads on a closed mesh).
  HostPhases phases("f12 bounds");
  built_points_ = build_node_points(mesh, point_node_triangles, threads, progress);
  first_point_level_ = built_points_.first_level;
  phases.mark("node points");
  const NodeVertexBlocks blocks{built_points_.first_level, UINT32_MAX, built_points_.start.data(),
                               built_points_.padded.data()};
  build_oriented_shapes(mesh, &blocks, true, threads, progress,
                        OrientedShapeSink{&shapes_[0].box, sizeof(NodeShape), &shapes_[0].dop, sizeof(NodeShape)});
  phases.mark("oriented shapes");
}

void NodeBounds::prepare_on_demand() {
  const uint64_t nodes = shapes_.size();
  // Ordinary pages for the nodes made one by one, not huge ones: each node reached would fault in, and clear,
  // 2 MiB (12% of a 1M-triangle pair's CPU time when it did). Arrays this large are mapped (large_buffer.h).
  const size_t bytes = nodes * sizeof(NodeShape);
  if (bytes >= LargeBufferAllocator<NodeShape>::kHugePage) {
#ifdef MADV_NOHUGEPAGE
    madvise(shapes_.data(), LargeBufferAllocator<NodeShape>::mapped_bytes(nodes), MADV_NOHUGEPAGE);
#endif
  }
  shape_state_.reset(new std::atomic<uint8_t>[nodes]());
  if (lazy_ != nullptr) {
    // Nothing is ordered yet: the nodes above the frontier get their shapes as they are made, the others
    // sum their own subtrees' moments and scan their corners (the frontier's nodes are small).
    origin_ = lazy_->origin();
    lazy_->set_shape_sink(OrientedShapeSink{&shapes_[0].box, sizeof(NodeShape), &shapes_[0].dop, sizeof(NodeShape)});
  } else {
    origin_ = dload(mesh_->corners.data());
    top_ = top_node_moments(*mesh_, kTopMomentsTriangles, threads_);
    const uint32_t block_level = node_points_first_level(mesh_->shape, kBlockTriangles);
    if (block_level != UINT32_MAX && block_level > 0) {  // a root of this size or less reads its corners
      level_points_ = build_level_points(*mesh_, block_level, threads_);
      level_blocks_ = {level_points_.first_level, level_points_.first_level, level_points_.start.data(),
                       level_points_.padded.data()};
    }
  }
  if (first_point_level_ != UINT32_MAX) {
    first_point_node_ = (1ull << first_point_level_) - 1;
    point_nodes_ = nodes - first_point_node_;
    points_.reset(new NodePointsView[point_nodes_]);  // default-initialized: not written
    point_state_.reset(new std::atomic<uint8_t>[point_nodes_]());
  }
}

NodeBounds::~NodeBounds() { free_points(); }

NodeBounds& NodeBounds::operator=(NodeBounds&& other) noexcept {
  if (this == &other) return *this;
  free_points();
  mesh_ = other.mesh_;
  lazy_ = other.lazy_;
  origin_ = other.origin_;
  threads_ = other.threads_;
  on_demand_ = other.on_demand_;
  first_point_level_ = other.first_point_level_;
  first_point_node_ = other.first_point_node_;
  shapes_ = std::move(other.shapes_);
  built_points_ = std::move(other.built_points_);
  top_ = std::move(other.top_);
  level_points_ = std::move(other.level_points_);
  level_blocks_ = other.level_blocks_;
  points_ = std::move(other.points_);
  point_nodes_ = other.point_nodes_;
  shape_state_ = std::move(other.shape_state_);
  point_state_ = std::move(other.point_state_);
  other.mesh_ = nullptr;
  return *this;
}

void NodeBounds::free_points() {
  if (point_state_ == nullptr) return;
  for (uint64_t k = 0; k < point_nodes_; ++k)
    if (point_state_[k].load(std::memory_order_relaxed) == kMade) delete[] points_[k].xs;
  point_state_.reset();
}

void NodeBounds::make_shape(uint32_t node) const {
  make_once(shape_state_[node], [&] {
    if (lazy_ != nullptr) {
      lazy_->reach(node);
      if (f12_level(node) < lazy_->frontier()) return;  // its making wrote its shape
    }
    oriented_shape_of(*mesh_, node, threads_, &top_, &level_blocks_, origin_, shapes_[node].box, shapes_[node].dop);
  });
}

void NodeBounds::make_points(uint32_t node) const {
  const uint64_t k = node - first_point_node_;
  make_once(point_state_[k], [&] {
    if (lazy_ != nullptr) lazy_->reach(node);
    const std::vector<float> blocks = node_point_blocks(*mesh_, node);
    float* xs = new float[blocks.size()];
    std::copy(blocks.begin(), blocks.end(), xs);
    points_[k] = {xs, static_cast<uint32_t>(blocks.size() / 3)};
  });
}

uint64_t NodeBounds::shapes_made() const {
  if (mesh_ == nullptr) return 0;
  return on_demand_ ? count_made(shape_state_.get(), shapes_.size()) : shapes_.size();
}

uint64_t NodeBounds::points_made() const {
  if (mesh_ == nullptr || first_point_level_ == UINT32_MAX) return 0;
  if (on_demand_) return count_made(point_state_.get(), point_nodes_);
  return shapes_.size() - ((1ull << first_point_level_) - 1);
}

}  // namespace xhd
