#include "mesh_distance.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "../abi/elapsed.h"
#include "../abi/host_phases.h"
#include "../geometry/f12_bvh.h"
#include "../geometry/mesh_distance_common.h"
#include "../geometry/mesh_frame.h"
#include "../geometry/oriented_box_build.h"
#include "../geometry/penetration.h"
#include "../abi/parallel.h"
#include "node_points.h"
#include "lazy_f12_order.h"
#include "node_bounds.h"

namespace xhd {
namespace {

// Nodes of at most this many triangles bound the minimum by their vertices' hulls (node_points.h). Measured
// at 100k triangles, one thread: 16 kept the rings' box pairs at 3,941 a frame, 64 at 2,949, 256 at
// 2,098, 1,024 at 1,308 but in no less time (large nodes' scans cost more than the pairs they save).
constexpr uint32_t kPointNodeTriangles = 256;

// One mesh's f12 hierarchy in its own frame (mesh_frame.h), built once from its float copy: tight boxes,
// and for the minimum oriented boxes, their DOP reaches and the small nodes' points (all built first, or each
// made when a search first reaches its node, the order itself too: lazy_f12_order.h, node_bounds.h); beside it
// the input's corners where the copy is not the input. Never moved (the bounds point at the mesh). A search
// reads a leaf's slots only after its box: by then they are made.
struct Tree {
  F12Mesh mesh;
  UninitLargeVector<double> truth;  // 9 a slot (double inputs); empty: mesh.corners are the truth
  FrameInfo frame;
  UninitLargeVector<Box> boxes;  // implicit breadth-first layout
  std::unique_ptr<LazyF12Order> lazy;  // on demand: the order, boxes and slots made as the searches reach them
  NodeBounds bounds;  // minimum only

  uint32_t depth() const { return mesh.shape.depth; }
  // A node's tight box; on demand, the node is made first (its slots too, where it is on or below the frontier).
  const Box& box(uint32_t node) const {
    if (lazy) lazy->reach(node);
    return boxes[node];
  }
  // The slot's corners as the input states them: what every exact distance is measured over.
  Corners3 slot(uint32_t s) const {
    return truth.empty() ? load_corners(mesh.corners.data() + 9ull * s) : load_corners(truth.data() + 9ull * s);
  }
  bool leaf(uint32_t node) const { return f12_level(node) == depth(); }
};

// B as A sees it under the query's pose, found per node when the search reaches it: nothing of B is
// re-posed or refitted per query. A box moves to a parallelepiped, bounded by its axis-aligned box;
// oriented boxes move with rigid poses: all by the frame pose (mesh_frame.h). Corners are posed from the
// input's by the pose itself, exactly as pre-posed vertices would be (posed_corners), so the exact
// distances are the same bits.
class PosedB {
 public:
  PosedB(const Tree& b, const FramePose& frame, const double* pose)
      : b_(b), motion_(box_motion(frame.m, b.box(0))), rigid_(is_rigid(frame.m)) {
    std::copy(pose, pose + 12, truth_m_);
  }

  // The largest coordinate of B as posed (its moved root box).
  double moved_scale() const { return motion_.moved_scale; }

  // The node's box moved, as centre and half extents of its axis-aligned bound in A's frame, widened.
  CentredBox moved(uint32_t node, double widen) const { return motion_.moved(b_.box(node), widen); }
  CentredBox moved(uint32_t node) const { return motion_.moved(b_.box(node)); }

  // Oriented boxes stay boxes only under a rigid pose.
  bool oriented() const { return rigid_ && b_.bounds.ready(); }
  MovedOrientedBox oriented(uint32_t node) const {
    return move_oriented_box(b_.bounds.shape(node).box, motion_.m, motion_.eps);
  }
  double eps() const { return motion_.eps; }

