#include "lazy_f12_order.h"

#include <algorithm>
#include <vector>

#include "../abi/host_phases.h"
#include "../abi/parallel.h"
#include "../abi/progress.h"

namespace xhd {
namespace {

constexpr uint64_t kGrain = 1 << 15;  // slots a thread gathers or boxes at a time

// Copies n values on every thread.
template <typename T>
void copy_all(const T* from, uint64_t n, UninitLargeVector<T>& to, int threads) {
  to.resize(n);
  parallel_blocks(n, 1 << 18, threads, [&](size_t begin, size_t end, int) {
    std::copy(from + begin, from + end, to.data() + begin);
  });
}

}  // namespace

LazyF12Order::LazyF12Order(const MeshFrame& frame, uint64_t vertex_count, F12Mesh& mesh,
                           UninitLargeVector<double>& truth, UninitLargeVector<Box>& boxes, int threads,
                           const Progress& progress)
    : mesh_(mesh), truth_(truth), boxes_(boxes), threads_(threads) {
  HostPhases phases("lazy order");
  const uint64_t n = frame.triangle_count;
  mesh_.shape = f12_shape(static_cast<uint32_t>(n));
  while (frontier_ < mesh_.shape.depth && ((n - 1) >> frontier_) + 1 > kFrontierTriangles) ++frontier_;
  copy_all(frame.xyz(), 3 * vertex_count, xyz_, threads);
  copy_all(frame.triangles, 3 * n, triangles_, threads);
  with_truth_ = !frame.info.copy_is_truth;
  if (with_truth_) copy_all(frame.xyz64(), 3 * vertex_count, xyz64_, threads);
  origin_ = dload(xyz_.data());
  // Left unwritten: each slot is written by the node that gathers it.
  mesh_.triangle.resize(n);
  mesh_.corners.resize(9 * n);
  if (with_truth_) truth_.resize(9 * n);
  boxes_.resize(f12_node_count(mesh_.shape));
  const uint64_t tracked = f12_node_count({mesh_.shape.triangles, frontier_});
  made_.reset(new std::atomic<uint8_t>[tracked]());
  split_.reset(new std::atomic<uint8_t>[tracked]());
  phases.mark("copies");
  order_ = f12_centroids(xyz_.data(), triangles_.data(), n, threads);
  spare_.resize(n);  // pages touched only by the splits that use them
  phases.mark("centroids");
  make_top(progress, phases);
}
LazyF12Order::~LazyF12Order() = default;

// The top levels, whose nodes every search reaches (two 7.5M-triangle spheres 0.5 apart: all of them), split at
// once on every thread as the full build splits them; their runs gathered below the last of them, with its
// nodes' boxes, and every box above those merged from them.
void LazyF12Order::make_top(const Progress& progress, HostPhases& phases) {
  const F12Shape& s = mesh_.shape;
  top_ = std::min(f12_split_shared_levels(order_, spare_, s, threads_, progress), frontier_);
  phases.mark("top levels split");
  if (top_ == 0) return;
  std::vector<Box>& below = below_;
  below.resize(1ull << top_);
  parallel_blocks(below.size(), 1, threads_, [&](size_t begin, size_t end, int) {
    for (size_t i = begin; i < end; ++i) {
      const F12Slots run = f12_node_slots(s, top_, i);
      below[i] = gather_here(run.first, run.last);
    }
  });
  for (uint32_t level = top_; level-- > 0;)
    for (uint64_t i = 0; i < (1ull << level); ++i) {
      Box box = level + 1 == top_ ? below[2 * i] : boxes_[f12_node(level + 1, 2 * i)];
      box_merge(box, level + 1 == top_ ? below[2 * i + 1] : boxes_[f12_node(level + 1, 2 * i + 1)]);
      boxes_[f12_node(level, i)] = box;
      made_[f12_node(level, i)].store(kMade, std::memory_order_relaxed);
      split_[f12_node(level, i)].store(kMade, std::memory_order_relaxed);
    }
  phases.mark("top levels gathered");
}

void LazyF12Order::set_shape_sink(const OrientedShapeSink& sink) {
  sink_ = sink;
  // The top nodes' shapes, while nothing below them is split (their runs still hold their corners, which the
  // axes sample): their extents from the boxes of their descendants below the top levels (a scan of every
  // corner of each was a quarter of the CPU time of a 7.5M-triangle one-pose query, 2 threads).
  for (uint32_t level = 0; level < top_; ++level)
    for (uint64_t i = 0; i < (1ull << level); ++i) {
      const uint32_t shift = top_ - level;
      OrientedBox shape;
      DopReaches reaches;
      oriented_shape_over_boxes(mesh_, f12_node(level, i), boxes_[f12_node(level, i)],
                                below_.data() + (i << shift), 1ull << shift, shape, reaches);
      sink_.put(f12_node(level, i), shape, reaches);
    }
}

uint64_t LazyF12Order::nodes_made() const {
  return count_made(made_.get(), f12_node_count({mesh_.shape.triangles, frontier_}));
}

void LazyF12Order::make(uint32_t node) const {
  make_once(made_[node], [&] {
    if (node != 0) split((node - 1) / 2);
    if (f12_level(node) < frontier_) {
      make_above(node);
    } else {
      make_frontier(node);
    }
  });
}

// A node above the frontier, split once it is made (its run is read only while it is made).
void LazyF12Order::split(uint32_t node) const {
  make_once(split_[node], [&] {
    make(node);
    const uint32_t level = f12_level(node);
    f12_split_node(order_, spare_, mesh_.shape, level, node - ((1ull << level) - 1), threads_);
  });
}

// Slots [first, last): their triangle indices, corners (and the input's) from the order so far; returns their
// tight box (min and max are exact, so the parts merge to the same box in any order).
Box LazyF12Order::gather(uint32_t first, uint32_t last) const {
  const uint64_t parts = (last - first + kGrain - 1) / kGrain;
  std::vector<Box> part(parts);
  parallel_blocks(parts, 1, threads_, [&](size_t begin, size_t end, int) {
    for (size_t p = begin; p < end; ++p)
      part[p] = gather_here(first + p * kGrain, std::min<uint64_t>(last, first + (p + 1) * kGrain));
  });
  Box box = part[0];
  for (uint64_t p = 1; p < parts; ++p) box_merge(box, part[p]);
  return box;
}

// The same on the calling thread.
Box LazyF12Order::gather_here(uint32_t first, uint32_t last) const {
  float* corners = mesh_.corners.data();
  double* truth = with_truth_ ? truth_.data() : nullptr;
  Box box;
  box_make_empty(box);
  for (uint64_t s = first; s < last; ++s) {
    const uint32_t t = order_[s].triangle;
    mesh_.triangle[s] = t;
    for (int k = 0; k < 3; ++k) {
      const uint64_t v = triangles_[3ull * t + k];
      float* c = corners + 9 * s + 3 * k;
      for (int i = 0; i < 3; ++i) c[i] = xyz_[3 * v + i];
      box_grow(box, c);
      if (truth != nullptr)
        for (int i = 0; i < 3; ++i) truth[9 * s + 3 * k + i] = xyz64_[3 * v + i];
    }
  }
  return box;
}

void LazyF12Order::make_above(uint32_t node) const {
  const uint32_t level = f12_level(node);
  const F12Slots run = f12_node_slots(mesh_.shape, node);
  // A node on the last top level still holds what make_top gathered (nothing below it is split before it is made).
  boxes_[node] = top_ > 0 && level == top_ ? below_[node - ((1ull << level) - 1)] : gather(run.first, run.last);
  if (sink_.box == nullptr) return;
  OrientedBox shape;
  DopReaches reaches;
  oriented_shape_of_run(mesh_, node, boxes_[node], threads_, shape, reaches);
  sink_.put(node, shape, reaches);
}

// A frontier node: its subtree ordered as the full build orders it, gathered, and every box in it.
void LazyF12Order::make_frontier(uint32_t node) const {
  const uint32_t level = f12_level(node);
  const uint64_t i = node - ((1ull << level) - 1);
  const F12Shape& s = mesh_.shape;
  f12_split_subtree(order_, s, level, i);
  const F12Slots run = f12_node_slots(s, level, i);
  gather(run.first, run.last);
  for (uint32_t at = s.depth + 1; at-- > level;) {
    const uint32_t shift = at - level;
    for (uint64_t k = i << shift; k < (i + 1) << shift; ++k)
      boxes_[f12_node(at, k)] = at == s.depth ? f12_leaf_box(mesh_, k) : f12_children_box(boxes_.data(), at, k);
  }
}

}  // namespace xhd
