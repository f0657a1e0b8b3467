#include "mesh_distance.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <vector>

#include "../common/elapsed.h"
#include "../common/f12_bvh.h"
#include "../common/mesh_distance_common.h"
#include "../common/normal_slab_build.h"
#include "../common/parallel.h"

namespace xhd {
namespace {

constexpr size_t kPoseBlock = 16384;
// The breadth-first start hands each thread this many subtrees (on average) to search depth first.
constexpr size_t kFrontPerThread = 32;

// One mesh's f12 hierarchy with its boxes; B's corners are re-posed by every query.
struct Tree {
  F12Mesh mesh;
  LargeVector<float> posed;  // the corners searched (B: posed; A: unused, mesh.corners are searched)
  LargeVector<Box> boxes;    // implicit breadth-first layout
  LargeVector<Slab> slabs;   // in the mesh's own frame
  const float* corners = nullptr;
  // B: the pose its slabs move with (rigid poses only), and the widening for the posed vertices' rounding.
  bool slabs_usable = false;
  const double* pose = nullptr;
  double slab_eps = 0.0;

  Slab slab(uint32_t node) const {
    if (!slabs_usable) return Slab{{0.f, 0.f, 0.f}, 0.0, 0.0};
    return pose == nullptr ? slabs[node] : move_slab(slabs[node], pose, slab_eps);
  }

  uint32_t depth() const { return mesh.shape.depth; }
  Corners3 slot(uint32_t s) const { return load_corners(corners + 9ull * s); }
};

void refit(Tree& t, int threads) {
  const F12Shape& s = t.mesh.shape;
  const uint64_t leaves = 1ull << s.depth, first_leaf = leaves - 1;
  t.boxes.resize(f12_node_count(s));
  parallel_blocks(leaves, kPoseBlock, threads, [&](size_t begin, size_t end, int) {
    for (size_t i = begin; i < end; ++i) {
      Box box;
      box_make_empty(box);
      for (uint32_t slot = f12_leaf_first(s, i); slot < f12_leaf_first(s, i + 1); ++slot)
        for (int k = 0; k < 3; ++k) box_grow(box, t.corners + 9ull * slot + 3 * k);
      t.boxes[first_leaf + i] = box;
    }
  });
  for (uint32_t level = s.depth; level-- > 0;) {
    const uint64_t count = 1ull << level, first = count - 1;
    parallel_blocks(count, kPoseBlock, count >= 2 * kPoseBlock ? threads : 1, [&](size_t begin, size_t end, int) {
      for (size_t i = begin; i < end; ++i) {
        Box box = t.boxes[f12_node(level + 1, 2 * i)];
        box_merge(box, t.boxes[f12_node(level + 1, 2 * i + 1)]);
        t.boxes[first + i] = box;
      }
    });
  }
}

void pose_corners(Tree& t, const double* pose, int threads) {
  const uint64_t n = t.mesh.shape.triangles;
  t.posed.resize(9 * n);
  std::atomic<bool> finite{true};
  parallel_blocks(3 * n, kPoseBlock, threads, [&](size_t begin, size_t end, int) {
    bool ok = true;
    for (size_t v = begin; v < end; ++v) {
      pose_vertex(pose, t.mesh.corners.data() + 3 * v, t.posed.data() + 3 * v);
      for (int k = 0; k < 3; ++k) ok = ok && std::isfinite(t.posed[3 * v + k]);
    }
    if (!ok) finite.store(false, std::memory_order_relaxed);
  });
  if (!finite.load()) throw InvalidArgument("the pose moves B's vertices beyond the float range");
  t.corners = t.posed.data();
}

// The order and pruning of one distance: the minimum searches the nearest pairs of nodes first and cuts
// those whose gap exceeds the bound; the maximum searches the farthest first and cuts those whose
// farthest spread falls short of it.
template <bool kMax>
struct Rule {
  static double key(const Box& a, const Box& b) { return kMax ? -box_far2(a, b) : box_gap2(a, b); }
  static double bound(const Box& a, const Box& b) { return kMax ? box_max_lower2(a, b) : box_min_upper2(a, b); }
  static bool cut(double key, double bound2, double slack) {
    if (kMax) {
      const double far2 = -key;
      return far2 < bound2 && std::sqrt(far2) < std::sqrt(bound2) - slack;
    }
    return key > bound2 && std::sqrt(key) > std::sqrt(bound2) + slack;
  }
  static bool tighter(double x, double than) { return kMax ? x > than : x < than; }
  static PairPoints exact(const Corners3& a, const Corners3& b) { return kMax ? triangle_pair_max(a, b) : triangle_pair_min(a, b); }
};

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
  double key;
};

template <bool kMax>
class Search {
 public:
  Search(const Tree& a, const Tree& b, int threads)
      : a_(a), b_(b), threads_(threads), slack_(pruning_slack(a.boxes[0], b.boxes[0])) {
    bound_.store(Rule<kMax>::bound(a.boxes[0], b.boxes[0]));
  }