  // The least x·p over the posed points of a node of B (which has points), and that point, posed: the
  // points are posed as the boxes are (each within eps of its posed float vertex).
  double least(uint32_t node, const Dvec3& x, Dvec3& at) const {
    const double* m = motion_.m;
    const double l[3] = {m[0] * x.x + m[4] * x.y + m[8] * x.z, m[1] * x.x + m[5] * x.y + m[9] * x.z,
                         m[2] * x.x + m[6] * x.y + m[10] * x.z};
    const NodePointsView points = b_.bounds.points(node);
    const float* xs = points.xs;
    const uint32_t n = points.padded;
    const Support s = node_support(xs, n, -l[0], -l[1], -l[2]);
    const float* v = xs + s.at;
    double q[3];
    for (int r = 0; r < 3; ++r)
      q[r] = ((m[4 * r] * v[0] + m[4 * r + 1] * v[n]) + m[4 * r + 2] * v[2 * n]) + m[4 * r + 3];
    at = {q[0], q[1], q[2]};
    return -s.h + (m[3] * x.x + m[7] * x.y + m[11] * x.z);
  }

  // The slot's corners as posed truth.
  Corners3 slot(uint32_t s) const {
    return b_.truth.empty() ? posed_corners(truth_m_, b_.mesh.corners.data() + 9ull * s)
                            : posed_corners(truth_m_, b_.truth.data() + 9ull * s);
  }

  const Tree& tree() const { return b_; }

 private:
  const Tree& b_;
  BoxMotion motion_;    // by the frame pose: B's copy into A's
  bool rigid_ = false;
  double truth_m_[12];  // the pose itself: B's input to the truth
};

// A triangle pair by its slots in the two meshes' f12 order: the last query's answer, tried first by the
// next (frames move B a little, so it is often near the new answer and bounds the search from the start).
struct SlotPair {
  uint32_t a = UINT32_MAX, b = UINT32_MAX;
  bool valid() const { return a != UINT32_MAX; }
};

struct NodePair {
  uint32_t a, b;
  double key;  // minimum: a lower bound of the squared distance; maximum: minus an upper bound
};

// The pruning limit for a bound: a pair is cut when its key exceeds it. The minimum keeps every pair whose
// lower bound is within the slack of the best distance, the maximum every pair whose upper bound comes
// within it; squared once per change of the bound, so no test takes a square root.
template <bool kMax>
double cut_limit(double bound2, double slack) {
  if (kMax) {
    const double reach = std::sqrt(bound2) - slack;  // NaN while nothing is found: nothing is cut
    return reach > 0.0 ? -(reach * reach) : static_cast<double>(INFINITY);
  }
  const double reach = std::sqrt(bound2) + slack;
  return reach * reach;
}

// The best-first search over pairs of nodes: the minimum visits the nearest pairs first and cuts those
// whose lower bound exceeds the best exact distance found (plus a rounding slack); the maximum visits the
// farthest first and cuts those whose upper bound falls short of it. Each thread takes its best pair and
// follows the best child down while that child still comes first, keeping the other children for its
// heap; a thread whose heap runs dry steals half of another's. The caller searches alone first: most
// searches end before another thread would have woken up.
template <bool kMax>
class Search {
 public:
  // slack: how far above the best exact distance a lower bound may come and its pair still be searched
  // (below, for the maximum), for the rounding of the exact distances and the filters' distance from the truth.
  Search(const Tree& a, const PosedB& b, int threads, double slack)
      : a_(a), b_(b), threads_(std::min(threads, kMaxThreads)), slack_(slack) {
    bound_.store(kMax ? -1.0 : static_cast<double>(INFINITY));
  }

