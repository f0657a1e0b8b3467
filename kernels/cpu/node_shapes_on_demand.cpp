#include "node_shapes_on_demand.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "../geometry/oriented_box_build.h"
#include "node_points.h"

namespace xhd {
namespace {

// Runs make() once for the node whose state this is: the first caller makes it, later ones wait until it
// is made. If make() throws, the node is left not made (a later call tries again) and the error goes on.
template <typename Make>
void make_once(std::atomic<uint8_t>& state, Make&& make) {
  constexpr uint8_t kNotMade = 0, kMaking = 1, kMade = 2;
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
  for (uint64_t k = 0; k < n; ++k) made += state[k].load(std::memory_order_relaxed) == 2;
  return made;
}

}  // namespace

NodeShapesOnDemand::NodeShapesOnDemand(const F12Mesh& mesh, uint32_t point_node_triangles, int threads)
    : mesh_(&mesh),
      threads_(threads),
      first_point_level_(node_points_first_level(mesh.shape, point_node_triangles)),
      nodes_(f12_node_count(mesh.shape)) {
  shapes_.reset(new NodeShape[nodes_]);  // default-initialized: not written
  shape_state_.reset(new std::atomic<uint8_t>[nodes_]());
  if (first_point_level_ != UINT32_MAX) {
    first_point_node_ = (1ull << first_point_level_) - 1;
    point_nodes_ = nodes_ - first_point_node_;
    points_.reset(new NodePointsView[point_nodes_]);
    point_state_.reset(new std::atomic<uint8_t>[point_nodes_]());
  }
}

NodeShapesOnDemand::~NodeShapesOnDemand() { free_points(); }

NodeShapesOnDemand& NodeShapesOnDemand::operator=(NodeShapesOnDemand&& other) noexcept {
  if (this == &other) return *this;
  free_points();
  mesh_ = other.mesh_;
  threads_ = other.threads_;
  nodes_ = other.nodes_;
  point_nodes_ = other.point_nodes_;
  first_point_level_ = other.first_point_level_;
  first_point_node_ = other.first_point_node_;
  shapes_ = std::move(other.shapes_);
  points_ = std::move(other.points_);
  shape_state_ = std::move(other.shape_state_);
  point_state_ = std::move(other.point_state_);
  other.mesh_ = nullptr;
  return *this;
}

void NodeShapesOnDemand::free_points() {
  if (point_state_ == nullptr) return;
  for (uint64_t k = 0; k < point_nodes_; ++k)
    if (point_state_[k].load(std::memory_order_relaxed) == kMade) delete[] points_[k].xs;
  point_state_.reset();
}

void NodeShapesOnDemand::make_shape(uint32_t node) const {
  make_once(shape_state_[node], [&] { oriented_shape_of(*mesh_, node, threads_, shapes_[node].box, shapes_[node].dop); });
}

void NodeShapesOnDemand::make_points(uint32_t node) const {
  const uint64_t k = node - first_point_node_;
  make_once(point_state_[k], [&] {
    const std::vector<float> blocks = node_point_blocks(*mesh_, node);
    float* xs = new float[blocks.size()];
    std::copy(blocks.begin(), blocks.end(), xs);
    points_[k] = {xs, static_cast<uint32_t>(blocks.size() / 3)};
  });
}

uint64_t NodeShapesOnDemand::shapes_made() const {
  return mesh_ == nullptr ? 0 : count_made(shape_state_.get(), nodes_);
}

uint64_t NodeShapesOnDemand::points_made() const {
  return point_state_ == nullptr ? 0 : count_made(point_state_.get(), point_nodes_);
}

}  // namespace xhd