  Candidate run(uint64_t& box_pairs, uint64_t& triangle_pairs) {
    std::vector<Worker> workers(threads_);
    greedy_descent(workers[0]);
    std::vector<NodePair> front = breadth_first_front(workers[0]);
    for (Worker& w : workers) w.enhanced = false;
    std::sort(front.begin(), front.end(), [](const NodePair& x, const NodePair& y) { return x.key < y.key; });
    parallel_blocks(front.size(), 1, threads_, [&](size_t begin, size_t end, int tid) {
      for (size_t i = begin; i < end; ++i) depth_first(front[i], workers[tid]);
    });
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
    std::vector<NodePair> stack;
    // The enhanced box bounds tighten the bound before any exact distance is known; in the depth-first
    // phase the leaves' exact distances are tighter, and the 36 face pairs would cost more than they save.
    bool enhanced = true;
  };

  bool leaf_a(uint32_t node) const { return f12_level(node) == a_.depth(); }
  bool leaf_b(uint32_t node) const { return f12_level(node) == b_.depth(); }

  void tighten(double bound2) {
    double seen = bound_.load(std::memory_order_relaxed);
    while (Rule<kMax>::tighter(bound2, seen) && !bound_.compare_exchange_weak(seen, bound2, std::memory_order_relaxed)) {
    }
  }

  bool cut(double key) const { return Rule<kMax>::cut(key, bound_.load(std::memory_order_relaxed), slack_); }

  // Every triangle pair of two leaves (1 or 2 triangles each).
  void leaves(uint32_t na, uint32_t nb, Worker& w) {
    const uint64_t ia = na - ((1ull << a_.depth()) - 1), ib = nb - ((1ull << b_.depth()) - 1);
    for (uint32_t sa = f12_leaf_first(a_.mesh.shape, ia); sa < f12_leaf_first(a_.mesh.shape, ia + 1); ++sa)
      for (uint32_t sb = f12_leaf_first(b_.mesh.shape, ib); sb < f12_leaf_first(b_.mesh.shape, ib + 1); ++sb) {
        const Corners3 ca = a_.slot(sa), cb = b_.slot(sb);
        if (!kMax && cut(triangle_pair_lower2(ca, cb))) continue;  // the normals separate them too far
        const PairPoints p = Rule<kMax>::exact(ca, cb);
        ++w.triangle_pairs;
        const Candidate c{p.d2, a_.mesh.triangle[sa], b_.mesh.triangle[sb], p};
        if (better_candidate<kMax>(c, w.best)) w.best = c;
        tighten(p.d2);
      }
  }

  // The child pairs of (a, b), both sides split where they can, that survive the cut, best first.
  int children(const NodePair& p, Worker& w, NodePair out[4]) {
    bool split_a = !leaf_a(p.a), split_b = !leaf_b(p.b);
    // Split the larger box only: two child pairs instead of four, and the smaller box is not cut up
    // before it needs to be.
    if (split_a && split_b) {
      const double ea = box_extent2(a_.boxes[p.a]), eb = box_extent2(b_.boxes[p.b]);
      (ea >= eb ? split_b : split_a) = false;
    }
    int n = 0;
    for (int i = 0; i < (split_a ? 2 : 1); ++i)
      for (int j = 0; j < (split_b ? 2 : 1); ++j) {
        const uint32_t ca = split_a ? 2 * p.a + 1 + i : p.a, cb = split_b ? 2 * p.b + 1 + j : p.b;
        const Box& ba = a_.boxes[ca];
        const Box& bb = b_.boxes[cb];
        ++w.box_pairs;
        double key = Rule<kMax>::key(ba, bb);
        if (!kMax && !cut(key)) key = std::fmax(key, slab_gap2(ba, a_.slab(ca), bb, b_.slab(cb)));
        if (cut(key)) continue;
        if (w.enhanced) tighten(Rule<kMax>::bound(ba, bb));
        out[n++] = {ca, cb, key};
      }
    for (int i = 1; i < n; ++i)  // at most four: insertion sort
      for (int j = i; j > 0 && out[j].key < out[j - 1].key; --j) std::swap(out[j], out[j - 1]);
    return n;
  }