  // The best pair, starting from `seed`'s distance when it is valid; `seed` becomes the answer's slots.
  Candidate run(SlotPair& seed, uint64_t& box_pairs, uint64_t& triangle_pairs) {
    std::vector<Worker> workers(threads_);
    if (seed.valid()) test_triangles(seed.a, seed.b, workers[0]);
    workers[0].heap.push_back({0, 0, key(0, 0, workers[0])});
    work(workers[0], workers, true, kSoloPairs);
    if (!workers[0].heap.empty() && threads_ > 1) {
      active_.store(1);
      // A node made on the way may fail (memory): the others then stop at their next pair, and the caller gets
      // the error (a worker pool's job must not throw, and a worker left active would keep the others waiting).
      std::exception_ptr failure;
      std::mutex failure_mutex;
      WorkerPool::shared().run(threads_, [&](int t) {
        try {
          work(workers[t], workers, false, UINT64_MAX);
        } catch (...) {
          std::lock_guard<std::mutex> lock(failure_mutex);
          if (!failure) failure = std::current_exception();
          failed_.store(true, std::memory_order_relaxed);
        }
      });
      if (failure) std::rethrow_exception(failure);
    } else if (!workers[0].heap.empty()) {
      work(workers[0], workers, true, UINT64_MAX);
    }
    Candidate best = empty_candidate<kMax>();
    for (const Worker& w : workers) {
      if (better_candidate<kMax>(w.best, best)) best = w.best, seed = w.best_slots;
      box_pairs += w.box_pairs;
      triangle_pairs += w.triangle_pairs;
    }
    return best;
  }

 private:
  // Box pairs the caller tests alone before the other threads join: its first dive to the leaves (a first
  // bound where the last answer gave none, and pairs to share). The pool's threads join within a
  // microsecond; at 1,024 pairs, a start sized for a 30–70 us wake, the VM's frames took 10–15% longer (p50).
  static constexpr uint64_t kSoloPairs = 64;
  // A search shares a few thousand box pairs: more threads than this wait on each other. On the H100
  // machine (16 logical cores), ms a frame at 100k / 1M with 16 threads: rings 0.57 / 0.67, terrains
  // 0.82 / 0.60, tools 0.80 / 1.30; with 8: 0.19 / 0.27, 0.14 / 0.43, 0.64 / 1.08; with 4: 0.28 / 0.34,
  // 0.14 / 0.58, 0.95 / 2.00. The hierarchies' build uses every thread.
  static constexpr int kMaxThreads = 8;
  // The full DOP bound costs about as much again as the rest of a pair's test, so it is tried only where
  // the bound along the thin axes (squared) already reaches this share of the cut. Measured at 100k
  // triangles (2 threads, with the oriented boxes' bound in that place): 0.25 and 0.4 cut the rings' box
  // pairs 5x (3.2 to 1.3 ms a frame), 0.6 only 3x (1.5 ms); 0.2 and 0.6 again at 7bda021, and 0.25 and 0.6
  // with the hull bounds (54a3b0c): no better.
  static constexpr double kDopWorth = 0.4;
  // Refinements of the separating direction after the line between the centres: measured on the rings,
  // 1 visits 20% more pairs than 2, 4 only 5% fewer.
  static constexpr int kDopSteps = 2;
  // Refinements of the hulls' separating direction after the line between the centres: measured at 100k
  // triangles, 1 visits 20-35% more pairs than 2, and 3 about 3% fewer than 2 in the same time.
  static constexpr int kHullSteps = 3;

  struct alignas(64) Worker {
    Candidate best = empty_candidate<kMax>();
    SlotPair best_slots;
    uint64_t box_pairs = 0, triangle_pairs = 0;
    std::mutex mutex;  // guards heap: the owner takes from it, the others steal
    std::vector<NodePair> heap;
    // The heap's size as last left, read without the lock: idle workers look before they lock (with many
    // threads, thieves locking empty heaps in turn slowed their owners' every pop).
    std::atomic<size_t> size{0};
    std::vector<NodePair> kept;                                            // children put aside by a dive, for the heap
    double seen_bound = std::nan(""), limit = INFINITY, reach = INFINITY;  // limit = reach squared
    // B's node last moved, kept for the next pairs with the same B node.
    uint32_t moved_node = UINT32_MAX;
    bool moved_oriented = false;
    CentredBox moved_box;
    MovedOrientedBox oriented;
  };

