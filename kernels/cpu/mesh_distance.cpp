#include "mesh_distance.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <vector>

#include "../common/elapsed.h"
#include "../common/f12_bvh.h"
#include "../common/mesh_distance_common.h"
#include "../common/oriented_box_build.h"
#include "../common/parallel.h"

namespace xhd {
namespace {

// The breadth-first start hands each thread this many subtrees (on average) to search.
constexpr size_t kFrontPerThread = 32;
// Greedy descents from the best subtrees of that front, before the searches.
constexpr size_t kDescents = 16;
// Widening of a moved box, relative to the coordinates: the rounding of a posed vertex to float
// (2^-24 a coordinate) and of the double arithmetic, with room to spare.
constexpr double kMovedSlack = 4e-7;

// One mesh's f12 hierarchy in its own frame, built once: tight boxes, and oriented boxes for the minimum.
struct Tree {
  F12Mesh mesh;
  LargeVector<Box> boxes;  // implicit breadth-first layout
  LargeVector<OrientedBox> oriented;

  uint32_t depth() const { return mesh.shape.depth; }
  Corners3 slot(uint32_t s) const { return load_corners(mesh.corners.data() + 9ull * s); }
  bool leaf(uint32_t node) const { return f12_level(node) == depth(); }
};

// B as A sees it under the query's pose, found per node when the search reaches it: nothing of B is
// re-posed or refitted per query. A box moves to a parallelepiped, bounded by its axis-aligned box;
// oriented boxes move with rigid poses; corners are posed exactly as pre-posed vertices would be
// (pose_vertex), so the exact distances are the same bits.
class PosedB {
 public:
  PosedB(const Tree& b, const double* pose) : b_(b) {
    std::copy(pose, pose + 12, m_);
    for (int i = 0; i < 9; ++i) abs_[i] = std::fabs(m_[4 * (i / 3) + i % 3]);
    rigid_ = is_rigid(m_);
    const CentredBox root = moved(0, 0.0);
    for (int k = 0; k < 3; ++k) moved_scale_ = std::fmax(moved_scale_, std::fabs(dget(root.c, k)) + dget(root.h, k));
    // Every posed vertex lies within the moved root box (to rounding): finite there means finite everywhere.
    if (!(moved_scale_ < 3e38)) throw InvalidArgument("the pose moves B's vertices beyond the float range");
    eps_ = kMovedSlack * (moved_scale_ + largest_coordinate(b.boxes[0]));
  }

  // The largest coordinate of B as posed (its moved root box).
  double moved_scale() const { return moved_scale_; }

  // The node's box moved, as centre and half extents of its axis-aligned bound in A's frame, widened.
  CentredBox moved(uint32_t node, double widen) const {
    const CentredBox local = centred(b_.boxes[node]);
    double c[3], h[3];
    for (int r = 0; r < 3; ++r) {
      c[r] = ((m_[4 * r] * local.c.x + m_[4 * r + 1] * local.c.y) + m_[4 * r + 2] * local.c.z) + m_[4 * r + 3];
      h[r] = abs_[3 * r] * local.h.x + abs_[3 * r + 1] * local.h.y + abs_[3 * r + 2] * local.h.z + widen;
    }
    return {{c[0], c[1], c[2]}, {h[0], h[1], h[2]}};
  }
  CentredBox moved(uint32_t node) const { return moved(node, eps_); }

  // Oriented boxes stay boxes only under a rigid pose.
  bool oriented() const { return rigid_ && !b_.oriented.empty(); }
  MovedOrientedBox oriented(uint32_t node) const { return move_oriented_box(b_.oriented[node], m_, eps_); }

  Corners3 slot(uint32_t s) const {
    const float* c = b_.mesh.corners.data() + 9ull * s;
    float posed[9];
    for (int k = 0; k < 3; ++k) pose_vertex(m_, c + 3 * k, posed + 3 * k);
    return load_corners(posed);
  }

  const Tree& tree() const { return b_; }

 private:
  const Tree& b_;
  double m_[12];
  double abs_[9];
  bool rigid_ = false;
  double moved_scale_ = 0.0;
  double eps_ = 0.0;
};

// Squared gap and squared farthest spread between two boxes given as centre and half extents.
double centred_gap2(const CentredBox& a, const CentredBox& b) {
  double s = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double g = std::fabs(dget(a.c, k) - dget(b.c, k)) - dget(a.h, k) - dget(b.h, k);
    if (g > 0.0) s += g * g;
  }
  return s;
}

double centred_far2(const CentredBox& a, const CentredBox& b) {
  double s = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double f = std::fabs(dget(a.c, k) - dget(b.c, k)) + dget(a.h, k) + dget(b.h, k);
    s += f * f;
  }
  return s;
}

// Squared diagonal of a box.
double box_extent2(const Box& b) {
  double s = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double e = static_cast<double>(b.max[k]) - b.min[k];
    s += e * e;
  }
  return s;
}

struct NodePair {
  uint32_t a, b;
  double key;  // minimum: a lower bound of the squared distance; maximum: minus an upper bound
};

