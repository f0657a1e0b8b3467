#include "node_bounds.h"

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

// Runs make() once for the node whose state this is: the first caller makes it, later ones wait until it
// is made. If make() throws, the node is left not made (a later call tries again) and the error goes on.
template <typename Make>
void make_once(std::atomic<uint8_t>& state, Make&& make) {
  constexpr uint8_t kNotMade = NodeBounds::kNotMade, kMaking = NodeBounds::kMaking, kMade = NodeBounds::kMade;
  uint8_t seen = kNotMade;
  if (state.compare_exchange_strong(seen, kMaking, std::memory_order_acquire)) {
    try {
      make();
    } catch (...) {
      state.store(kNotMade, std::memory_order_release);
      throw;
    }
    state.store(kMade, std::memory_order_release);
    return;
  }
  // Another thread makes it: a large node takes milliseconds, a small one microseconds.
  while (state.load(std::memory_order_acquire) != kMade) {
    if (state.load(std::memory_order_relaxed) == kNotMade) return make_once(state, make);  // its maker failed
    std::this_thread::yield();
  }
}

uint64_t count_made(const std::atomic<uint8_t>* state, uint64_t n) {
  uint64_t made = 0;
  for (uint64_t k = 0; k < n; ++k) made += state[k].load(std::memory_order_relaxed) == NodeBounds::kMade;
  return made;
}

}  // namespace

NodeBounds::NodeBounds(const F12Mesh& mesh, uint32_t point_node_triangles, int threads, bool on_demand,
                       const Progress& progress)
    : mesh_(&mesh),
      threads_(threads),
      on_demand_(on_demand),
      first_point_level_(node_points_first_level(mesh.shape, point_node_triangles)),
      shapes_(f12_node_count(mesh.shape)) {
  if (on_demand) {
    prepare_on_demand();
    return;
  }
  // The points first: the oriented boxes and reaches are then scanned over each node's distinct vertices
  // instead of every corner (the same extremes, a sixth of the reads on a closed mesh).
  built_points_ = build_node_points(mesh, point_node_triangles, threads, progress);
  first_point_level_ = built_points_.first_level;  // none where the pool would pass 32-bit offsets
  const NodeVertexBlocks blocks{built_points_.first_level, UINT32_MAX, built_points_.offset.data(),
                                built_points_.padded.data(), built_points_.pool.data()};
  build_oriented_shapes(mesh, &blocks, true, threads, progress,
                        OrientedShapeSink{&shapes_[0].box, sizeof(NodeShape), &shapes_[0].dop, sizeof(NodeShape)});
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
  top_ = top_node_moments(*mesh_, kTopMomentsTriangles, threads_);
  const uint32_t block_level = node_points_first_level(mesh_->shape, kBlockTriangles);
  if (block_level != UINT32_MAX && block_level > 0) {  // a root of this size or less reads its corners
    level_points_ = build_level_points(*mesh_, block_level, threads_);
    level_blocks_ = {level_points_.first_level, level_points_.first_level, level_points_.offset.data(),
                     level_points_.padded.data(), level_points_.pool.data()};
  }
  shape_state_.reset(new std::atomic<uint8_t>[nodes]());
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
    oriented_shape_of(*mesh_, node, threads_, &top_, &level_blocks_, shapes_[node].box, shapes_[node].dop);
  });
}

void NodeBounds::make_points(uint32_t node) const {
  const uint64_t k = node - first_point_node_;
  make_once(point_state_[k], [&] {
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