  struct Later {
    bool operator()(const NodePair& x, const NodePair& y) const { return x.key > y.key; }
  };
  static constexpr Later later{};

  void tighten(double bound2) {
    double seen = bound_.load(std::memory_order_relaxed);
    while ((kMax ? bound2 > seen : bound2 < seen) &&
           !bound_.compare_exchange_weak(seen, bound2, std::memory_order_relaxed)) {
    }
  }

  bool cut(double key, Worker& w) const {
    const double bound2 = bound_.load(std::memory_order_relaxed);
    if (!(bound2 == w.seen_bound)) {
      w.seen_bound = bound2;
      w.limit = cut_limit<kMax>(bound2, slack_);
      w.reach = std::sqrt(w.limit);
    }
    return key > w.limit;
  }

  // The pair's key: for the minimum the largest of three lower bounds, each dearer and tighter than the
  // one before and skipped when that one cuts (the boxes' gap; for rigid poses the oriented DOPs' gap
  // along the boxes' thinnest axes; then between two small nodes the gap of their vertices' hulls, else the
  // DOPs' gap along the line between their centres and its refinements where the thin axes come near to
  // cutting); for the maximum the boxes' farthest spread.
  double key(uint32_t na, uint32_t nb, Worker& w) const {
    if (w.moved_node != nb) {
      w.moved_node = nb;
      w.moved_box = b_.moved(nb);
      w.moved_oriented = false;
    }
    const CentredBox a = centred(a_.box(na));
    if (kMax) return -centred_far2(a, w.moved_box);
    const double key = centred_gap2(a, w.moved_box);
    if (cut(key, w)) return key;
    const bool hull = a_.bounds.has_points(na) && b_.tree().bounds.has_points(nb);
    double bound = key;
    if (b_.oriented()) {
      if (!w.moved_oriented) {
        w.oriented = b_.oriented(nb);
        w.moved_oriented = true;
      }
      const NodeShape& shape = a_.bounds.shape(na);
      const MovedOrientedBox oriented = as_double(shape.box);
      const DopView a_dop = dop_view(oriented, shape.dop),
                    b_dop = dop_view(w.oriented, b_.tree().bounds.shape(nb).dop, b_.eps());
      const double thin = dop_thin_gap(a_dop, b_dop);
      bound = larger(key, thin * thin);
      if (cut(bound, w)) return bound;
      if (!hull) {
        if (bound < kDopWorth * w.limit) return bound;
        const double gap = dop_gap(a_dop, b_dop, kDopSteps, w.reach);
        return larger(bound, gap * gap);
      }
    }
    if (!hull) return bound;
    const double gap = hull_gap(na, nb, dsub(w.moved_box.c, a.c), w);
    return larger(bound, gap * gap);
  }

  // A lower bound of the distance between the convex hulls of two small nodes' points (A's, and B's posed):
  // the separation along x, starting from the line between the boxes' centres, then along Gilbert's
  // refinements (the nearest point to the origin of the segment from x to the two points found).
  double hull_gap(uint32_t na, uint32_t nb, Dvec3 x, Worker& w) const {
    const NodePointsView points = a_.bounds.points(na);
    const float* xs = points.xs;
    const uint32_t n = points.padded;
    double best = 0.0;
    for (int step = 0;; ++step) {
      const double xx = ddot(x, x);
      if (!(xx > 0.0)) break;
      const Support sa = node_support(xs, n, x.x, x.y, x.z);
      Dvec3 pb;
      const double raw = b_.least(nb, x, pb) - sa.h;  // the separation times |x|
      best = larger(best, raw / std::sqrt(xx) - b_.eps());
      if (step == kHullSteps || best > w.reach) break;
      if (!gilbert_step(x, {xs[sa.at], xs[n + sa.at], xs[2 * n + sa.at]}, pb)) break;
    }
    return best;
  }