  // Straight down the most promising children: a first real answer, so pruning starts tight.
  void greedy_descent(Worker& w) {
    NodePair p{0, 0, Rule<kMax>::key(a_.boxes[0], b_.boxes[0])};
    NodePair next[4];
    while (!(leaf_a(p.a) && leaf_b(p.b))) {
      if (children(p, w, next) == 0) return;
      p = next[0];
    }
    leaves(p.a, p.b, w);
  }

  std::vector<NodePair> breadth_first_front(Worker& w) {
    std::vector<NodePair> front{{0, 0, Rule<kMax>::key(a_.boxes[0], b_.boxes[0])}}, next;
    const size_t wanted = kFrontPerThread * static_cast<size_t>(threads_);
    while (front.size() < wanted) {
      next.clear();
      bool split = false;
      NodePair kids[4];
      for (const NodePair& p : front) {
        if (cut(p.key)) continue;
        if (leaf_a(p.a) && leaf_b(p.b)) {
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

  void depth_first(const NodePair& start, Worker& w) {
    std::vector<NodePair>& stack = w.stack;
    stack.assign(1, start);
    NodePair kids[4];
    while (!stack.empty()) {
      const NodePair p = stack.back();
      stack.pop_back();
      if (cut(p.key)) continue;
      if (leaf_a(p.a) && leaf_b(p.b)) {
        leaves(p.a, p.b, w);
        continue;
      }
      const int n = children(p, w, kids);
      for (int i = n; i-- > 0;) stack.push_back(kids[i]);  // the best child on top
    }
  }

  const Tree& a_;
  const Tree& b_;
  const int threads_;
  const double slack_;
  std::atomic<double> bound_{0.0};
};

class F12Distance final : public CpuMeshDistance {
 public:
  F12Distance(const xhd_mesh& a, const xhd_mesh& b, const xhd_distance_options& o)
      : which_(o.which), threads_(resolve_thread_count(o.threads)) {
    a_.mesh = build_f12_mesh(a.xyz, a.triangles, a.triangle_count);
    b_.mesh = build_f12_mesh(b.xyz, b.triangles, b.triangle_count);
    a_.corners = a_.mesh.corners.data();
    refit(a_, threads_);
    if (o.which & XHD_DISTANCE_MIN) {
      a_.slabs = build_slabs(a_.mesh, a_.boxes.data(), threads_);
      a_.slabs_usable = true;
      b_.corners = b_.mesh.corners.data();  // B's boxes in its own frame, for its slabs
      refit(b_, threads_);
      b_.slabs = build_slabs(b_.mesh, b_.boxes.data(), threads_);
      // B's local corners bound its slab widening: the rounding of a posed vertex, and of R u to float.
      for (float v : b_.mesh.corners) b_local_scale_ = std::fmax(b_local_scale_, std::fabs(v));
    }
  }

  void query(const double* pose, xhd_distance_result& r) override {
    const auto start = std::chrono::steady_clock::now();
    const double* posed = pose ? pose : kIdentityPose;
    std::copy(posed, posed + 12, pose_);
    pose_corners(b_, pose_, threads_);
    refit(b_, threads_);
    // Slabs move with rigid poses only; an affine one leaves B with its boxes alone.
    b_.slabs_usable = !b_.slabs.empty() && is_rigid(pose_);
    b_.pose = pose_;
    double moved_scale = 0.0;
    for (int k = 0; k < 3; ++k)
      moved_scale = std::fmax(moved_scale, std::fmax(std::fabs(b_.boxes[0].min[k]), std::fabs(b_.boxes[0].max[k])));
    b_.slab_eps = 4e-7 * (moved_scale + b_local_scale_);
    if (which_ & XHD_DISTANCE_MIN) write_pair(Search<false>(a_, b_, threads_).run(r.box_pairs, r.triangle_pairs), r.min);
    if (which_ & XHD_DISTANCE_MAX) write_pair(Search<true>(a_, b_, threads_).run(r.box_pairs, r.triangle_pairs), r.max);
    r.query_ms = elapsed_ms(start);
  }

 private:
  const int which_;
  const int threads_;
  Tree a_, b_;
  double pose_[12] = {};
  double b_local_scale_ = 0.0;
};

}  // namespace

std::unique_ptr<CpuMeshDistance> make_cpu_f12_distance(const xhd_mesh& a, const xhd_mesh& b, const xhd_distance_options& o) {
  return std::make_unique<F12Distance>(a, b, o);
}

}  // namespace xhd