template <bool kMax>
bool cut_key(double key, double bound2, double slack) {
  if (kMax) {
    const double far2 = -key;
    return far2 < bound2 && std::sqrt(far2) < std::sqrt(bound2) - slack;
  }
  return key > bound2 && std::sqrt(key) > std::sqrt(bound2) + slack;
}

// The best-first search over pairs of nodes: the minimum visits the nearest pairs first and cuts those
// whose lower bound exceeds the best exact distance found (plus a rounding slack); the maximum visits the
// farthest first and cuts those whose upper bound falls short of it.
template <bool kMax>
class Search {
 public:
  Search(const Tree& a, const PosedB& b, int threads)
      : a_(a), b_(b), threads_(threads), slack_(pruning_slack(std::fmax(largest_coordinate(a.boxes[0]), b.moved_scale()))) {
    bound_.store(kMax ? -1.0 : static_cast<double>(INFINITY));
  }

  Candidate run(uint64_t& box_pairs, uint64_t& triangle_pairs) {
    std::vector<Worker> workers(threads_);
    greedy_descent(workers[0], {0, 0, key(0, 0)});
    std::vector<NodePair> front = breadth_first_front(workers[0]);
    std::sort(front.begin(), front.end(), [](const NodePair& x, const NodePair& y) { return x.key < y.key; });
    // More starting answers from the most promising subtrees, in parallel: the tighter the bound the
    // searches start from, the fewer pairs they keep in vain.
    parallel_blocks(std::min(front.size(), kDescents), 1, threads_, [&](size_t begin, size_t end, int tid) {
      for (size_t i = begin; i < end; ++i) greedy_descent(workers[tid], front[i]);
    });
    parallel_blocks(threads_, 1, threads_, [&](size_t begin, size_t, int tid) { best_first(front, begin, workers[tid]); });
    Candidate best = empty_candidate<kMax>();
    for (const Worker& w : workers) {
      if (better_candidate<kMax>(w.best, best)) best = w.best;
      box_pairs += w.box_pairs;
      triangle_pairs += w.triangle_pairs;
    }
    return best;
  }

 private:
  struct Worker {
    Candidate best = empty_candidate<kMax>();
    uint64_t box_pairs = 0, triangle_pairs = 0;
    std::vector<NodePair> heap;
  };

  void tighten(double bound2) {
    double seen = bound_.load(std::memory_order_relaxed);
    while ((kMax ? bound2 > seen : bound2 < seen) &&
           !bound_.compare_exchange_weak(seen, bound2, std::memory_order_relaxed)) {
    }
  }

  bool cut(double key) const { return cut_key<kMax>(key, bound_.load(std::memory_order_relaxed), slack_); }

  // The pair's key: for the minimum the larger of two lower bounds (the boxes' gap, cheap, and for rigid
  // poses the oriented boxes' gap), the second skipped when the first cuts; for the maximum the boxes'
  // farthest spread.
  double key(uint32_t na, uint32_t nb) const {
    const CentredBox a = centred(a_.boxes[na]), b = b_.moved(nb);
    if (kMax) return -centred_far2(a, b);
    const double key = centred_gap2(a, b);
    if (cut(key) || !b_.oriented()) return key;
    return std::fmax(key, oriented_gap2(a_.oriented[na], b_.oriented(nb)));
  }

  // Every triangle pair of two leaves (1 or 2 triangles each).
  void leaves(uint32_t na, uint32_t nb, Worker& w) {
    const Tree& tb = b_.tree();
    const uint64_t ia = na - ((1ull << a_.depth()) - 1), ib = nb - ((1ull << tb.depth()) - 1);
    for (uint32_t sb = f12_leaf_first(tb.mesh.shape, ib); sb < f12_leaf_first(tb.mesh.shape, ib + 1); ++sb) {
      const Corners3 cb = b_.slot(sb);
      for (uint32_t sa = f12_leaf_first(a_.mesh.shape, ia); sa < f12_leaf_first(a_.mesh.shape, ia + 1); ++sa) {
        const Corners3 ca = a_.slot(sa);
        if (!kMax && cut(triangle_pair_lower2(ca, cb))) continue;  // the normals separate them too far
        const PairPoints p = kMax ? triangle_pair_max(ca, cb) : triangle_pair_min(ca, cb);
        ++w.triangle_pairs;
        const Candidate c{p.d2, a_.mesh.triangle[sa], tb.mesh.triangle[sb], p};
        if (better_candidate<kMax>(c, w.best)) w.best = c;
        tighten(p.d2);
      }
    }
  }