  // Every triangle pair of two leaves (1 or 2 triangles each).
  void leaves(uint32_t na, uint32_t nb, Worker& w) {
    const Tree& tb = b_.tree();
    const uint64_t ia = na - ((1ull << a_.depth()) - 1), ib = nb - ((1ull << tb.depth()) - 1);
    for (uint32_t sb = f12_leaf_first(tb.mesh.shape, ib); sb < f12_leaf_first(tb.mesh.shape, ib + 1); ++sb) {
      const Corners3 cb = b_.slot(sb);
      for (uint32_t sa = f12_leaf_first(a_.mesh.shape, ia); sa < f12_leaf_first(a_.mesh.shape, ia + 1); ++sa) {
        const Corners3 ca = a_.slot(sa);
        if (!kMax && cut(triangle_pair_lower2(ca, cb), w)) continue;  // the normals separate them too far
        test_triangles(ca, cb, {sa, sb}, w);
      }
    }
  }

  void test_triangles(const Corners3& ca, const Corners3& cb, SlotPair slots, Worker& w) {
    const PairPoints p = kMax ? triangle_pair_max(ca, cb) : triangle_pair_min(ca, cb);
    ++w.triangle_pairs;
    const Candidate c{p.d2, a_.mesh.triangle[slots.a], b_.tree().mesh.triangle[slots.b], p};
    if (better_candidate<kMax>(c, w.best)) w.best = c, w.best_slots = slots;
    tighten(p.d2);
  }
  void test_triangles(uint32_t sa, uint32_t sb, Worker& w) { test_triangles(a_.slot(sa), b_.slot(sb), {sa, sb}, w); }

  // The child pairs of (a, b) that survive the cut, best first: both nodes split where they have children
  // (up to 4 pairs). Measured against splitting only the larger one: about as many box pairs, and per
  // frame at 100k, one thread, rings 0.53 to 0.46 ms, tools 3.7 to 2.65 ms (fewer steps down, each
  // choosing among more pairs, and B's moved box reused by A's two children).
  int children(const NodePair& p, Worker& w, NodePair out[4]) {
    const Tree& tb = b_.tree();
    const uint32_t a0 = a_.leaf(p.a) ? p.a : 2 * p.a + 1, a1 = a_.leaf(p.a) ? p.a : 2 * p.a + 2;
    const uint32_t b0 = tb.leaf(p.b) ? p.b : 2 * p.b + 1, b1 = tb.leaf(p.b) ? p.b : 2 * p.b + 2;
    int n = 0;
    for (uint32_t cb = b0; cb <= b1; ++cb)
      for (uint32_t ca = a0; ca <= a1; ++ca) {
        ++w.box_pairs;
        const double k = key(ca, cb, w);
        if (!cut(k, w)) out[n++] = {ca, cb, k};
      }
    for (int i = 1; i < n; ++i)  // insertion sort of at most 4
      for (int j = i; j > 0 && out[j].key < out[j - 1].key; --j) std::swap(out[j], out[j - 1]);
    return n;
  }

  bool leaf_pair(const NodePair& p) const { return a_.leaf(p.a) && b_.tree().leaf(p.b); }

  // Pops w's best pair that the bound does not cut, after putting back the children kept by the last dive.
  bool pop(Worker& w, NodePair& p, double& next_key) {
    std::lock_guard<std::mutex> lock(w.mutex);
    for (const NodePair& k : w.kept) {
      w.heap.push_back(k);
      std::push_heap(w.heap.begin(), w.heap.end(), later);
    }
    w.kept.clear();
    if (!w.heap.empty() && cut(w.heap.front().key, w)) w.heap.clear();  // every pair left has a larger key
    if (w.heap.empty()) {
      w.size.store(0, std::memory_order_relaxed);
      return false;
    }
    std::pop_heap(w.heap.begin(), w.heap.end(), later);
    p = w.heap.back();
    w.heap.pop_back();
    next_key = w.heap.empty() ? INFINITY : w.heap.front().key;
    w.size.store(w.heap.size(), std::memory_order_relaxed);
    return true;
  }

  // Moves every second pair of another worker's heap (a share of its best ones too) into w's.
  bool steal(Worker& w, std::vector<Worker>& workers) {
    std::vector<NodePair>& loot = w.kept;
    for (size_t k = 1; k < workers.size() && loot.empty(); ++k) {
      Worker& v = workers[(&w - workers.data() + k) % workers.size()];
      if (v.size.load(std::memory_order_relaxed) < 2) continue;
      std::lock_guard<std::mutex> lock(v.mutex);
      if (v.heap.size() < 2) continue;
      size_t left = 0;
      for (size_t i = 0; i < v.heap.size(); ++i) (i % 2 ? loot.push_back(v.heap[i]) : void(v.heap[left++] = v.heap[i]));
      v.heap.resize(left);
      v.size.store(left, std::memory_order_relaxed);
      std::make_heap(v.heap.begin(), v.heap.end(), later);
      active_.fetch_add(1);  // before v's lock is let go: while v has pairs, it is active
    }
    return !loot.empty();
  }

  // Searches from w's heap until no worker has a pair left, stealing from the others when it runs dry;
  // or, alone, until w's heap is empty or w has tested `stop_at` box pairs (then every pair is back in
  // the heap). A worker counts as active while it has pairs or follows one down: none active means done.
  void work(Worker& w, std::vector<Worker>& workers, bool alone, uint64_t stop_at) {
    bool active = !w.heap.empty();
    NodePair p;
    double next_key;
    for (;;) {
      if (failed_.load(std::memory_order_relaxed)) return;
      if (pop(w, p, next_key)) {
        dive(p, next_key, w);
        if (w.box_pairs >= stop_at) {
          pop_back_kept(w);
          return;
        }
        continue;
      }
      if (alone) return;
      if (active) active_.fetch_sub(1);
      active = false;
      if (active_.load() == 0) return;
      if (steal(w, workers)) {
        active = true;
      } else {
        std::this_thread::yield();
      }
    }
  }

  void pop_back_kept(Worker& w) {
    for (const NodePair& k : w.kept) w.heap.push_back(k);
    w.kept.clear();
    std::make_heap(w.heap.begin(), w.heap.end(), later);
    w.size.store(w.heap.size(), std::memory_order_relaxed);
  }

  // Down from p while its best child still comes before the next pair in the heap (as it stood): the
  // order of pushing and taking that child, without the lock and the heap's work.
  void dive(NodePair p, double next_key, Worker& w) {
    NodePair kids[4];
    for (;;) {
      if (cut(p.key, w)) return;
      if (leaf_pair(p)) {
        leaves(p.a, p.b, w);
        return;
      }
      const int n = children(p, w, kids);
      if (n == 0) return;
      for (int i = 1; i < n; ++i) w.kept.push_back(kids[i]);
      if (kids[0].key > next_key) {
        w.kept.push_back(kids[0]);
        return;
      }
      p = kids[0];
    }
  }

  const Tree& a_;
  const PosedB& b_;
  const int threads_;
  const double slack_;
  std::atomic<double> bound_{0.0};
  std::atomic<int> active_{0};  // workers with pairs, or following one down
  std::atomic<bool> failed_{false};  // a worker threw: every worker stops
};

// Every triangle pair at distance 0 (XHD_DISTANCE_CONTACTS): down from the roots through every node pair
// whose boxes come within the pruning slack of touching (the cut the minimum's search makes once its bound
// is 0, so no pair at distance 0 is missed), and every triangle pair of two such leaves measured exactly.
// Breadth first until there are pairs enough to share, then each thread descends its share depth first: a
// count and a union of boxes, the same whatever the split (two coincident 1M-triangle spheres: 14M pairs).
class ContactSearch {
 public:
  ContactSearch(const Tree& a, const PosedB& b, double slack) : a_(a), b_(b), tb_(b.tree()), limit_(slack * slack) {}