  // The child pairs of (a, b) that survive the cut, best first. The larger box is split (two child
  // pairs instead of four, and the smaller box is not cut up before it needs to be).
  int children(const NodePair& p, Worker& w, NodePair out[4]) {
    const Tree& tb = b_.tree();
    bool split_a = !a_.leaf(p.a), split_b = !tb.leaf(p.b);
    if (split_a && split_b) (box_extent2(a_.boxes[p.a]) >= box_extent2(tb.boxes[p.b]) ? split_b : split_a) = false;
    int n = 0;
    for (int i = 0; i < (split_a ? 2 : 1); ++i)
      for (int j = 0; j < (split_b ? 2 : 1); ++j) {
        const uint32_t ca = split_a ? 2 * p.a + 1 + i : p.a, cb = split_b ? 2 * p.b + 1 + j : p.b;
        ++w.box_pairs;
        const double k = key(ca, cb);
        if (!cut(k)) out[n++] = {ca, cb, k};
      }
    for (int i = 1; i < n; ++i)  // at most four: insertion sort
      for (int j = i; j > 0 && out[j].key < out[j - 1].key; --j) std::swap(out[j], out[j - 1]);
    return n;
  }

  bool leaf_pair(const NodePair& p) const { return a_.leaf(p.a) && b_.tree().leaf(p.b); }

  // Straight down the most promising children: a first exact answer, so pruning starts tight.
  void greedy_descent(Worker& w, NodePair p) {
    NodePair next[4];
    while (!leaf_pair(p)) {
      if (children(p, w, next) == 0) return;
      p = next[0];
    }
    leaves(p.a, p.b, w);
  }

  std::vector<NodePair> breadth_first_front(Worker& w) {
    std::vector<NodePair> front{{0, 0, key(0, 0)}}, next;
    const size_t wanted = kFrontPerThread * static_cast<size_t>(threads_);
    while (front.size() < wanted) {
      next.clear();
      bool split = false;
      NodePair kids[4];
      for (const NodePair& p : front) {
        if (cut(p.key)) continue;
        if (leaf_pair(p)) {
          next.push_back(p);
          continue;
        }
        split = true;
        const int n = children(p, w, kids);
        next.insert(next.end(), kids, kids + n);
      }
      front.swap(next);
      if (!split) break;
    }
    return front;
  }

  // Best first over the front entries t, t + threads, ...: the threads' heaps together visit pairs in about
  // the order of one global best-first search, and each stops at its first pair that the bound cuts.
  void best_first(const std::vector<NodePair>& front, size_t t, Worker& w) {
    std::vector<NodePair>& heap = w.heap;
    heap.clear();
    const auto later = [](const NodePair& x, const NodePair& y) { return x.key > y.key; };
    for (size_t i = t; i < front.size(); i += threads_) heap.push_back(front[i]);
    std::make_heap(heap.begin(), heap.end(), later);
    NodePair kids[4];
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      NodePair p = heap.back();
      heap.pop_back();
      // Down from p while its best child still comes before every pair waiting in the heap: the same
      // order as pushing and popping that child, without the heap's work.
      for (;;) {
        if (cut(p.key)) return;  // every pair left has a larger key
        if (leaf_pair(p)) {
          leaves(p.a, p.b, w);
          break;
        }
        const int n = children(p, w, kids);
        for (int i = 1; i < n; ++i) {
          heap.push_back(kids[i]);
          std::push_heap(heap.begin(), heap.end(), later);
        }
        if (n == 0) break;
        if (!heap.empty() && later(kids[0], heap.front())) {
          heap.push_back(kids[0]);
          std::push_heap(heap.begin(), heap.end(), later);
          break;
        }
        p = kids[0];
      }
    }
  }

  const Tree& a_;
  const PosedB& b_;
  const int threads_;
  const double slack_;
  std::atomic<double> bound_{0.0};
};

class F12Distance final : public MeshDistanceEngine {
 public:
  F12Distance(const xhd_mesh& a, const xhd_mesh& b, const xhd_distance_options& o)
      : which_(o.which), threads_(resolve_thread_count(o.threads)) {
    for (auto [tree, mesh] : {std::pair<Tree*, const xhd_mesh*>{&a_, &a}, {&b_, &b}}) {
      tree->mesh = build_f12_mesh(mesh->xyz, mesh->triangles, mesh->triangle_count, threads_);
      tree->boxes = f12_boxes(tree->mesh, threads_);
      if (o.which & XHD_DISTANCE_MIN) tree->oriented = build_oriented_boxes(tree->mesh, threads_);
    }
  }

  void query(const double* pose, xhd_distance_result& r) override {
    const auto start = std::chrono::steady_clock::now();
    const PosedB b(b_, pose ? pose : kIdentityPose);
    if (which_ & XHD_DISTANCE_MIN) write_pair(Search<false>(a_, b, threads_).run(r.box_pairs, r.triangle_pairs), r.min);
    if (which_ & XHD_DISTANCE_MAX) write_pair(Search<true>(a_, b, threads_).run(r.box_pairs, r.triangle_pairs), r.max);
    r.query_ms = elapsed_ms(start);
  }

 private:
  const int which_;
  const int threads_;
  Tree a_, b_;
};

}  // namespace

std::unique_ptr<MeshDistanceEngine> make_cpu_f12_distance(const xhd_mesh& a, const xhd_mesh& b, const xhd_distance_options& o) {
  return std::make_unique<F12Distance>(a, b, o);
}

}  // namespace xhd