  Contacts run(int threads, uint64_t& box_pairs, uint64_t& triangle_pairs) const {
    Part whole;
    std::vector<NodePair> front{{0u, 0u}}, next;
    const size_t enough = 64 * static_cast<size_t>(std::max(threads, 1));
    while (threads > 1 && !front.empty() && front.size() < enough) {
      next.clear();
      for (const NodePair& p : front) visit(p, whole, next);
      front.swap(next);
    }
    std::vector<Part> parts(std::max(threads, 1));
    parallel_blocks(front.size(), 16, threads, [&](size_t begin, size_t end, int tid) {
      Part& part = parts[tid];
      std::vector<NodePair> stack;
      for (size_t i = begin; i < end; ++i) {
        stack.push_back(front[i]);
        while (!stack.empty()) {
          const NodePair p = stack.back();
          stack.pop_back();
          visit(p, part, stack);
        }
      }
    });
    for (const Part& part : parts) whole.merge(part);
    box_pairs += whole.box_pairs;
    triangle_pairs += whole.triangle_pairs;
    return whole.contacts;
  }

 private:
  struct NodePair {
    uint32_t a, b;
  };
  struct Part {
    Contacts contacts;
    uint64_t box_pairs = 0, triangle_pairs = 0;
    void merge(const Part& o) {
      contacts.merge(o.contacts);
      box_pairs += o.box_pairs;
      triangle_pairs += o.triangle_pairs;
    }
  };

  // One node pair: cut, or its leaves' triangle pairs measured, or its child pairs pushed onto `more`.
  void visit(const NodePair& p, Part& part, std::vector<NodePair>& more) const {
    ++part.box_pairs;
    if (centred_gap2(centred(a_.box(p.a)), b_.moved(p.b)) > limit_) return;
    const bool leaf_a = a_.leaf(p.a), leaf_b = tb_.leaf(p.b);
    if (leaf_a && leaf_b) {
      const uint64_t ia = p.a - ((1ull << a_.depth()) - 1), ib = p.b - ((1ull << tb_.depth()) - 1);
      for (uint32_t sb = f12_leaf_first(tb_.mesh.shape, ib); sb < f12_leaf_first(tb_.mesh.shape, ib + 1); ++sb) {
        const Corners3 cb = b_.slot(sb);
        for (uint32_t sa = f12_leaf_first(a_.mesh.shape, ia); sa < f12_leaf_first(a_.mesh.shape, ia + 1); ++sa) {
          const Corners3 ca = a_.slot(sa);
          ++part.triangle_pairs;
          if (triangle_pair_min(ca, cb).d2 == 0.0) part.contacts.add(ca, cb);
        }
      }
      return;
    }
    for (uint32_t ca = leaf_a ? p.a : 2 * p.a + 1; ca <= (leaf_a ? p.a : 2 * p.a + 2); ++ca)
      for (uint32_t cb = leaf_b ? p.b : 2 * p.b + 1; cb <= (leaf_b ? p.b : 2 * p.b + 2); ++cb) more.push_back({ca, cb});
  }

  const Tree& a_;
  const PosedB& b_;
  const Tree& tb_;
  const double limit_;
};

// What each step of a build counts on the progress bar, per triangle of its mesh: roughly its share of the
// time (1M triangles, CPU time: ordering 0.2 s, boxes 0.05 s, points 0.6 s, oriented boxes and reaches 1.3 s;
// on demand, the searches make the points and shapes).
constexpr uint64_t kOrderWeight = 2, kBoxesWeight = 1, kBoundsWeight = 12;

class F12Distance final : public MeshDistanceEngine {
 public:
  F12Distance(const xhd_mesh& a, const xhd_mesh& b, const xhd_distance_options& o, const Progress& progress)
      : which_(o.which), threads_(resolve_thread_count(o.threads)) {
    if (o.which & XHD_DISTANCE_PENETRATION) penetration_ = std::make_unique<PenetrationProbe>(a, b, false, threads_);
    const bool min = (o.which & XHD_DISTANCE_MIN) != 0, on_demand = (o.which & XHD_DISTANCE_ON_DEMAND) != 0;
    const uint64_t per_triangle = kOrderWeight + kBoxesWeight + (min && !on_demand ? kBoundsWeight : 0);
    progress.set_total(per_triangle * (a.triangle_count + b.triangle_count));
    for (auto [tree, mesh] : {std::pair<Tree*, const xhd_mesh*>{&a_, &a}, {&b_, &b}}) {
      const uint64_t n = mesh->triangle_count;
      MeshFrame frame;
      frame_mesh(*mesh, threads_, frame);
      tree->frame = frame.info;
      if (on_demand) {
        tree->lazy = std::make_unique<LazyF12Order>(frame, mesh->vertex_count, tree->mesh, tree->truth, tree->boxes,
                                                    threads_, progress);
        if (min) tree->bounds = NodeBounds(tree->mesh, kPointNodeTriangles, threads_, true, progress, tree->lazy.get());
        tree->lazy->reach(0);
        progress.step_done((kOrderWeight + kBoxesWeight) * n);
        continue;
      }
      HostPhases phases("f12 build");
      tree->mesh = build_f12_mesh(frame.xyz(), mesh->triangles, n, threads_, progress);
      progress.step_done(kOrderWeight * n);
      phases.mark("kd order, corners");
      tree->truth = truth_corners(tree->mesh, frame, threads_);
      tree->boxes = f12_boxes(tree->mesh, threads_);
      progress.step_done(kBoxesWeight * n);
      phases.mark("boxes");
      if (!min) continue;
      tree->bounds = NodeBounds(tree->mesh, kPointNodeTriangles, threads_, on_demand, progress);
      if (!on_demand) progress.step_done(kBoundsWeight * n);
    }
  }

  void query(const double* pose, xhd_distance_result& r) override {
    const auto start = std::chrono::steady_clock::now();
    if (pose == nullptr) pose = kIdentityPose;
    const FramePose frame = frame_pose(pose, a_.frame, b_.frame);
    const PosedB b(b_, frame, pose);
    // Every bound the CPU compares against is an exact distance, so the filters' distance from the truth
    // counts once (mesh_frame.h). The truth's magnitude: the frame's (A's box, B's moved one) plus A's origin.
    const double truth_scale =
        std::fmax(largest_coordinate(a_.box(0)), b.moved_scale()) + largest_abs(a_.frame.origin);
    const double slack = pruning_slack(truth_scale) + a_.frame.copy_error + frame.displacement;
    if (which_ & XHD_DISTANCE_MIN)
      write_pair(Search<false>(a_, b, threads_, slack).run(last_min_, r.box_pairs, r.triangle_pairs), r.min);
    if (which_ & XHD_DISTANCE_CONTACTS)
      (r.min.distance == 0.0 ? ContactSearch(a_, b, slack).run(threads_, r.box_pairs, r.triangle_pairs) : Contacts{})
          .write(r);
    if (penetration_) penetration_->query(pose, r.min.distance, r);
    if (which_ & XHD_DISTANCE_MAX)
      write_pair(Search<true>(a_, b, threads_, slack).run(last_max_, r.box_pairs, r.triangle_pairs), r.max);
    r.query_ms = elapsed_ms(start);
  }

 private:
  const int which_;
  const int threads_;
  Tree a_, b_;
  SlotPair last_min_, last_max_;  // the last query's answers
  std::unique_ptr<PenetrationProbe> penetration_;  // XHD_DISTANCE_PENETRATION
};

}  // namespace

std::unique_ptr<MeshDistanceEngine> make_cpu_f12_distance(const xhd_mesh& a, const xhd_mesh& b,
                                                          const xhd_distance_options& o, const Progress& progress) {
  return std::make_unique<F12Distance>(a, b, o, progress);
}

}  // namespace xhd
