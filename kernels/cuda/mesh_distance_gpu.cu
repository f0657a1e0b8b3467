#include "mesh_distance_gpu.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include <cooperative_groups.h>

#include "../abi/elapsed.h"
#include "../geometry/f12_bvh.h"
#include "../geometry/mesh_distance_common.h"
#include "../geometry/mesh_frame.h"
#include "../geometry/mesh_truth.h"
#include "../geometry/oriented_box_build.h"
#include "../abi/parallel.h"
#include "../abi/env_switch.h"
#include "cuda_check.h"
#include "f12_build_gpu.h"
#include "device_memory.h"
#include "device_session.h"
#include "launch.h"
#include "phase_log.h"
#include "pinned_array.h"
#include "resident_loop.h"

namespace xhd {
namespace {

constexpr int kThreads = 256;
// The adaptive depth k is the largest with 4^k · (front size) < kGenerated (the paper's C = 1024 × 256).
constexpr uint64_t kGenerated = 1024ull * 256;
// Pairs a front buffer holds; an expansion that could generate more is done in chunks.
constexpr uint64_t kFrontCapacity = 1ull << 24;
// Searches from the stored cut (cut_frames): the pairs a round may test after the first (block 0's shared lists),
// the leaf pairs a frame may measure (up to four triangle pairs each, measured kPassPairs triangle pairs at a time:
// more passes would keep block 0 longer than the grid's whole search takes), the pairs a stored cut may hold by
// default (XHD_GPU_CUT_PAIRS), and the frames a context's minimum keeps to the grid's search after a round outgrew
// the block.
constexpr uint32_t kCutRound = 1024;
constexpr uint32_t kCutLeaves = 32;
constexpr uint32_t kCutPairs = 4096;
constexpr uint32_t kCutRest = 32;

struct Pose {
  double m[12];
};

struct TrianglePair {
  uint32_t a, b;
};

// A mesh's hierarchy in its own frame, as built: nothing of B is re-posed or refitted per query (Motion moves
// what a search reaches).
struct TreeView {
  F12Shape shape;
  const float* corners;  // the float copy the boxes are fitted to (in the mesh's own frame)
  const uint32_t* triangle;
  Box* boxes;
  const OrientedBox* oriented;  // in the mesh's own frame; null when only the maximum is asked for
  const DopReaches* dops;       // the oriented boxes' DOPs (oriented_dop.h), where asked for (XHD_GPU_DOP=1); else null
  const double* truth;          // the input's corners, 9 a slot, where the copy is not the input; else null
  uint32_t hull_triangles;      // nodes of at most this many triangles are bounded by their hulls (XHD_GPU_HULL); 0: none
};

// B as A sees it under the query's pose, as the CPU backend's PosedB sees it: a box moves to a parallelepiped,
// bounded by its axis-aligned box in A's frame (by the frame pose, mesh_frame.h, widened by eps); oriented boxes
// move with rigid poses; a slot's corners are posed from the input's by the pose itself.
struct Motion {
  BoxMotion boxes;  // by the frame pose: B's copy into A's (mesh_distance_common.h, the CPU's too)
  Pose truth;       // B's input to the truth: the query's pose
  bool rigid;
};

// A's slot's corners as the input states them: what every exact distance is measured over.
__device__ Corners3 exact_corners(const TreeView& a, uint32_t slot) {
  return a.truth != nullptr ? load_corners(a.truth + 9ull * slot) : load_corners(a.corners + 9ull * slot);
}

// B's slot's corners posed: the truth's (posed_corners, the CPU backend's bits).
__device__ Corners3 posed_exact_corners(const TreeView& b, const Motion& m, uint32_t slot) {
  return b.truth != nullptr ? posed_corners(m.truth.m, b.truth + 9ull * slot)
                            : posed_corners(m.truth.m, b.corners + 9ull * slot);
}

// A node pair's key: for the minimum the moved boxes' squared gap, for the maximum their farthest spread negated.
template <bool kMax>
__device__ double pair_key(const TreeView& a, const TreeView& b, const Motion& m, uint32_t na, uint32_t nb) {
  const CentredBox ca = centred(a.boxes[na]), cb = m.boxes.moved(b.boxes[nb]);
  return kMax ? -centred_far2(ca, cb) : centred_gap2(ca, cb);
}

// A real distance between A's slot and B's slot under the motion (their first corners, exact), squared: an upper
// bound of the triangles' minimum distance and a lower bound of their maximum. Only those corners are read and posed
// (the same values as exact_corners' and posed_exact_corners' first).
__device__ double first_corners_distance2(const TreeView& a, const TreeView& b, const Motion& m, uint32_t slot_a,
                                          uint32_t slot_b) {
  const uint64_t at_a = 9ull * slot_a, at_b = 9ull * slot_b;
  const Dvec3 pa =
      a.truth != nullptr ? Dvec3{a.truth[at_a], a.truth[at_a + 1], a.truth[at_a + 2]} : dload(a.corners + at_a);
  Dvec3 pb;
  if (b.truth != nullptr) {
    double q[3];
    pose_vertex64(m.truth.m, b.truth + at_b, q);
    pb = {q[0], q[1], q[2]};
  } else {
    float q[3];
    pose_vertex(m.truth.m, b.corners + at_b, q);
    pb = dload(q);
  }
  const Dvec3 d = dsub(pa, pb);
  return ddot(d, d);
}

// A real distance between the two nodes (the first corners of their first slots), squared: it tightens the running
// bound while the front expands (the tight boxes' face bounds, which did so before, do not hold for B's moved boxes).
__device__ double corner_distance2(const TreeView& a, const TreeView& b, const Motion& m, uint32_t na, uint32_t nb) {
  return first_corners_distance2(a, b, m, f12_node_slots(a.shape, na).first, f12_node_slots(b.shape, nb).first);
}

// The running bound (exact distances: nodes' corners and triangle pairs), the best exact squared distance, and the
// winning pair's key (triangle of A << 32 | triangle of B): the smallest key among equal distances. Beside it the
// smallest pair of slots (slot of A << 32 | slot of B) at the best distance: the pair the next frame of a batch
// measures under its own pose to bound its search from the start (the winner's triangles would need their slots).
struct SearchState {
  unsigned long long bound;
  unsigned long long best;
  unsigned long long key;
  unsigned long long tests;  // exact triangle-pair distances evaluated
  unsigned long long slots;
  unsigned int count;
};

// The paper's float atomic min (max), as one integer atomic on the double's bits: every value tightened here is a
// squared distance, >= +0 (the sentinels: +inf for the minimum, +0 for the maximum's best), and the bits of
// non-negative doubles order as the values do. Its result is not read, so it is a reduction the thread does not
// wait for (a compare-and-swap loop waited a round trip to memory, and then another per lost race, on every
// block of every step). Adding +0 turns a -0 into +0, whose bits are the smallest.
template <bool kMax>
__device__ void atomic_tighten(unsigned long long* slot, double value) {
  const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(value + 0.0));
  if (kMax) atomicMax(slot, bits);
  else atomicMin(slot, bits);
}

// Read past the L1 cache: the records are written by other blocks' atomics, and reused frame after frame.
__device__ unsigned long long read_bits(const unsigned long long* slot) {
  return *reinterpret_cast<const volatile unsigned long long*>(slot);
}

__device__ double read_double(const unsigned long long* slot) { return __longlong_as_double(read_bits(slot)); }

template <bool kMax>
__device__ bool cut(double key, double bound2, double slack) {
  if (kMax) {
    const double far2 = -key;
    return far2 < bound2 && sqrt(far2) < sqrt(bound2) - slack;
  }
  return key > bound2 && sqrt(key) > sqrt(bound2) + slack;
}

// No distance known yet: what a known distance is folded with (fmin, fmax) without changing it.
template <bool kMax>
XHD_HD constexpr double nothing_known() {
  return kMax ? -1.0 : static_cast<double>(INFINITY);
}

// The running bound, with `given` (a real distance known before the search: the last query's answer under this
// pose) folded in: a search that skipped the start phase never wrote it to the state.
template <bool kMax>
__device__ double running_bound(const SearchState* s, double given) {
  const double bound = read_double(&s->bound);
  return kMax ? fmax(bound, given) : fmin(bound, given);
}

// A state as a search of this kind must find it when it skips the start phase: no bound, no best, no winner.
template <bool kMax>
__device__ void clear_state(SearchState* s) {
  s->bound = s->best = __double_as_longlong(kMax ? 0.0 : static_cast<double>(INFINITY));
  s->key = s->slots = ~0ull;
  s->tests = 0;
}

// given: a real distance already known (the last query's answer under this pose), or nothing_known.
template <bool kMax>
__device__ void start_search(TreeView a, TreeView b, const Motion& m, double given, SearchState* s, uint2* front) {
  const double corners = corner_distance2(a, b, m, 0, 0);
  clear_state<kMax>(s);
  s->bound = __double_as_longlong(kMax ? fmax(corners, given) : fmin(corners, given));
  front[0] = make_uint2(0, 0);
}

// One thread straight down the most promising children to a pair of leaves, whose exact distances give
// the bound a real value before the front expands (the CPU backend starts the same way).
template <bool kMax>
__device__ void descend(const TreeView& a, const TreeView& b, const Motion& m, SearchState* s) {
  uint64_t na = 0, nb = 0;
  for (uint32_t la = 0, lb = 0; la < a.shape.depth || lb < b.shape.depth;) {
    const bool split_a = la < a.shape.depth, split_b = lb < b.shape.depth;
    uint64_t best_a = na, best_b = nb;
    double best_key = static_cast<double>(INFINITY);
    for (int i = 0; i < (split_a ? 2 : 1); ++i)
      for (int j = 0; j < (split_b ? 2 : 1); ++j) {
        const uint64_t ca = split_a ? 2 * na + 1 + i : na, cb = split_b ? 2 * nb + 1 + j : nb;
        const double key = pair_key<kMax>(a, b, m, static_cast<uint32_t>(ca), static_cast<uint32_t>(cb));
        if (key < best_key) best_key = key, best_a = ca, best_b = cb;
      }
    na = best_a, nb = best_b;
    la += split_a, lb += split_b;
  }
  const uint64_t ia = na - ((1ull << a.shape.depth) - 1), ib = nb - ((1ull << b.shape.depth) - 1);
  for (uint32_t sa = f12_leaf_first(a.shape, ia); sa < f12_leaf_first(a.shape, ia + 1); ++sa)
    for (uint32_t sb = f12_leaf_first(b.shape, ib); sb < f12_leaf_first(b.shape, ib + 1); ++sb) {
      const Corners3 ca = exact_corners(a, sa), cb = posed_exact_corners(b, m, sb);
      atomic_tighten<kMax>(&s->bound, (kMax ? triangle_pair_max(ca, cb) : triangle_pair_min(ca, cb)).d2);
    }
}

// One expansion step (levels la, lb down by ka, kb), as the host loop launches it and the device loop runs it.
struct Step {
  uint32_t la, lb, ka, kb;
  uint64_t generated;
};

// The DOP bound (oriented_dop.h), where XHD_GPU_DOP=1 asks for it: a pair that its oriented boxes' gap leaves
// within kDopWorth of the cut (squared) is bounded by the DOPs along the line between the boxes' centres and
// kDopSteps Gilbert refinements of it. A lower bound of the nodes' distance, so a pair it cuts holds no pair within
// the bound. Off by default: on an H200 at 1M it cut the rings' box pairs by a quarter (5.0e5 to 3.7e5 a frame)
// and their triangle pairs threefold, but left the rings' frames as long as before and made the balls', terrains'
// and tools' 10-18% longer; the CPU backend's order (the DOPs along the thin axes in place of the oriented boxes,
// then the full bound from 0.4 of the cut, two refinements) made every minimum's frame 11-40% longer
// (docs/benchmarks.md, stop 57). A search's steps wait on chains of dependent loads and a grid-wide barrier more
// than on the pairs' count. Only the kernels made for it (kDops) hold it: in the others, even out of line and never
// called, it made the searches 2-5% slower.
constexpr double kDopWorth = 0.8;
constexpr int kDopSteps = 1;

__device__ bool dop_cut(const TreeView& a, const TreeView& b, const Motion& m, uint2 pair, const MovedOrientedBox& ob,
                        double key, double bound, double slack) {
  const double reach = sqrt(bound) + slack;  // +inf while nothing is known: then nothing is cut
  if (!(key >= kDopWorth * reach * reach)) return false;
  const MovedOrientedBox oa = as_double(a.oriented[pair.x]);
  const DopView da = dop_view(oa, a.dops[pair.x]), db = dop_view(ob, b.dops[pair.y], m.boxes.eps);
  const double gap = dop_gap(da, db, kDopSteps, reach);
  return cut<false>(gap * gap, bound, slack);
}

// The hull gap, where XHD_GPU_HULL=1 asks for it (the DOP kernels hold it): between two nodes of at most
// hull_triangles triangles each, whose oriented boxes leave their pair within kHullWorth of the cut (squared), a lower
// bound of the distance between the convex hulls of their corners (A's, and B's moved by the frame pose, each within
// eps of where it should be): the CPU backend's hull_gap, the separation along x from the line between the boxes'
// centres, then along kHullSteps of Gilbert's refinements. A warp measures one pair at a time, its lanes sharing the
// nodes' corners; the corners' hull is their distinct vertices' (the CPU's node points), so the supports are the same
// maxima of the same products. Off by default: on an H200 at 1M (frames in one call) it cut the rings' triangle pairs
// from 2,838 a frame to 1,083 (nodes of up to 32 triangles) and the tools' from 12,996 to 6,720, and made every
// scene's frame 3-6 times longer (rings 0.068 to 0.29 ms, tools 0.096 to 0.46): a warp walks its candidates one
// after the other, each a chain of eight supports, while the rest of the step waits at the barrier
// (docs/benchmarks.md, stop 60).
constexpr int kHullSteps = 3;
constexpr double kHullWorth = 0.5;

struct WarpSupport {
  double h;     // the largest x·p over the node's corners
  double p[3];  // a corner where it is reached (the first such in the node's order)
};

// Every lane takes part and gets the same answer (a butterfly whose every step keeps the larger, then the earlier).
__device__ WarpSupport warp_support(const TreeView& t, uint32_t node, const double x[3]) {
  const F12Slots slots = f12_node_slots(t.shape, node);
  const uint32_t corners = 3 * (slots.last - slots.first);
  const float* base = t.corners + 9ull * slots.first;
  double best = -static_cast<double>(INFINITY);
  uint32_t at = 0;
  for (uint32_t c = threadIdx.x & 31; c < corners; c += 32) {
    const float* q = base + 3ull * c;
    const double v = (static_cast<double>(q[0]) * x[0] + static_cast<double>(q[1]) * x[1]) +
                     static_cast<double>(q[2]) * x[2];
    if (v > best) best = v, at = c;
  }
  for (int o = 16; o > 0; o >>= 1) {
    const double other = __shfl_xor_sync(0xffffffffu, best, o);
    const uint32_t other_at = __shfl_xor_sync(0xffffffffu, at, o);
    if (other > best || (other == best && other_at < at)) best = other, at = other_at;
  }
  const float* q = base + 3ull * at;
  return {best, {q[0], q[1], q[2]}};
}

__device__ double warp_hull_gap(const TreeView& a, const TreeView& b, const Motion& motion, uint2 pair, double reach) {
  const double* m = motion.boxes.m;
  const CentredBox ca = centred(a.boxes[pair.x]), cb = motion.boxes.moved(b.boxes[pair.y]);
  Dvec3 x = dsub(cb.c, ca.c);
  double best = 0.0;
  for (int step = 0;; ++step) {
    const double xx = ddot(x, x);
    if (!(xx > 0.0)) break;
    const double along[3] = {x.x, x.y, x.z};
    const WarpSupport sa = warp_support(a, pair.x, along);
    // B's least x·p, p posed: the largest (-Mᵀx)·v over its corners v, plus x·t.
    const double back[3] = {-(m[0] * x.x + m[4] * x.y + m[8] * x.z), -(m[1] * x.x + m[5] * x.y + m[9] * x.z),
                            -(m[2] * x.x + m[6] * x.y + m[10] * x.z)};
    const WarpSupport sb = warp_support(b, pair.y, back);
    const double least = -sb.h + (m[3] * x.x + m[7] * x.y + m[11] * x.z);
    best = fmax(best, (least - sa.h) / sqrt(xx) - motion.boxes.eps);
    if (step == kHullSteps || best > reach) break;
    double q[3];
    for (int r = 0; r < 3; ++r)
      q[r] = ((m[4 * r] * sb.p[0] + m[4 * r + 1] * sb.p[1]) + m[4 * r + 2] * sb.p[2]) + m[4 * r + 3];
    if (!gilbert_step(x, Dvec3{sa.p[0], sa.p[1], sa.p[2]}, Dvec3{q[0], q[1], q[2]})) break;
  }
  return best;
}

// XHD_GPU_HULL=1: the hull gap between nodes of at most XHD_GPU_HULL_TRIANGLES triangles (default 32); else 0, none.
uint32_t hull_triangles_asked() {
  if (!asked_for("XHD_GPU_HULL")) return 0;
  const char* c = std::getenv("XHD_GPU_HULL_TRIANGLES");
  return c != nullptr ? static_cast<uint32_t>(std::max(1L, std::atol(c))) : 32u;
}

__device__ bool small_node(const TreeView& t, uint32_t node) {
  const F12Slots slots = f12_node_slots(t.shape, node);
  return slots.last - slots.first <= t.hull_triangles;
}

// Generated BVTT node t (t >= generated: none, but the thread still takes part in its warp's ballot and shuffles):
// the pair of k-th descendants its index encodes. Survivors are appended to `out` (counted in *count); their
// corners' distances are reduced per warp and tighten the global bound once a warp. Every thread of the warp calls it.
template <bool kMax, bool kDops>
__device__ void expand_item(const TreeView& a, const TreeView& b, const uint2* in, const Step& st, uint64_t t,
                            double slack, const Motion& motion, double given, SearchState* s, unsigned int* count,
                            uint2* out) {
  double mine = nothing_known<kMax>();
  bool keep = false, hull_candidate = false;
  double bound = 0.0, reach = 0.0;
  uint2 child = make_uint2(0, 0);
  if (t < st.generated) {
    const uint2 p = st.la == 0 && st.lb == 0 ? make_uint2(0, 0) : in[t >> (st.ka + st.kb)];  // the root: one pair
    const uint64_t j = t & ((1ull << (st.ka + st.kb)) - 1);
    const uint64_t pa = p.x - ((1ull << st.la) - 1), pb = p.y - ((1ull << st.lb) - 1);
    child.x = static_cast<uint32_t>(f12_node(st.la + st.ka, (pa << st.ka) + (j >> st.kb)));
    child.y = static_cast<uint32_t>(f12_node(st.lb + st.kb, (pb << st.kb) + (j & ((1ull << st.kb) - 1))));
    bound = running_bound<kMax>(s, given);
    const double key = pair_key<kMax>(a, b, motion, child.x, child.y);
    keep = !cut<kMax>(key, bound, slack);
    // The oriented boxes (minimum only): patches of smooth surfaces facing each other, or side by side,
    // part long before their axis-aligned boxes do.
    if (!kMax && keep && motion.rigid && a.oriented != nullptr) {
      const MovedOrientedBox ob = move_oriented_box(b.oriented[child.y], motion.boxes.m, motion.boxes.eps);
      const double oriented_key = fmax(key, oriented_gap2(a.oriented[child.x], ob));
      keep = !cut<kMax>(oriented_key, bound, slack) &&
             !(kDops && a.dops != nullptr && dop_cut(a, b, motion, child, ob, oriented_key, bound, slack));
      if (kDops && keep && a.hull_triangles != 0) {
        reach = sqrt(bound) + slack;  // +inf while nothing is known: then no pair is a candidate
        hull_candidate = oriented_key >= kHullWorth * reach * reach && small_node(a, child.x) && small_node(b, child.y);
      }
    }
  }
  if (kDops && !kMax && a.hull_triangles != 0) {
    // A warp's candidates one after the other, every lane measuring each.
    for (unsigned todo = __ballot_sync(0xffffffffu, hull_candidate); todo != 0; todo &= todo - 1) {
      const int from = __ffs(todo) - 1;
      const uint2 pair = make_uint2(__shfl_sync(0xffffffffu, child.x, from), __shfl_sync(0xffffffffu, child.y, from));
      const double gap = warp_hull_gap(a, b, motion, pair, __shfl_sync(0xffffffffu, reach, from));
      if ((threadIdx.x & 31) == static_cast<unsigned>(from)) keep = !cut<false>(gap * gap, bound, slack);
    }
  }
  // Warp-aggregated append, its atomic issued before the corners are read: a survivor waits for both at once.
  const unsigned lane = threadIdx.x & 31, ballot = __ballot_sync(0xffffffffu, keep);
  unsigned base = 0;
  if (lane == 0 && ballot) base = atomicAdd(count, __popc(ballot));
  // A minimum's bound of 0 (meshes that touch) no corners can tighten: their reads would only lengthen the step.
  if (keep && (kMax || bound > 0.0)) mine = corner_distance2(a, b, motion, child.x, child.y);
  base = __shfl_sync(0xffffffffu, base, 0);
  if (keep) out[base + __popc(ballot & ((1u << lane) - 1))] = child;
  // A warp's best corners, then one reduction a warp (a maximum's -1: nothing kept, nothing to say).
  for (int o = 16; o > 0; o >>= 1) {
    const double other = __shfl_down_sync(0xffffffffu, mine, o);
    mine = kMax ? fmax(mine, other) : fmin(mine, other);
  }
  if (lane == 0 && mine != nothing_known<kMax>()) atomic_tighten<kMax>(&s->bound, mine);
}

// Triangle pair t of a final front of leaf pairs (up to 2 x 2 triangle pairs a leaf pair): the leaf pair, and the
// slots of A's and B's triangles, which exist only where both leaves hold that many triangles.
struct LeafTrianglePair {
  uint2 leaves;
  uint32_t sa, sb;
  bool exists;
};

__device__ LeafTrianglePair leaf_triangle_pair(const TreeView& a, const TreeView& b, const uint2* pairs, uint64_t t) {
  const uint2 p = pairs[t >> 2];
  const uint64_t ia = p.x - ((1ull << a.shape.depth) - 1), ib = p.y - ((1ull << b.shape.depth) - 1);
  const uint32_t sa = f12_leaf_first(a.shape, ia) + static_cast<uint32_t>((t >> 1) & 1);
  const uint32_t sb = f12_leaf_first(b.shape, ib) + static_cast<uint32_t>(t & 1);
  return {p, sa, sb, sa < f12_leaf_first(a.shape, ia + 1) && sb < f12_leaf_first(b.shape, ib + 1)};
}

// Triangle pair t of the final front, every pair of leaves: up to 2 × 2 triangle pairs each, a thread each.
template <bool kMax>
__device__ void leaf_pair_item(const TreeView& a, const TreeView& b, const Motion& m, const uint2* pairs,
                               uint32_t count, uint64_t t, double slack, double given, SearchState* s, double* d2) {
  if (t >= 4ull * count) return;
  const LeafTrianglePair q = leaf_triangle_pair(a, b, pairs, t);
  double value = nothing_known<kMax>();
  bool tested = false;
  if (q.exists && !cut<kMax>(pair_key<kMax>(a, b, m, q.leaves.x, q.leaves.y), running_bound<kMax>(s, given), slack)) {
    const Corners3 ca = exact_corners(a, q.sa), cb = posed_exact_corners(b, m, q.sb);
    // The normals' separation first (minimum only): most leaf pairs of facing surfaces end there.
    if (kMax || !cut<kMax>(triangle_pair_lower2(ca, cb), running_bound<kMax>(s, given), slack)) {
      value = (kMax ? triangle_pair_max(ca, cb) : triangle_pair_min(ca, cb)).d2;
      tested = true;
      atomic_tighten<kMax>(&s->best, value);
      atomic_tighten<kMax>(&s->bound, value);
    }
  }
  d2[t] = value;
  const unsigned active = __activemask();
  const unsigned tests = __popc(__ballot_sync(active, tested));
  if ((threadIdx.x & 31) == __ffs(active) - 1) atomicAdd(&s->tests, static_cast<unsigned long long>(tests));
}

// The triangle pair's squared distance (triangle_pair_min's or _max's d2, to the bit), measured by the whole warp:
// lane k runs the pair's k-th test (triangle_pair_min_test, _max_test), and every lane gets the reduction of their
// values. Every lane of the warp calls it, with the same corners.
template <bool kMax>
__device__ double pair_d2_by_warp(const Corners3& ca, const Corners3& cb) {
  const unsigned lane = threadIdx.x & 31;
  double value = nothing_known<kMax>();
  if (lane < static_cast<unsigned>(kMax ? kPairMaxTests : kPairMinTests))
    value = kMax ? triangle_pair_max_test(ca, cb, lane) : triangle_pair_min_test(ca, cb, lane);
  for (int o = 16; o > 0; o >>= 1) {
    const double other = __shfl_xor_sync(0xffffffffu, value, o);
    value = kMax ? fmax(value, other) : fmin(value, other);
  }
  return value;
}

// Triangle pair t of the final front (every pair of leaves: up to 2 x 2 triangle pairs each), measured by a whole
// warp: t is the same in every lane. Lane 0 takes the cut (the nodes' boxes) and the warp follows its answer;
// then lane k runs the pair's k-th test (triangle_pair_min_test, _max_test) and the warp reduces their values,
// which is the whole function's d2 bit for bit (triangle_pair.h). A thread running the minimum's 21 tests in a
// row took 12-16 us for one pair of touching triangles on an H200, the longest phase of a small search; but
// where the pairs outnumber the grid's warps, a thread a pair is faster (tools at 1M: 0.12 against 0.18 ms a
// frame), so the device loop takes a warp a pair only where every pair gets its own warp.
template <bool kMax>
__device__ void leaf_pair_by_warp(const TreeView& a, const TreeView& b, const Motion& m, const uint2* pairs,
                                  uint32_t count, uint64_t t, double slack, double given, SearchState* s, double* d2) {
  if (t >= 4ull * count) return;
  const unsigned lane = threadIdx.x & 31;
  const LeafTrianglePair q = leaf_triangle_pair(a, b, pairs, t);
  bool tested = false;
  Corners3 ca{}, cb{};
  if (q.exists) {
    ca = exact_corners(a, q.sa), cb = posed_exact_corners(b, m, q.sb);
    // Only the nodes' boxes: the normals' separation, which a thread a pair tries first to spare its 21 tests in a
    // row, would cost the warp about as long as the tests take side by side.
    if (lane == 0)
      tested = !cut<kMax>(pair_key<kMax>(a, b, m, q.leaves.x, q.leaves.y), running_bound<kMax>(s, given), slack);
  }
  tested = __shfl_sync(0xffffffffu, tested, 0);
  const double value = tested ? pair_d2_by_warp<kMax>(ca, cb) : nothing_known<kMax>();
  if (lane != 0) return;
  d2[t] = value;
  if (tested) {
    atomic_tighten<kMax>(&s->best, value);
    atomic_tighten<kMax>(&s->bound, value);
    atomicAdd(&s->tests, 1ull);
  }
}

// Among the pairs at the best distance, the smallest (triangle of A, triangle of B), and the smallest slots.
__device__ void winner_item(const TreeView& a, const TreeView& b, const uint2* pairs, uint32_t count, uint64_t t,
                            const double* d2, SearchState* s) {
  if (t >= 4ull * count || *reinterpret_cast<const volatile double*>(d2 + t) != read_double(&s->best)) return;
  const LeafTrianglePair q = leaf_triangle_pair(a, b, pairs, t);  // measured, so it exists
  atomicMin(&s->key, (static_cast<unsigned long long>(a.triangle[q.sa]) << 32) | b.triangle[q.sb]);
  atomicMin(&s->slots, (static_cast<unsigned long long>(q.sa) << 32) | q.sb);
}

// A final front of no more triangle pairs than a block has warps, measured and settled by block 0 alone: a warp a
// pair, whose lane 31 (no test's: static_assert below) takes the nodes' boxes' cut beside the tests, and the winner
// found in shared memory by thread 0, which writes the state's best, key, slots and tests once and tightens its
// bound. Measured with global records (leaf_pair_by_warp, then winner_item after a barrier), the winner waited for
// three round trips to memory after the tests, and the cut for its boxes before them. With the append's atomic
// issued early (expand_item) and the frame loaded a word a thread (load_frame), the clusters' frames at 1M on an
// H200 took 0.026 ms against 0.031 without these three (frames in one call), 0.029 against 0.035 (a call a frame);
// docs/benchmarks.md, stop 67. The same answer: the best is the tested values' extreme (bits of +0 for -0, as
// atomic_tighten folds them), the key and slots the smallest among the tested pairs at the best. Every thread of
// block 0 calls it.
template <bool kMax>
__device__ void leaf_pairs_in_block(const TreeView& a, const TreeView& b, const Motion& m, const uint2* pairs,
                                    uint32_t count, double slack, double given, SearchState* s) {
  constexpr unsigned kWarps = kThreads / 32;
  static_assert(kPairMinTests < 32 && kPairMaxTests < 32, "lane 31 takes no test");
  __shared__ double value[kWarps];
  __shared__ unsigned long long key[kWarps], slots[kWarps];
  __shared__ bool tested[kWarps];
  const unsigned lane = threadIdx.x & 31, w = threadIdx.x / 32, pairs_here = 4 * count;
  const unsigned long long best_before = threadIdx.x == 0 ? read_bits(&s->best) : 0;
  if (w < pairs_here) {
    const LeafTrianglePair q = leaf_triangle_pair(a, b, pairs, w);
    bool keep = false;
    if (q.exists) {  // the same in every lane
      const Corners3 ca = exact_corners(a, q.sa), cb = posed_exact_corners(b, m, q.sb);
      unsigned long long k = 0;
      if (lane == 31) {
        keep = !cut<kMax>(pair_key<kMax>(a, b, m, q.leaves.x, q.leaves.y), running_bound<kMax>(s, given), slack);
        k = (static_cast<unsigned long long>(a.triangle[q.sa]) << 32) | b.triangle[q.sb];
      }
      const double d2 = pair_d2_by_warp<kMax>(ca, cb);
      if (lane == 31) value[w] = d2, key[w] = k, slots[w] = (static_cast<unsigned long long>(q.sa) << 32) | q.sb;
    }
    if (lane == 31) tested[w] = keep;
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned long long best = best_before, tests = 0;
  for (unsigned i = 0; i < pairs_here && i < kWarps; ++i)
    if (tested[i]) {
      const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(value[i] + 0.0));
      best = kMax ? (bits > best ? bits : best) : (bits < best ? bits : best);
      ++tests;
    }
  if (tests == 0) return;
  const double best_value = __longlong_as_double(static_cast<long long>(best));
  unsigned long long best_key = ~0ull, best_slots = ~0ull;
  for (unsigned i = 0; i < pairs_here && i < kWarps; ++i)
    if (tested[i] && value[i] == best_value) {
      best_key = key[i] < best_key ? key[i] : best_key;
      best_slots = slots[i] < best_slots ? slots[i] : best_slots;
    }
  s->best = best;
  atomicMin(&s->key, best_key);
  atomicMin(&s->slots, best_slots);
  atomic_tighten<kMax>(&s->bound, best_value);
  atomicAdd(&s->tests, tests);
}

// ---- The host-driven search: a launch a step, the front's size read back between them ----

template <bool kMax>
__global__ void start_kernel(TreeView a, TreeView b, Motion m, double given, bool descent, SearchState* s,
                             uint2* front) {
  start_search<kMax>(a, b, m, given, s, front);
  if (descent) descend<kMax>(a, b, m, s);
}

template <bool kMax, bool kDops>
__global__ void __launch_bounds__(kThreads)
    expand_kernel(TreeView a, TreeView b, const uint2* in, Step st, double slack, Motion motion, SearchState* s,
                  uint2* out) {
  // The host-driven search's start wrote what was known into the state's bound.
  expand_item<kMax, kDops>(a, b, in, st, blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x, slack, motion,
                    nothing_known<kMax>(), s, &s->count, out);
}

template <bool kMax>
__global__ void leaf_pairs_kernel(TreeView a, TreeView b, Motion m, const uint2* pairs, uint32_t count, double slack,
                                  SearchState* s, double* d2) {
  leaf_pair_item<kMax>(a, b, m, pairs, count, blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x, slack,
                       nothing_known<kMax>(), s, d2);
}

__global__ void winner_kernel(TreeView a, TreeView b, const uint2* pairs, uint32_t count, const double* d2,
                              SearchState* s) {
  winner_item(a, b, pairs, count, blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x, d2, s);
}

// The adaptive depth of the next step: the largest k with 4^k · (front size) < step_pairs (at least 1), within
// what is left of each tree, and within the front's capacity (which tests lower below step_pairs).
XHD_HD Step next_step(uint64_t n, uint32_t la, uint32_t lb, const F12Shape& sa, const F12Shape& sb, uint64_t capacity,
                      uint64_t step_pairs) {
  const uint64_t most = capacity < step_pairs ? capacity : step_pairs;
  uint32_t k = 1;
  while (k < 16 && (n << (2 * (k + 1))) < most) ++k;
  const uint32_t ka = k < sa.depth - la ? k : sa.depth - la, kb = k < sb.depth - lb ? k : sb.depth - lb;
  return {la, lb, ka, kb, n << (ka + kb)};
}

// ---- The device-driven search: every step of a batch of frames in one cooperative launch, grid-wide barriers ----

// What a frame's search needs of its pose, made on the host: B's motion and the pruning slack; and for a batch's first
// frame a real distance known before it (the last query's answer under this pose; the later frames measure their
// predecessor's pair on the device).
struct FrameInput {
  Motion motion;
  double slack;
  double given;  // a batch's first frame: the host's bound (the last answer's pair under this pose), unless by_record
  // 1: the batch's first frame takes its bound from the last record of its kind on the device (the pair it left,
  // measured there under this pose), as the batch's later frames do; `given` is then not read.
  unsigned long long by_record;
};

// Frames a launch answers at most (a batch: MeshDistanceEngine::batch_size).
constexpr uint32_t kBatchFrames = 64;
// Records a kind, used in turn by the frames of every launch (search_kernel says why three).
constexpr uint32_t kRing = 3;

// A device record of a search: the state, and the loop's step counts.
struct SearchRecord {
  SearchState state;
  unsigned int counts[3];
};

// A frame answered on the device: its state at the end (best, winner, tests), the box pairs and steps it took,
// and the device's clock (ns) when it ended.
struct FrameOutput {
  SearchState state;
  unsigned long long box_pairs, end_ns;
  unsigned int iterations;
  unsigned int by_cut;  // 1: searched from the stored cut in block 0 (cut_frames)
};

constexpr int kLoopStamps = 12;

// Where a launch ended: `frames` answered, then (stopped) a front too large for the buffers in the next frame's
// search, which the host then searches in chunks from `front` (which buffer), `count` pairs at levels la, lb.
struct LoopEnd {
  unsigned long long begin_ns;  // the device's clock when the batch's search began
  unsigned long long taken_ns;  // when the resident kernel took the call (0: launched for it)
  unsigned long long box_pairs;  // the stopped frame's
  unsigned int frames, stopped, iterations, la, lb, count, front;
  unsigned int cut_outgrown;  // a round from the stored cut outgrew block 0 (the host then rests the cut a while)
  // Where XHD_CUDA_PROFILE asks, of the first frame: the device's clock (ns) when the kernel began, after the start,
  // after each step (the first kLoopStamps - 4), after the leaf pairs and at its end; 0 where none was taken.
  unsigned long long stamps[kLoopStamps];
  // Block 0's multiprocessor's clock (clock64) at the first and last stamps: its rate over the frame, which a GPU
  // mostly waiting between calls may have lowered.
  long long cycles[2];
};

// What a launch leaves for the host, read back in one copy (the end, and as many frames as it was given).
struct BatchRecord {
  LoopEnd end;
  FrameOutput frame[kBatchFrames];
};

__device__ unsigned long long device_clock_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The pair of slots a frame found (SearchState::slots) bounds the next frame's search from its start, under that
// frame's pose. Its first corners' distance is a real distance, so a bound, if a looser one, which every thread takes
// at once; where the last frame's meshes were apart it serves, and one warp measures the pair whole beside the first
// step and tightens the state's bound with it, which the later steps and the leaf pairs read. Where they touched,
// an answer of 0 cuts every pair of boxes apart and a corners' distance almost none, so every warp measures the pair
// before its first step (with the corners' bound the clusters' frames generated twice the box pairs and took longer).
// On an H200 at 1M (frames in one call), measured beside the first step the rings' frames took 0.059 ms against
// 0.068, and the tools' 0.086 against 0.096, though their corners lie 13 times the tools' distance apart
// (docs/benchmarks.md, stop 67).
__device__ double frame_bound_by_corners(const TreeView& a, const TreeView& b, const Motion& m,
                                         unsigned long long slots) {
  return first_corners_distance2(a, b, m, static_cast<uint32_t>(slots >> 32),
                                 static_cast<uint32_t>(slots & 0xffffffffu));
}

// Every lane of the warp calls it, for a pair of slots that exists.
template <bool kMax>
__device__ double frame_bound_by_warp(const TreeView& a, const TreeView& b, const Motion& m, unsigned long long slots) {
  const Corners3 ca = exact_corners(a, static_cast<uint32_t>(slots >> 32));
  const Corners3 cb = posed_exact_corners(b, m, static_cast<uint32_t>(slots & 0xffffffffu));
  return pair_d2_by_warp<kMax>(ca, cb);
}

// Whether the corners' bound may serve, from the last frame's best alone (squared): for the minimum where the last
// frame's meshes were apart, which decides it, so that where they touched the pair is measured whole without reading
// the corners first (a round trip to memory more before the first step); the maximum decides on the corners too
// (corners_bound_serves).
template <bool kMax>
__device__ bool corners_may_serve(double last) {
  return kMax || last > 0.0;
}

// Whether the corners' bound serves, where it may (squared distances): for the maximum where the corners lie at least
// half its distance apart (a lower bound far below the maximum would keep almost every pair of boxes); for the
// minimum always (corners_may_serve decided).
template <bool kMax>
__device__ bool corners_bound_serves(double corners, double last) {
  return !kMax || corners >= 0.25 * last;
}

// What every batch of a context's device loop works in beside the trees.
struct LoopBuffers {
  uint64_t capacity, step_pairs;
  SearchRecord* ring;  // kRing records a kind, the minimum's first
  uint2 *front0, *front1;
  double* d2;
  bool leaf_warps;
  // The minimum's stored cut (cut_frames): two buffers of cut_capacity pairs, which one holds it and how many, and
  // where block 0 leaves a batch to the grid.
  uint2* cut_pairs;
  struct CutState* cut;
  uint32_t cut_capacity, cut_round;
  struct CutHandoff* handoff;
};

// What one batch of one kind asks for: its frames, the record its first frame uses (slot), whether its first frame
// starts the kind's search (start) and walks down to a pair of leaves first (descent), and whether to stamp the first
// frame's phases (XHD_CUDA_PROFILE).
struct BatchAsk {
  uint32_t frames, slot;
  bool start, descent, trace;
  bool cut;  // touching frames of the minimum may search from the stored cut (cut_frames)
};

// A frame's input into shared memory, word by word past the L1 cache: a resident kernel rewrites its staged
// frames between calls, which another multiprocessor's L1 may still hold. A word a thread: the block's threads wait
// for one round trip instead of thread 0 for a word after another.
__device__ void load_frame(FrameInput& to, const FrameInput& from) {
  static_assert(sizeof(FrameInput) % sizeof(unsigned long long) == 0, "FrameInput in whole words");
  static_assert(sizeof(FrameInput) / sizeof(unsigned long long) <= kThreads, "a word a thread");
  auto* out = reinterpret_cast<unsigned long long*>(&to);
  const auto* in = reinterpret_cast<const volatile unsigned long long*>(&from);
  if (threadIdx.x < sizeof(FrameInput) / sizeof(unsigned long long)) out[threadIdx.x] = in[threadIdx.x];
}

// ---- Touching frames searched from the last one's cut, in block 0 alone ----
//
// Where the meshes touch, the answer is 0, and a search bounded by it keeps only the node pairs whose boxes overlap:
// the few pairs of subtrees that hold the contact (clusters at 1M: 76 box pairs a frame on the CPU). The grid's
// search still took three expansion steps of up to 2^18 generated pairs, each ended by a grid-wide barrier: 17-19 us
// a frame on an H200, longer than the CPU's whole search (15-31 us at 8 threads; docs/benchmarks.md, stop 68). A cut
// of the tree of node pairs (a set of pairs with every pair of triangles under exactly one of them) does not depend
// on the pose, so the cut a touching frame ends on, the pairs its boxes set apart and its leaf pairs, is where the
// next touching frame begins: block 0 tests the cut's pairs at once, expands, a level a round, only those whose boxes
// now overlap, and measures the leaf pairs. The bound is 0: known where the host measured the last answer's pair
// still touching under this pose (a batch's first frame, FrameInput::given), else assumed (a later frame, or a first
// one by_record, whose predecessor touched) and proven by a pair measured at 0; where none is, the frame goes to the
// grid. A pair cut at 0 holds no pair at distance 0 (the strict cut with its slack keeps every pair that may), so
// every pair at 0 is measured, and the answer with its key and slots is the grid's.

// The stored cut: `count` pairs in buffer `which` (0: the root pair alone; none is stored yet, or none fitted).
struct CutState {
  unsigned int which, count;
};

// Where block 0 leaves a batch to the grid: every frame before `frame` answered (the batch's frames: none left), and
// whether a round outgrew the block (then the batch's later frames stay with the grid).
struct CutHandoff {
  unsigned int frame, outgrown;
};

// Read past the L1 cache: block 0 wrote it, and another multiprocessor's L1 may hold an earlier one.
__device__ CutHandoff read_handoff(const CutHandoff* from) {
  const volatile CutHandoff* h = from;
  return {h->frame, h->outgrown};
}

__device__ uint32_t node_level(uint32_t node) { return 31 - __clz(node + 1); }

// Whether a node pair's moved boxes (and, under a rigid pose, its oriented boxes) are apart at a bound of 0:
// expand_item's cut, with every box read at once.
__device__ bool apart_at_zero(const TreeView& a, const TreeView& b, const Motion& m, double slack, uint2 p) {
  const bool oriented = m.rigid && a.oriented != nullptr;
  const Box box_a = a.boxes[p.x], box_b = b.boxes[p.y];
  OrientedBox oriented_a{}, oriented_b{};
  if (oriented) oriented_a = a.oriented[p.x], oriented_b = b.oriented[p.y];
  const double key = centred_gap2(centred(box_a), m.boxes.moved(box_b));
  if (cut<false>(key, 0.0, slack)) return true;
  if (!oriented) return false;
  const MovedOrientedBox ob = move_oriented_box(oriented_b, m.boxes.m, m.boxes.eps);
  return cut<false>(fmax(key, oriented_gap2(oriented_a, ob)), 0.0, slack);
}

// A batch's start on its record (rank 0 writes it): the device's clock, returned too, and where the profile asks,
// the stamps cleared from it and block 0's clock.
__device__ unsigned long long start_batch_record(LoopEnd* end, bool trace) {
  const unsigned long long begin = device_clock_ns();
  end->begin_ns = begin;
  if (!trace) return begin;
  for (int i = 0; i < kLoopStamps; ++i) end->stamps[i] = i == 0 ? begin : 0;
  end->cycles[0] = clock64();
  return begin;
}

// The host's answer for frame f (rank 0 writes it): the state at the end, the pairs and steps (rounds) it took.
// `copy`, if given, gets the same (resident_kernel's answer words).
__device__ void write_frame_output(BatchRecord* batch, uint32_t f, const SearchState& state, uint64_t box_pairs,
                                   uint32_t iterations, bool by_cut, FrameOutput* copy = nullptr) {
  FrameOutput out{};
  out.state = state;
  out.box_pairs = box_pairs, out.iterations = iterations, out.by_cut = by_cut;
  out.end_ns = device_clock_ns();
  batch->frame[f] = out;
  if (copy != nullptr) *copy = out;
}

// A state as other blocks' atomics left it, read past the L1 cache.
__device__ SearchState read_state(const SearchState* s) {
  SearchState state{};
  state.bound = read_bits(&s->bound), state.best = read_bits(&s->best), state.key = read_bits(&s->key);
  state.tests = read_bits(&s->tests), state.slots = read_bits(&s->slots);
  return state;
}

// Whether a record's frame ended touching: a pair measured, at 0. A frame after it is searched from the cut.
__device__ bool record_touched(const SearchState* s) {
  return read_bits(&s->slots) != ~0ull && read_double(&s->best) == 0.0;
}

// One pair of a round: apart or a leaf pair, it joins the next cut (a leaf pair that is not apart goes to the leaf
// list too, to be measured); else its children go to the round's list (`listed`, counted in *count). Sets *outgrown
// where a list would hold more than it may.
__device__ void cut_round_pair(const TreeView& a, const TreeView& b, const FrameInput& in, const LoopBuffers& buf,
                               uint2 p, uint2* next_cut, unsigned int* kept, uint2* leaf_list, unsigned int* leaves,
                               uint2* listed, unsigned int* count, unsigned int* outgrown) {
  const uint32_t la = node_level(p.x), lb = node_level(p.y);
  const bool leaf = la == a.shape.depth && lb == b.shape.depth;
  const bool apart = apart_at_zero(a, b, in.motion, in.slack, p);
  if (apart || leaf) {
    const unsigned at = atomicAdd(kept, 1u);
    if (at < buf.cut_capacity) next_cut[at] = p;
  }
  if (apart) return;
  if (leaf) {
    const unsigned at = atomicAdd(leaves, 1u);
    if (at < kCutLeaves) leaf_list[at] = p;
    else *outgrown = 1;
    return;
  }
  // Both nodes split where they can, as the grid's steps and the descent split them.
  const bool split_a = la < a.shape.depth, split_b = lb < b.shape.depth;
  const unsigned k = (split_a ? 2u : 1u) * (split_b ? 2u : 1u);
  const unsigned at = atomicAdd(count, k);
  if (at + k > buf.cut_round) {
    *outgrown = 1;
    return;
  }
  for (unsigned c = 0; c < k; ++c) {
    const unsigned i = split_b ? c >> 1 : c, j = split_b ? c & 1 : 0;
    listed[at + c] = make_uint2(split_a ? 2 * p.x + 1 + i : p.x, split_b ? 2 * p.y + 1 + j : p.y);
  }
}

// What cut_leaf_pairs wrote into the state, for block 0 to read after a barrier without a round trip to memory.
struct LeafOutcome {
  unsigned long long best, key, slots, tests;  // the best's bits (+inf's where nothing was tested)
};

// The tests of a triangle pair (triangle_pair_min_test) in groups of like code: 0-5 an edge crossing the other
// triangle, 6-11 a corner's nearest point on the other, 12-20 two edges' nearest points.
constexpr int kTestGroups = 3;
__device__ int test_group_first(int g) { return g == 0 ? 0 : g == 1 ? 6 : g == 2 ? 12 : kPairMinTests; }

// A pass of cut_leaf_pairs measures this many triangle pairs (two leaf pairs' worth), each of their tests in a thread
// of its own, every group's threads in warps of their own: 6 x 8 threads in warps 0-1, 6 x 8 in warps 2-3, 9 x 8 in
// warps 4-6.
constexpr unsigned kPassPairs = 8;
__device__ unsigned group_warp_first(int g) { return g == 0 ? 0u : g == 1 ? 2u : g == 2 ? 4u : 7u; }
static_assert(7 * 32 <= kThreads, "a pass's seats fit in a block");

// Which test of which of a pass's triangle pairs thread t runs (seated false: none).
struct TestSeat {
  int test;
  unsigned pair;
  bool seated;
};
__device__ TestSeat test_seat(unsigned t) {
  const unsigned w = t / 32;
  const int g = w < group_warp_first(1) ? 0 : w < group_warp_first(2) ? 1 : w < group_warp_first(3) ? 2 : 3;
  if (g == kTestGroups) return {0, 0, false};
  const unsigned k = t - 32 * group_warp_first(g);
  const unsigned size = static_cast<unsigned>(test_group_first(g + 1) - test_group_first(g));
  return {test_group_first(g) + static_cast<int>(k % size), k / size, k < size * kPassPairs};
}

// The leaf pairs of a frame from the cut (cut_frames), measured and settled by block 0 alone: every test of up to
// kPassPairs triangle pairs at once, a thread each (test_seat), each value folded into its pair's least in shared
// memory; then warp 0 finds the best and the smallest key and slots at it, and thread 0 writes the state and
// *outcome. A touching clusters frame's two leaf pairs (8 triangle pairs) are one pass: one round trip for the
// corners, then the slowest test. A warp a kind of test, each warp's units in turn, took 4.5-4.7 us of a 7 us frame
// there (three units a warp, each waiting on its own corners; stop 69). The least of the 21 is triangle_pair_min's
// d2 to the bit (triangle_pair_min_test), so the state is the grid's. No pair is cut by its leaves' boxes: the list
// holds only pairs not apart at the frame's bound of 0 (cut_round_pair), which those boxes would keep. The state
// must be as clear_state leaves it. Every thread of block 0 calls it, with at most kCutLeaves leaf pairs.
// XHD_CUDA_PROFILE (`stamps`, else null): thread 0 stamps the first barrier, its own tests' end, the second barrier
// and warp 0's reduction in stamps[6-9] (cut_frames leaves them free where the rounds do).
__device__ void cut_leaf_pairs(const TreeView& a, const TreeView& b, const Motion& m, const uint2* leaves,
                               uint32_t count, SearchState* s, LeafOutcome* outcome, unsigned long long* stamps) {
  constexpr unsigned long long kNone = 0x7ff0000000000000ull;  // +inf's bits: no value yet
  __shared__ unsigned long long d2_of[4 * kCutLeaves], key_of[4 * kCutLeaves], slots_of[4 * kCutLeaves];
  const unsigned lane = threadIdx.x & 31, w = threadIdx.x / 32, pairs = 4 * count;
  for (unsigned i = threadIdx.x; i < pairs; i += kThreads) d2_of[i] = kNone, key_of[i] = slots_of[i] = ~0ull;
  __syncthreads();
  if (stamps != nullptr) stamps[6] = device_clock_ns();
  const TestSeat seat = test_seat(threadIdx.x);
  for (unsigned base = 0; base < pairs; base += kPassPairs) {
    const unsigned i = base + seat.pair;
    if (!seat.seated || i >= pairs) continue;
    const LeafTrianglePair q = leaf_triangle_pair(a, b, leaves, i);
    if (!q.exists) continue;
    // The key's loads beside the corners', not after the test.
    const unsigned long long key = seat.test == 0 ? (static_cast<unsigned long long>(a.triangle[q.sa]) << 32) |
                                                        b.triangle[q.sb]
                                                  : 0ull;
    const Corners3 ca = exact_corners(a, q.sa), cb = posed_exact_corners(b, m, q.sb);
    const double value = triangle_pair_min_test(ca, cb, seat.test);
    atomicMin(&d2_of[i], static_cast<unsigned long long>(__double_as_longlong(value + 0.0)));
    if (seat.test == 0) key_of[i] = key, slots_of[i] = (static_cast<unsigned long long>(q.sa) << 32) | q.sb;
  }
  if (stamps != nullptr) stamps[7] = device_clock_ns();
  __syncthreads();
  if (stamps != nullptr) stamps[8] = device_clock_ns();
  if (w != 0) return;
  // Warp 0: each lane its pairs', then a butterfly keeping the lesser best, and at equal bests the lesser key and
  // slots (a pair exists where its slots were written).
  unsigned long long best = kNone, key = ~0ull, slots = ~0ull, tests = 0;
  for (unsigned i = lane; i < pairs; i += 32) {
    if (slots_of[i] == ~0ull) continue;
    ++tests;
    const unsigned long long v = d2_of[i];
    if (v < best) best = v, key = key_of[i], slots = slots_of[i];
    else if (v == best) key = key_of[i] < key ? key_of[i] : key, slots = slots_of[i] < slots ? slots_of[i] : slots;
  }
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long other = __shfl_xor_sync(0xffffffffu, best, o);
    const unsigned long long other_key = __shfl_xor_sync(0xffffffffu, key, o);
    const unsigned long long other_slots = __shfl_xor_sync(0xffffffffu, slots, o);
    tests += __shfl_xor_sync(0xffffffffu, tests, o);
    if (other < best) best = other, key = other_key, slots = other_slots;
    else if (other == best) key = other_key < key ? other_key : key, slots = other_slots < slots ? other_slots : slots;
  }
  if (lane != 0) return;
  if (stamps != nullptr) stamps[9] = device_clock_ns();
  *outcome = {best, key, slots, tests};
  if (tests == 0) return;
  s->best = s->bound = best, s->key = key, s->slots = slots, s->tests = tests;
}

// Touching frames from f on, in block 0 alone (every thread of it calls it; `in` is its copy of the frame's input,
// frame f's already), for as long as each ends with a pair measured at 0; the handoff says where the grid goes on.
// Round 0 tests the stored cut, each later round the children the round before listed (block 0's shared lists, at
// most buf.cut_round pairs a round). A round or leaf list outgrowing its room leaves the frame and the batch's later
// frames to the grid, and the root as the stored cut; a cut outgrowing its buffer is not stored (the root is, in its
// place). Everything a frame reads twice stays in shared memory (the stored cut's place, the leaf pairs, the best):
// in one block a frame waits on its chain of round trips to memory, not on its arithmetic.
__device__ void cut_frames(const TreeView& a, const TreeView& b, const FrameInput& first, const FrameInput* later,
                           const BatchAsk& ask, const LoopBuffers& buf, BatchRecord* batch, uint32_t f,
                           FrameInput& in, FrameOutput* first_output = nullptr) {
  __shared__ uint2 listed[2][kCutRound], leaf_list[kCutLeaves];
  __shared__ unsigned int counts[3], kept, leaves, outgrown;
  __shared__ LeafOutcome measured;
  __shared__ CutState from;
  SearchRecord* ring = buf.ring;  // the minimum's records
  const unsigned t = threadIdx.x;
  const uint32_t begin = f;
  // XHD_CUDA_PROFILE: the batch's first frame's phases (search_batch's stamps: the start, each round, the leaf
  // pairs, the end).
  unsigned long long* stamps = ask.trace && t == 0 && begin == 0 ? batch->end.stamps : nullptr;
  if (t == 0) {
    const volatile CutState* stored = buf.cut;
    from.which = stored->which, from.count = stored->count;
  }
  for (; f < ask.frames; ++f) {
    if (f != begin) {
      __syncthreads();  // every thread done with the last frame's input and counts
      load_frame(in, f == 0 ? first : later[f - 1]);
    }
    SearchState* s = &ring[(ask.slot + f) % kRing].state;
    if (t == 0) {
      counts[0] = counts[1] = counts[2] = 0, kept = leaves = outgrown = 0;
      SearchRecord* next = ring + (ask.slot + f + 1) % kRing;  // search_batch says why it is cleared as f begins
      clear_state<false>(&next->state);
      next->counts[0] = next->counts[1] = next->counts[2] = 0;
    }
    __syncthreads();
    const uint2* stored = buf.cut_pairs + static_cast<uint64_t>(from.which) * buf.cut_capacity;
    uint2* next_cut = buf.cut_pairs + static_cast<uint64_t>(from.which ^ 1) * buf.cut_capacity;
    uint32_t n = from.count == 0 ? 1 : from.count, round = 0;
    uint64_t box_pairs = 0;
    if (stamps != nullptr && f == 0) stamps[1] = device_clock_ns();
    for (;; ++round) {
      // Three counts in turn, as search_batch's steps use them: the one cleared here was read two barriers ago.
      unsigned int* count = counts + round % 3;
      if (t == 0) counts[(round + 1) % 3] = 0;
      for (uint32_t i = t; i < n; i += kThreads) {
        const uint2 p = round > 0             ? listed[(round - 1) & 1][i]
                        : from.count == 0 ? make_uint2(0, 0)
                                          : __ldcg(stored + i);
        cut_round_pair(a, b, in, buf, p, next_cut, &kept, leaf_list, &leaves, listed[round & 1], count, &outgrown);
      }
      __syncthreads();
      if (stamps != nullptr && f == 0 && round < kLoopStamps - 4) stamps[2 + round] = device_clock_ns();
      box_pairs += n;
      n = *reinterpret_cast<volatile unsigned int*>(count);
      if (*reinterpret_cast<volatile unsigned int*>(&outgrown) != 0 || n == 0) break;
    }
    const bool out = *reinterpret_cast<volatile unsigned int*>(&outgrown) != 0;
    const uint32_t leaf_pairs = *reinterpret_cast<volatile unsigned int*>(&leaves);
    bool touches = false;  // the same in every thread
    if (!out && leaf_pairs > 0) {
      cut_leaf_pairs(a, b, in.motion, leaf_list, leaf_pairs, s, &measured,
                     stamps != nullptr && f == 0 && round < 4 ? stamps : nullptr);
      __syncthreads();
      touches = measured.tests != 0 && measured.best == 0ull;  // +0's bits
      if (stamps != nullptr && f == 0) stamps[kLoopStamps - 2] = device_clock_ns();
    }
    if (t == 0) {
      const unsigned int cut_pairs = *reinterpret_cast<volatile unsigned int*>(&kept);
      if (!out && cut_pairs <= buf.cut_capacity) from.which ^= 1, from.count = cut_pairs;
      else from.count = 0;
      buf.cut->which = from.which, buf.cut->count = from.count;
      if (!touches) {
        clear_state<false>(s);  // the grid searches the frame from its start
        buf.handoff->frame = f, buf.handoff->outgrown = out;
      } else {
        // The state as cut_leaf_pairs left it, from the cleared one: bound and best the best, the rest its own.
        SearchState state{};
        state.bound = state.best = measured.best, state.key = measured.key, state.slots = measured.slots;
        state.tests = measured.tests;
        write_frame_output(batch, f, state, box_pairs, round + 1, true, f == 0 ? first_output : nullptr);
        if (stamps != nullptr && f == 0)
          stamps[kLoopStamps - 1] = batch->frame[f].end_ns, batch->end.cycles[1] = clock64();
      }
    }
    if (!touches) return;
  }
  if (t == 0) buf.handoff->frame = ask.frames, buf.handoff->outgrown = 0;
}

// The whole search of a batch of frames, in order: for each, where asked (the first frame only: the first search of
// its kind, and the descent) the start, then the expansion steps, the leaf pairs and the winner. Every thread runs
// every loop the same number of times (items past the end take part idle), so the barriers and the warps'
// reductions see every thread. Each step appends to counts[step % 3]: the one after it is cleared during the step
// (every thread read it two barriers ago), so no thread can clear a count another is still reading. Frame f's
// record is ring[(slot + f) % 3], which must be as clear_state leaves it (counts 0) where the frame skips the start;
// frame f clears the record of frame f + 1 as it begins, which frame f - 2 used: the last reads of that one, the
// bound of frame f - 1 measured from its pair, were a barrier ago (with two records, frame f would clear the one
// frame f - 1's bound is still being read from). The first step's front is the root pair, which no one writes.
// Frame 0's input is `first`, the others' `later`; each block keeps the frame's in shared memory. True (in every
// thread) where a frame's front outgrew the buffers and the batch stopped there (LoopEnd says where).
// `early`: block 0 searched the batch's first touching frames before the barrier that handed the call to the other
// blocks (resident_kernel), and the handoff says where the grid goes on; where it answered every frame, it posted them.
template <bool kMax, bool kDops>
__device__ bool search_batch(cooperative_groups::grid_group& grid, const TreeView& a, const TreeView& b,
                             const FrameInput& first, const FrameInput* later, const BatchAsk& ask,
                             const LoopBuffers& buf, BatchRecord* batch, bool early = false) {
  __shared__ FrameInput in;
  const uint64_t rank = grid.thread_rank(), size = grid.size();
  SearchRecord* ring = buf.ring + kRing * kMax;
  LoopEnd* end = &batch->end;
  // Block 0 began the batch, its record's start included, where it ran early.
  const bool stamping = ask.trace && rank == 0 && !early;
  if (rank == 0 && !early) start_batch_record(end, ask.trace);
  uint2* fronts[2] = {buf.front0, buf.front1};
  double given = nothing_known<kMax>();
  const uint32_t slot = ask.slot;
  // Not with the DOPs' or hulls' bounds (measuring aids of the grid's steps). The same in every thread.
  bool cut_allowed = !kMax && !kDops && ask.cut;
  uint32_t resume = 0;  // the first frame, which goes to the grid where block 0 ran early
  if (early) {
    const CutHandoff h = read_handoff(buf.handoff);
    if (h.frame >= ask.frames) {
      // Every frame answered and posted. One barrier still, after the host has its answers: every block has read
      // the call's word and the handoff before block 0 takes the next call, which overwrites both.
      grid.sync();
      return false;
    }
    resume = h.frame;
    cut_allowed = cut_allowed && h.outgrown == 0;
    if (rank == 0) end->cut_outgrown = h.outgrown;
  } else if (rank == 0) {
    end->cut_outgrown = 0;
  }
  for (uint32_t f = resume; f < ask.frames; ++f) {
    load_frame(in, f == 0 ? first : later[f - 1]);
    __syncthreads();
    // A touching frame (the host's measure of the last answer's pair at 0 under this pose, or the record before's
    // best 0: a predecessor that touched) begins in block 0 from the stored cut (cut_frames), the other blocks
    // waiting here until it leaves the rest to them. The record before: a batch's later frames', and its first's
    // where by_record (the last batch's last frame's).
    const auto record_before = [&]() -> const SearchState* {
      return f > 0 || in.by_record != 0 ? &ring[(slot + f + kRing - 1) % kRing].state : nullptr;
    };
    const SearchState* last = record_before();
    if (cut_allowed && !(early && f == resume) && !(f == 0 && ask.start) &&
        (last == nullptr ? in.given == 0.0 : record_touched(last))) {
      if (blockIdx.x == 0) cut_frames(a, b, first, later, ask, buf, batch, f, in);
      grid.sync();
      const CutHandoff h = read_handoff(buf.handoff);
      if (h.frame >= ask.frames) break;
      if (h.outgrown != 0) {
        cut_allowed = false;
        if (rank == 0) end->cut_outgrown = 1;
      }
      f = h.frame;
      load_frame(in, f == 0 ? first : later[f - 1]);
      __syncthreads();
      last = record_before();
    }
    SearchRecord* record = ring + (slot + f) % kRing;
    SearchState* s = &record->state;
    unsigned int* counts = record->counts;
    const unsigned long long last_slots = last == nullptr ? ~0ull : read_bits(&last->slots);
    bool corners_serve = false;
    if (last == nullptr) {
      given = in.given;
    } else if (last_slots == ~0ull) {
      given = nothing_known<kMax>();
    } else {
      const double last_best = read_double(&last->best);
      if (corners_may_serve<kMax>(last_best)) {
        given = frame_bound_by_corners(a, b, in.motion, last_slots);
        corners_serve = corners_bound_serves<kMax>(given, last_best);
      }
      if (!corners_serve) given = frame_bound_by_warp<kMax>(a, b, in.motion, last_slots);
    }
    // The grid's last warp, idle in a first step that generates fewer pairs than the grid has threads.
    const bool measures_last_pair = corners_serve && rank / 32 == size / 32 - 1;
    if (rank == 0) {
      SearchRecord* next = ring + (slot + f + 1) % kRing;
      clear_state<kMax>(&next->state);
      next->counts[0] = next->counts[1] = next->counts[2] = 0;
    }
    if (f == 0 && ask.start) {
      if (rank == 0) {
        start_search<kMax>(a, b, in.motion, given, s, buf.front0);
        if (ask.descent) descend<kMax>(a, b, in.motion, s);
        counts[0] = counts[1] = counts[2] = 0;
      }
      grid.sync();
    }
    if (stamping && f == 0) end->stamps[1] = device_clock_ns();
    uint64_t n = 1, box_pairs = 0;
    uint32_t la = 0, lb = 0, at = 0, step = 0;
    while (la < a.shape.depth || lb < b.shape.depth) {
      const Step st = next_step(n, la, lb, a.shape, b.shape, buf.capacity, buf.step_pairs);
      if (st.generated > buf.capacity) break;  // the same decision in every thread
      unsigned int* count = counts + step % 3;
      if (rank == 0) counts[(step + 1) % 3] = 0;
      if (step == 0 && measures_last_pair)
        atomic_tighten<kMax>(&s->bound, frame_bound_by_warp<kMax>(a, b, in.motion, last_slots));
      for (uint64_t first_item = 0; first_item < st.generated; first_item += size)
        expand_item<kMax, kDops>(a, b, fronts[at], st, first_item + rank, in.slack, in.motion, given, s, count,
                                 fronts[at ^ 1]);
      grid.sync();
      if (stamping && f == 0 && step < kLoopStamps - 4) end->stamps[2 + step] = device_clock_ns();
      n = *reinterpret_cast<volatile unsigned int*>(count);
      box_pairs += st.generated;
      ++step;
      at ^= 1;
      la += st.ka;
      lb += st.kb;
      if (n == 0) break;
    }
    if (n > 0 && (la < a.shape.depth || lb < b.shape.depth)) {
      // A front too large for the buffers: the host goes on from here, its chunks' kernels reading the bound from
      // the state alone. The same decision in every thread.
      if (rank == 0) {
        if (given != nothing_known<kMax>()) atomic_tighten<kMax>(&s->bound, given);
        end->frames = f, end->stopped = 1;
        end->box_pairs = box_pairs, end->iterations = step;
        end->la = la, end->lb = lb, end->count = static_cast<unsigned int>(n), end->front = at;
      }
      return true;
    }
    // A final front whose triangle pairs are no more than a block's warps is measured by block 0 alone, a warp a
    // pair, and its winner found there too: block barriers in place of two grid-wide ones, which cost a small
    // search (a call a frame) about as much as its leaf pairs' tests. The batch's last frame then needs no
    // grid-wide barrier at all: the other blocks' work ended at the last step's, and rank 0, which writes the
    // answer, is in block 0.
    const bool in_block = n > 0 && buf.leaf_warps && 4 * n <= kThreads / 32;
    if (in_block) {
      if (blockIdx.x == 0) {
        leaf_pairs_in_block<kMax>(a, b, in.motion, fronts[at], static_cast<uint32_t>(n), in.slack, given, s);
        if (stamping && f == 0) end->stamps[kLoopStamps - 2] = device_clock_ns();
        __syncthreads();
      }
    } else if (n > 0) {
      if (buf.leaf_warps && 4 * n <= size / 32)
        leaf_pair_by_warp<kMax>(a, b, in.motion, fronts[at], static_cast<uint32_t>(n), rank / 32, in.slack, given, s,
                                buf.d2);
      else
        for (uint64_t first_item = 0; first_item < 4 * n; first_item += size)
          leaf_pair_item<kMax>(a, b, in.motion, fronts[at], static_cast<uint32_t>(n), first_item + rank, in.slack,
                               given, s, buf.d2);
      grid.sync();
      if (stamping && f == 0) end->stamps[kLoopStamps - 2] = device_clock_ns();
      for (uint64_t first_item = 0; first_item < 4 * n; first_item += size)
        winner_item(a, b, fronts[at], static_cast<uint32_t>(n), first_item + rank, buf.d2, s);
    }
    // The winner settled: the host's answer, and the next frame's bound (which every block reads).
    if (!(f + 1 == ask.frames && (in_block || n == 0))) grid.sync();
    if (rank == 0) {
      write_frame_output(batch, f, read_state(s), box_pairs, step, false);
      if (stamping && f == 0) end->stamps[kLoopStamps - 1] = batch->frame[f].end_ns, end->cycles[1] = clock64();
    }
  }
  if (rank == 0) end->frames = ask.frames, end->stopped = 0;
  return false;
}

// A batch of one kind in one cooperative launch. Frame 0's input comes as an argument (a single query copies
// nothing up), the others' from `later`.
template <bool kMax, bool kDops>
__global__ void __launch_bounds__(kThreads)
    search_kernel(TreeView a, TreeView b, FrameInput first, const FrameInput* later, BatchAsk ask, LoopBuffers buf,
                  BatchRecord* batch) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  if (grid.thread_rank() == 0) batch->end.taken_ns = 0;
  search_batch<kMax, kDops>(grid, a, b, first, later, ask, buf, batch);
}

// Warp 0 of a resident kernel's block 0 waits for a call (resident_loop.h) and returns its word, or one of kind
// kResidentLeave where the kernel is to leave: told to, asked to by another context, or idle for idle_ns. Each look
// reads the call's word and its payload, the first frame (resident_call.h), at once: a read of host memory is a
// round trip over the bus (about 1 us), and the frame read after the word took another (1.6 us of a touching call,
// stop 70). A look that sees a new call but a payload word of the call before (the host still writing) looks again.
// The first frame's 32-bit words go to `first`. A call is seen on average half a look after it is posted plus the
// look's way back: the eviction flag, another round trip, is read only every kEvictLooks looks.
constexpr unsigned kEvictLooks = 16;
constexpr unsigned kFrameHalves = sizeof(FrameInput) / sizeof(unsigned int);
constexpr unsigned kPayloadLooks = (kFrameHalves + 31) / 32;  // words a lane reads a look
static_assert(sizeof(FrameInput) % sizeof(unsigned int) == 0 && kFrameHalves <= kResidentPayloadWords,
              "the first frame fits the mailbox's payload");

__device__ unsigned long long take_call(ResidentMailbox* box, ResidentState* state, unsigned long long idle_ns,
                                        unsigned int* first) {
  const unsigned lane = threadIdx.x;
  const unsigned long long since = device_clock_ns(), taken = state->taken;
  for (unsigned looks = 1;; ++looks) {
    // Every load issued before any is used: one round trip a look. The word is read by every lane (one request).
    const unsigned long long word = load_relaxed_system(&box->call);
    unsigned long long part[kPayloadLooks];
#pragma unroll
    for (unsigned k = 0; k < kPayloadLooks; ++k) {
      const unsigned i = lane + 32 * k;
      part[k] = i < kFrameHalves ? load_relaxed_system(&box->payload[i]) : 0;
    }
    const ResidentCall c = unpack_call(__shfl_sync(0xffffffffu, word, 0));
    if (c.number != taken) {
      bool whole = true;
#pragma unroll
      for (unsigned k = 0; k < kPayloadLooks; ++k)
        whole = whole && (lane + 32 * k >= kFrameHalves || payload_of_call(part[k], c.number));
      if (c.kind == kResidentLeave || __all_sync(0xffffffffu, whole)) {
#pragma unroll
        for (unsigned k = 0; k < kPayloadLooks; ++k)
          if (lane + 32 * k < kFrameHalves) first[lane + 32 * k] = payload_data(part[k]);
        // Frames after the first are read from the host's pinned inputs, written before the word: they are read
        // after this fence, which orders them after the word's (relaxed) read, as an acquire would.
        if (lane == 0) {
          state->taken = c.number;
          if (c.frames > 1) __threadfence_system();
        }
        return pack_call(c);
      }
    }
    if (looks % kEvictLooks == 0) {
      bool leave = false;
      if (lane == 0) leave = load_relaxed_system(&box->evict) != 0 || device_clock_ns() - since > idle_ns;
      if (__shfl_sync(0xffffffffu, leave, 0)) {
        ResidentCall out{};
        out.kind = kResidentLeave;
        return pack_call(out);
      }
    }
  }
}

// The batch a resident call asks for.
__device__ BatchAsk batch_ask(const ResidentCall& c) { return {c.frames, c.slot, c.start, c.descent, c.trace, c.cut}; }

// A bit of the resident state's word beside the call's (resident_call.h leaves bits 60-63 free): block 0 began the
// call early (resident_kernel).
constexpr unsigned long long kResidentEarly = 1ull << 60;

// A single frame answered early goes back as answer words (resident_call.h): the end's head (its fields before the
// profile's stamps) and the frame's output, 32 bits a word, a word a lane of warp 0.
constexpr size_t kAnswerEndBytes = offsetof(LoopEnd, stamps);
static_assert(kAnswerEndBytes % sizeof(unsigned int) == 0 && sizeof(FrameOutput) % sizeof(unsigned int) == 0 &&
                  (kAnswerEndBytes + sizeof(FrameOutput)) / sizeof(unsigned int) == kResidentAnswerWords,
              "the end's head and a frame's output fill the answer words");

__device__ void post_answer_words(ResidentMailbox* box, unsigned long long number, const unsigned int* halves) {
  asm volatile("st.relaxed.sys.u64 [%0], %1;" ::"l"(&box->answer[threadIdx.x]),
               "l"(payload_word(number, halves[threadIdx.x]))
               : "memory");
}

// The device loop staying on the GPU between a context's calls (resident_loop.h): each call a batch of one kind,
// whose first frame comes with the call (take_call) and whose later frames block 0 copies from the host's pinned
// inputs (`frames`, from the call's first) to `staged`, and whose outputs go straight to the host's pinned `batch`
// (one record a kind); the call's number then to box->done. A single touching frame answered early (below) goes
// back as answer words (resident_call.h) as well, before that release, which costs the device 0.6 us.
// Leaves after answering a call whose batch stopped (the host's chunks go on from there on the same stream).
template <bool kDops>
__global__ void __launch_bounds__(kThreads)
    resident_kernel(TreeView a, TreeView b, ResidentMailbox* box, const FrameInput* frames, FrameInput* staged,
                    ResidentState* state, unsigned long long idle_ns, LoopBuffers buf, BatchRecord* batch) {
  __shared__ unsigned long long word;
  __shared__ FrameInput early_in;
  __shared__ unsigned int touched_of[kRing];  // the minimum's records: a pair at 0
  // A touching single frame answered early: the end's head, the frame's output, and the two as answer words.
  __shared__ LoopEnd early_end;
  __shared__ FrameOutput early_out;
  __shared__ unsigned int answer_halves[kResidentAnswerWords];
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (;;) {
    bool posted = false;  // thread 0 of block 0: the call's answers posted before the barrier
    if (blockIdx.x == 0) {
      // The first frame comes with the call into shared memory (early_in), as load_frame would read it back.
      if (threadIdx.x < 32) {
        const unsigned long long taken = take_call(box, state, idle_ns, reinterpret_cast<unsigned int*>(&early_in));
        if (threadIdx.x == 0) {
          word = taken;
          state->current = taken;
          const ResidentCall c = unpack_call(taken);
          if (c.kind != kResidentLeave) early_end.taken_ns = batch[c.kind].end.taken_ns = device_clock_ns();
        }
      } else if (threadIdx.x >= kThreads - kRing) {
        // The minimum's records' outcomes read while warp 0 waits: final since the last call's end (every block's
        // writes to them came before a grid-wide barrier, or were block 0's own), and unchanged until the next
        // call of the minimum. The call's slot then says which is the last.
        const unsigned r = threadIdx.x - (kThreads - kRing);
        touched_of[r] = record_touched(&buf.ring[r].state);
      }
      __syncthreads();
      const ResidentCall c = unpack_call(word);
      constexpr unsigned kWords = sizeof(FrameInput) / sizeof(unsigned long long);
      if (c.kind != kResidentLeave) {
        // The first frame staged for the other blocks, and the later ones copied from the host's pinned inputs.
        const auto* first = reinterpret_cast<const unsigned long long*>(&early_in);
        const auto* from = reinterpret_cast<const volatile unsigned long long*>(frames + c.first);
        auto* to = reinterpret_cast<volatile unsigned long long*>(staged);
        for (unsigned i = threadIdx.x; i < c.frames * kWords; i += blockDim.x) to[i] = i < kWords ? first[i] : from[i];
      }
      // A call whose first frame touches (the last answer's pair at 0 under its pose, or by_record, the last
      // record's pair at 0): block 0 searches it from the stored cut before the barrier that hands the call to the
      // other blocks, and where it answers every frame, posts them before that barrier too (two grid-wide barriers
      // fewer between the call and its answer). The state's word says so to every block (kResidentEarly).
      if (!kDops && c.kind == 0 && c.cut && !c.start) {
        if (early_in.by_record != 0 ? touched_of[(c.slot + kRing - 1) % kRing] != 0 : early_in.given == 0.0) {
          __syncthreads();  // the staged frames, which cut_frames reads back, written by this block's threads
          LoopEnd* end = &batch->end;
          if (threadIdx.x == 0) early_end.begin_ns = start_batch_record(end, c.trace), end->cut_outgrown = 0;
          cut_frames(a, b, staged[0], staged + 1, batch_ask(c), buf, batch, 0, early_in, &early_out);
          if (threadIdx.x < 32) {
            bool answered = false;
            if (threadIdx.x == 0) {
              state->current = word | kResidentEarly;
              answered = buf.handoff->frame >= c.frames;  // written by this thread
              if (answered) end->frames = c.frames, end->stopped = 0;
              if (answered && c.frames == 1) {
                // A single frame's answer as words too, which the host takes without waiting for the release below.
                early_end.box_pairs = 0, early_end.frames = 1;
                early_end.stopped = early_end.iterations = early_end.la = early_end.lb = 0;
                early_end.count = early_end.front = early_end.cut_outgrown = 0;
                std::memcpy(answer_halves, &early_end, kAnswerEndBytes);
                std::memcpy(answer_halves + kAnswerEndBytes / sizeof(unsigned int), &early_out, sizeof(FrameOutput));
              }
            }
            if (__shfl_sync(0xffffffffu, answered, 0)) {
              __syncwarp();
              if (c.frames == 1) post_answer_words(box, c.number, answer_halves);
              __syncwarp();
              if (threadIdx.x == 0) store_release_system(&box->done, c.number), posted = true;
            }
          }
        }
      }
    }
    grid.sync();
    const unsigned long long current = *reinterpret_cast<volatile unsigned long long*>(&state->current);
    const ResidentCall c = unpack_call(current);
    if (c.kind == kResidentLeave) return;
    const BatchAsk ask = batch_ask(c);
    const bool early = (current & kResidentEarly) != 0;
    const bool stopped = c.kind != 0
                             ? search_batch<true, false>(grid, a, b, staged[0], staged + 1, ask, buf, batch + 1)
                             : search_batch<false, kDops>(grid, a, b, staged[0], staged + 1, ask, buf, batch, early);
    // The outputs (written by this same thread) before the number: a release at the system's scope.
    if (grid.thread_rank() == 0 && !posted) store_release_system(&box->done, c.number);
    if (stopped) return;
  }
}

template <typename T>
DeviceArray<T> upload(DeviceMemory& memory, const T* host, size_t count, cudaStream_t stream) {
  DeviceArray<T> out(memory, count);
  if (count > 0) XHD_CUDA(cudaMemcpyAsync(out.get(), host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
  return out;
}

// What each step of a build counts on the progress bar, per triangle: roughly its share of the time (the
// host's ordering and oriented boxes cost as on the CPU backend; the uploads and refit far less).
constexpr uint64_t kOrderWeight = 2, kOrientedWeight = 6, kUploadWeight = 1;

// A triangle pair's points measured on the host while the device searches (F12GpuDistance::device_frames).
struct PairAhead {
  bool valid;
  TrianglePair pair;
  PairPoints points;
};

class F12GpuDistance final : public MeshDistanceEngine {
 public:
  F12GpuDistance(const xhd_mesh& a, const xhd_mesh& b, const xhd_distance_options& o, const Progress& progress)
      : which_(o.which),
        exact_(a.xyz64 != nullptr || b.xyz64 != nullptr),
        memory_(device_memory_budget(o.device), stream_.get()),
        a_input_(a, resolve_thread_count(o.threads)),
        b_input_(b, resolve_thread_count(o.threads)) {
    const int threads = resolve_thread_count(o.threads);
    const bool min = (o.which & XHD_DISTANCE_MIN) != 0;
    progress.set_total((kOrderWeight + (min ? kOrientedWeight : 0) + kUploadWeight) *
                       (a.triangle_count + b.triangle_count));
    PhaseLog log(stream_.get());
    log.mark("context: stream and memory");
    // Each mesh's hierarchy from its float copy (mesh_frame.h); float32 inputs are their own copies.
    MeshFrame frame_a, frame_b;
    frame_mesh(a, threads, frame_a);
    frame_mesh(b, threads, frame_b);
    log.mark("context: frames");
    a_frame_ = frame_a.info;
    b_frame_ = frame_b.info;
    // The GPU's build needs about twice the device memory of the host's (its sorts' and levels' scratch), and the
    // radix sorts and scans count items in int on older CUB: where either does not hold, the host builds.
    bool built = false;
    if (switched_on("XHD_GPU_BUILD") && std::max(a.triangle_count, b.triangle_count) <= uint64_t(INT32_MAX)) {
      try {
        const uint64_t weight = kOrderWeight + (min ? kOrientedWeight : 0);
        build_on_device(a, frame_a, min, a_shape_, a_triangle_, a_corners_, a_boxes_, a_oriented_, a_dops_, a_truth_,
                        threads);
        progress.step_done(weight * a.triangle_count);
        build_on_device(b, frame_b, min, b_shape_, b_triangle_, b_corners_, b_boxes_, b_oriented_, b_dops_, b_truth_,
                        threads);
        progress.step_done(weight * b.triangle_count);
        built = true;
      } catch (const DeviceMemoryShort&) {
        XHD_CUDA(cudaStreamSynchronize(stream_.get()));
        a_triangle_ = {}, b_triangle_ = {}, a_corners_ = {}, b_corners_ = {}, a_boxes_ = {}, b_boxes_ = {};
        a_oriented_ = {}, b_oriented_ = {}, a_dops_ = {}, b_dops_ = {}, a_truth_ = {}, b_truth_ = {};
        progress.restart((kOrderWeight + (min ? kOrientedWeight : 0) + kUploadWeight) *
                         (a.triangle_count + b.triangle_count));
      }
    }
    if (!built) build_on_host(a, b, frame_a, frame_b, min, threads, progress);
    log.mark("context: hierarchies");
    ring_ = DeviceArray<SearchRecord>(memory_, 2 * kRing);
    plan_cut();
    batch_ = DeviceArray<BatchRecord>(memory_, 1);
    later_ = DeviceArray<FrameInput>(memory_, kBatchFrames);
    fronts_.reserve(64);
    plan_device_loop(o.device);
    XHD_CUDA(cudaStreamSynchronize(stream_.get()));
    // The host needs the root boxes for the slack and B's motion.
    XHD_CUDA(cudaMemcpy(&a_root_, a_boxes_.get(), sizeof(Box), cudaMemcpyDeviceToHost));
    XHD_CUDA(cudaMemcpy(&b_root_, b_boxes_.get(), sizeof(Box), cudaMemcpyDeviceToHost));
    progress.add(kUploadWeight * (a.triangle_count + b.triangle_count));
  }

 private:
  // Whether the search runs as one cooperative launch (cooperative launches supported; XHD_GPU_DEVICE_LOOP=0 turns
  // it off), and on how many blocks: XHD_GPU_LOOP_BLOCKS_PER_SM of those that fit on a multiprocessor at once
  // (default 2: a grid-wide barrier costs more the more blocks it waits for, and the fronts rarely fill more).
  void plan_device_loop(int device) {
    if (const char* c = std::getenv("XHD_MESH_FRONT_CAPACITY"))
      front_capacity_ = std::min<uint64_t>(kFrontCapacity, std::max<uint64_t>(1024, std::strtoull(c, nullptr, 10)));
    int cooperative = 0, watchdog = 0, sms = 0, fit_min = 0, fit_max = 0;
    XHD_CUDA(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    // A display's watchdog may stop a long kernel: there the search keeps to short launches.
    XHD_CUDA(cudaDeviceGetAttribute(&watchdog, cudaDevAttrKernelExecTimeout, device));
    if (!cooperative || watchdog || !switched_on("XHD_GPU_DEVICE_LOOP")) return;
    XHD_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    XHD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit_min, search_kernel<false, false>, kThreads, 0));
    XHD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit_max, search_kernel<true, false>, kThreads, 0));
    if (tight_read()) {
      int fit_dops = 0;
      XHD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit_dops, search_kernel<false, true>, kThreads, 0));
      fit_min = std::min(fit_min, fit_dops);
    }
    int per_sm = 2;
    if (const char* c = std::getenv("XHD_GPU_LOOP_BLOCKS_PER_SM")) per_sm = std::max(1, std::atoi(c));
    per_sm = std::min({per_sm, fit_min, fit_max});
    if (per_sm < 1) return;
    loop_blocks_ = static_cast<unsigned int>(per_sm * sms);
    // Measuring aids: fewer blocks than whole multiprocessors, and the pairs a step may generate.
    if (const char* c = std::getenv("XHD_GPU_LOOP_BLOCKS"))
      loop_blocks_ = std::min<unsigned int>(loop_blocks_, std::max(1, std::atoi(c)));
    if (const char* c = std::getenv("XHD_GPU_STEP_PAIRS"))
      step_pairs_ = std::max<uint64_t>(64, std::strtoull(c, nullptr, 10));
    // XHD_GPU_LEAF_WARPS=0: every final front a thread a triangle pair (for the tests: both ways give the same pairs).
    leaf_warps_ = switched_on("XHD_GPU_LEAF_WARPS");
    plan_resident(device);
  }

  // The minimum's stored cut (cut_frames), empty (the root) at first: XHD_GPU_CUT=0 turns touching frames' search
  // from it off; XHD_GPU_CUT_PAIRS, the most pairs a stored cut may hold (default kCutPairs), and XHD_GPU_CUT_ROUND,
  // the most a round may list (4 to kCutRound, the default), are the tests' ways of making cuts too large to store
  // and rounds that outgrow the block.
  void plan_cut() {
    cut_on_ = switched_on("XHD_GPU_CUT");
    if (const char* c = std::getenv("XHD_GPU_CUT_PAIRS"))
      cut_capacity_ = static_cast<uint32_t>(std::clamp(std::strtoull(c, nullptr, 10), 1ull, 1ull << 24));
    if (const char* c = std::getenv("XHD_GPU_CUT_ROUND"))
      cut_round_ = static_cast<uint32_t>(std::clamp<unsigned long long>(std::strtoull(c, nullptr, 10), 4, kCutRound));
    cut_pairs_ = DeviceArray<uint2>(memory_, 2ull * cut_capacity_);
    cut_state_ = DeviceArray<CutState>(memory_, 1);
    handoff_ = DeviceArray<CutHandoff>(memory_, 1);
    XHD_CUDA(cudaMemsetAsync(cut_state_.get(), 0, sizeof(CutState), stream_.get()));
  }

  // Whether the device loop stays on the GPU between calls (resident_loop.h; XHD_GPU_RESIDENT=0 turns it off), and
  // how long it waits for the next call before it leaves: XHD_GPU_RESIDENT_IDLE_US microseconds (default 2000, ten
  // times a call's round trip from Node's worker threads). Not under XHD_CUDA_PROFILE, whose phases wait for the
  // stream, which a resident kernel holds until it leaves.
  void plan_resident(int device) {
    if (!switched_on("XHD_GPU_RESIDENT") || std::getenv("XHD_CUDA_PROFILE") != nullptr) return;
    int sms = 0, fit = 0;
    XHD_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    XHD_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &fit, tight_read() ? resident_kernel<true> : resident_kernel<false>, kThreads, 0));
    if (static_cast<uint64_t>(fit) * sms < loop_blocks_) return;  // it holds both kinds' code: more registers
    long idle_us = 2000;
    if (const char* c = std::getenv("XHD_GPU_RESIDENT_IDLE_US")) idle_us = std::max(1L, std::atol(c));
    resident_state_ = DeviceArray<ResidentState>(memory_, 1);
    XHD_CUDA(cudaMemsetAsync(resident_state_.get(), 0, sizeof(ResidentState), stream_.get()));
    resident_ = std::make_unique<ResidentLoop>(device, stream_.get(), std::chrono::microseconds(idle_us),
                                               [this] { return launch_resident(); });
  }

  cudaError_t launch_resident() {
    TreeView a = view_a(), b = view_b();
    ResidentMailbox* box = resident_->mailbox();
    const FrameInput* frames = frames_.data();
    FrameInput* staged = later_.get();
    ResidentState* state = resident_state_.get();
    unsigned long long idle_ns = resident_->idle_ns();
    LoopBuffers buf = loop_buffers();
    BatchRecord* batch = batch_readback_.data();
    void* args[] = {&a, &b, &box, &frames, &staged, &state, &idle_ns, &buf, &batch};
    const void* kernel = tight_read() ? reinterpret_cast<const void*>(&resident_kernel<true>)
                                     : reinterpret_cast<const void*>(&resident_kernel<false>);
    const cudaError_t launched =
        cudaLaunchCooperativeKernel(kernel, dim3(loop_blocks_), dim3(kThreads), args, 0, stream_.get());
    if (launched == cudaSuccess) XHD_CUDA_LAUNCHED("resident_kernel");
    return launched;
  }

  LoopBuffers loop_buffers() {
    Fronts& top = fronts_at(0);
    return {front_capacity_, step_pairs_, ring_.get(), top.buffer[0].get(), top.buffer[1].get(), d2_.get(),
            leaf_warps_, cut_pairs_.get(), cut_state_.get(), cut_capacity_, cut_round_, handoff_.get()};
  }

  // A batch of one kind answered by the resident kernel (its outputs in batch_readback_, one record a kind), or
  // null where there is none (off, or its launch refused: then never again).
  const BatchRecord* resident_call(bool max, uint64_t first, const BatchAsk& ask,
                                  const std::function<void()>& meanwhile) {
    if (!resident_) return nullptr;
    ResidentCall c{};
    c.kind = max ? 1 : 0;
    c.first = static_cast<unsigned int>(first), c.frames = ask.frames, c.slot = ask.slot;
    c.start = ask.start, c.descent = ask.descent, c.trace = ask.trace, c.cut = ask.cut;
    if (resident_->call(c, reinterpret_cast<const unsigned int*>(frames_.data() + first), kFrameHalves, meanwhile)) {
      const unsigned int* words = resident_->answer();
      if (words == nullptr) return batch_readback_.data() + (max ? 1 : 0);
      // A touching frame answered early (resident_kernel): the end's head and the frame's output came as words.
      std::memcpy(&by_words_.end, words, kAnswerEndBytes);
      std::memcpy(&by_words_.frame[0], words + kAnswerEndBytes / sizeof(unsigned int), sizeof(FrameOutput));
      return &by_words_;
    }
    resident_.reset();
    return nullptr;
  }

  // One mesh's hierarchy built on the device (f12_build_gpu.h) from its float copy's vertices and its triangles,
  // uploaded; the truth's corners (double inputs whose copy rounds) gathered there from the input's vertices.
  // With XHD_CHECK_GPU_BUILD=1 (tests), checked against the host's build.
  void build_on_device(const xhd_mesh& in, const MeshFrame& frame, bool min, F12Shape& shape,
                       DeviceArray<uint32_t>& triangle, DeviceArray<float>& corners, DeviceArray<Box>& boxes,
                       DeviceArray<OrientedBox>& oriented, DeviceArray<DopReaches>& dops, DeviceArray<double>& truth,
                       int threads) {
    cudaStream_t s = stream_.get();
    PhaseLog log(s);
    const DeviceArray<float> xyz = upload(memory_, frame.xyz(), 3 * in.vertex_count, s);
    const DeviceArray<uint32_t> triangles = upload(memory_, in.triangles, 3 * in.triangle_count, s);
    log.mark("build: upload");
    DeviceF12 tree =
        build_f12_on_device(memory_, s, xyz.get(), triangles.get(), in.triangle_count, min, min && use_dops_);
    if (exact_ && !frame.info.copy_is_truth) {
      const DeviceArray<double> xyz64 = upload(memory_, frame.xyz64(), 3 * in.vertex_count, s);
      truth = device_truth_corners(memory_, s, tree, triangles.get(), xyz64.get());
    }
    if (asked_for("XHD_CHECK_GPU_BUILD")) check_device_tree(s, tree, frame.xyz(), in.triangles, threads);
    XHD_CUDA(cudaStreamSynchronize(s));  // the uploads' sources are the caller's and the frame's
    shape = tree.shape;
    triangle = std::move(tree.triangle);
    corners = std::move(tree.corners);
    boxes = std::move(tree.boxes);
    oriented = std::move(tree.oriented);
    dops = std::move(tree.dops);
  }

  // The same on the host (XHD_GPU_BUILD=0: to compare the two): the kd order and the oriented boxes built there
  // and uploaded, the boxes fitted on the device.
  void build_on_host(const xhd_mesh& a, const xhd_mesh& b, const MeshFrame& frame_a, const MeshFrame& frame_b,
                     bool min, int threads, const Progress& progress) {
    // Cancel (a Cancelled thrown by these builds or by step_done) is honoured only where no copy is in
    // flight: every upload below is synchronized before the next check, so unwinding frees no host array
    // the device still reads; the device arrays free themselves.
    const F12Mesh fa = build_f12_mesh(frame_a.xyz(), a.triangles, a.triangle_count, threads, progress);
    progress.step_done(kOrderWeight * a.triangle_count);
    const F12Mesh fb = build_f12_mesh(frame_b.xyz(), b.triangles, b.triangle_count, threads, progress);
    progress.step_done(kOrderWeight * b.triangle_count);
    cudaStream_t s = stream_.get();
    a_shape_ = fa.shape;
    b_shape_ = fb.shape;
    if (exact_) {
      // The exact distances read the inputs' corners: A's as they are (a float A's copy is its input), B's
      // posed per pair from its input's.
      const UninitLargeVector<double> ta = truth_corners(fa, frame_a, threads), tb = truth_corners(fb, frame_b, threads);
      a_truth_ = upload(memory_, ta.data(), ta.size(), s);
      if (!tb.empty()) b_truth_ = upload(memory_, tb.data(), tb.size(), s);
      XHD_CUDA(cudaStreamSynchronize(s));  // the host arrays go out of scope
    }
    if (min) {
      const UninitLargeVector<OrientedBox> oa = build_oriented_boxes(fa, threads, progress);
      progress.step_done(kOrientedWeight * a.triangle_count);
      const UninitLargeVector<OrientedBox> ob = build_oriented_boxes(fb, threads, progress);
      progress.step_done(kOrientedWeight * b.triangle_count);
      a_oriented_ = upload(memory_, oa.data(), oa.size(), s);
      b_oriented_ = upload(memory_, ob.data(), ob.size(), s);
      XHD_CUDA(cudaStreamSynchronize(s));  // the host arrays go out of scope
    }
    a_corners_ = upload(memory_, fa.corners.data(), fa.corners.size(), s);
    a_triangle_ = upload(memory_, fa.triangle.data(), fa.triangle.size(), s);
    // B's float copy: its boxes, fitted once in its own frame, and (float inputs) the corners every pose starts from.
    b_corners_ = upload(memory_, fb.corners.data(), fb.corners.size(), s);
    b_triangle_ = upload(memory_, fb.triangle.data(), fb.triangle.size(), s);
    a_boxes_ = DeviceArray<Box>(memory_, f12_node_count(a_shape_));
    b_boxes_ = DeviceArray<Box>(memory_, f12_node_count(b_shape_));
    fit_f12_boxes(s, a_shape_, a_corners_.get(), a_boxes_.get());
    fit_f12_boxes(s, b_shape_, b_corners_.get(), b_boxes_.get());
    XHD_CUDA(cudaStreamSynchronize(s));  // fa and fb go out of scope
  }

 public:
  uint64_t batch_size() const override { return loop_blocks_ > 0 ? kBatchFrames : 1; }

  void query(const double* pose, xhd_distance_result& r) override {
    uint64_t answered = 0;
    query_many(pose != nullptr ? pose : kIdentityPose, 1, &r, answered);
  }

  // The poses in batches of kBatchFrames: each kind's search of a whole batch is one call of the resident loop, or
  // one launch and one readback, where the device loop runs (a launch and readback cost a small search 20-25 us of a
  // 45-55 us frame at 1M on an H200; the resident loop's call about 6). A frame's query_ms is its own time on the
  // device (or the host's, where the host drove it) plus an equal share of the rest of the batch's time (B's motions,
  // the launches, the readbacks, the pairs' points), so a batch's frames add up to its wall time.
  void query_many(const double* poses, uint64_t n, xhd_distance_result* results, uint64_t& answered) override {
    answered = 0;
    while (answered < n) {
      const uint64_t k = std::min<uint64_t>(n - answered, kBatchFrames);
      answer_batch(poses + 12 * answered, k, results + answered, answered);
    }
  }

 private:
  // B's motion and the slack under a pose (B moved as the CPU backend moves it, PosedB: nothing of B is posed or
  // refitted here, only what the search reaches). Every bound the search compares against is an exact distance
  // (the descent's, the nodes' corners', the triangle pairs'), so the filters' distance from the truth counts once
  // (mesh_frame.h). Throws for a pose that moves B beyond the float range.
  FrameInput frame_input(const double* pose) const {
    Pose p;
    std::copy(pose, pose + 12, p.m);
    const FramePose frame = frame_pose(p.m, a_frame_, b_frame_);
    FrameInput in{};
    in.motion = {box_motion(frame.m, b_root_), p, b_oriented_.get() != nullptr && is_rigid(frame.m)};
    const double truth_scale =
        std::fmax(largest_coordinate(a_root_), in.motion.boxes.moved_scale) + largest_abs(a_frame_.origin);
    in.slack = pruning_slack(truth_scale) + a_frame_.copy_error + frame.displacement;
    return in;
  }

  // Up to kBatchFrames poses, counted in `answered` once their results are written. A pose refused ends the batch
  // before it: the poses before it are answered, then the refusal is thrown. A failure within a search counts the
  // frames that every kind asked for had answered before it.
  void answer_batch(const double* poses, uint64_t k, xhd_distance_result* results, uint64_t& answered) {
    const auto start = std::chrono::steady_clock::now();
    batch_started_ = start;
    std::exception_ptr refused;
    uint64_t ready = 0;
    for (; ready < k; ++ready) {
      try {
        frames_.data()[ready] = frame_input(poses + 12 * ready);
      } catch (...) {
        refused = std::current_exception();
        break;
      }
    }
    if (trace_calls_) inputs_made_ = std::chrono::steady_clock::now();
    PhaseLog log(stream_.get(), profile_);
    log.mark("B's motion");
    std::fill(own_ms_, own_ms_ + ready, 0.0);
    // The first `count` frames answered: their times (each its own, plus `share`), and counted.
    auto finish = [&](uint64_t count, double share) {
      for (uint64_t f = 0; f < count; ++f)
        results[f].query_ms = own_ms_[f] + share, results[f].peak_device_bytes = memory_.peak();
      answered += count;
    };
    uint64_t done_min = which_ & XHD_DISTANCE_MIN ? 0 : ready, done_max = which_ & XHD_DISTANCE_MAX ? 0 : ready;
    try {
      if (ready > 0 && (which_ & XHD_DISTANCE_MIN)) search_frames<false>(poses, ready, results, log, done_min);
      if (ready > 0 && (which_ & XHD_DISTANCE_MAX)) search_frames<true>(poses, ready, results, log, done_max);
    } catch (...) {
      finish(std::min(done_min, done_max), 0.0);
      throw;
    }
    double own = 0.0;
    for (uint64_t f = 0; f < ready; ++f) own += own_ms_[f];
    finish(ready, ready > 0 ? std::fmax(0.0, elapsed_ms(start) - own) / static_cast<double>(ready) : 0.0);
    if (refused) std::rethrow_exception(refused);
  }

  // The DOPs are read where both meshes have them (asked for, and built on the device).
  bool dops_read() const { return a_dops_.get() != nullptr && b_dops_.get() != nullptr; }
  // The kernels with the tighter bounds (kDops) run where the DOPs are read or the hulls asked for.
  bool tight_read() const { return dops_read() || hull_triangles_ != 0; }
  TreeView view_a() {
    return {a_shape_,      a_corners_.get(), a_triangle_.get(), a_boxes_.get(), a_oriented_.get(),
            dops_read() ? a_dops_.get() : nullptr, a_truth_.get(), hull_triangles_};
  }
  TreeView view_b() {
    return {b_shape_,      b_corners_.get(), b_triangle_.get(), b_boxes_.get(), b_oriented_.get(),
            dops_read() ? b_dops_.get() : nullptr, b_truth_.get(), hull_triangles_};
  }

  // The front buffers of each chunk depth (and the leaf stage's distances): allocated on first use, kept
  // across queries.
  struct Fronts {
    DeviceArray<uint2> buffer[2];
  };
  Fronts& fronts_at(size_t depth) {
    while (fronts_.size() <= depth) {
      fronts_.emplace_back();
      fronts_.back().buffer[0] = DeviceArray<uint2>(memory_, front_capacity_);
      fronts_.back().buffer[1] = DeviceArray<uint2>(memory_, front_capacity_);
    }
    if (d2_.get() == nullptr) d2_ = DeviceArray<double>(memory_, 4 * front_capacity_);
    return fronts_[depth];
  }

  // The best exact pair over the chunks searched so far: squared distance, then the smaller key.
  struct Found {
    double d2;
    unsigned long long key;
  };

  // The real distance, under this pose, of the pair that answered the last query: it bounds the search from the
  // start (frames move B a little, so it is often near the new answer), as on the CPU backend. Nothing known before
  // the first query, which walks down to a pair of leaves instead (a single thread's descent, about 0.1 ms of a
  // 0.25 ms frame at 1M).
  template <bool kMax>
  double last_answer_bound(const double* pose) const {
    const std::optional<TrianglePair>& last = kMax ? last_max_ : last_min_;
    if (!last) return nothing_known<kMax>();
    const Corners3 ca = a_input_.corners(last->a), cb = b_input_.posed_corners(pose, last->b);
    return (kMax ? triangle_pair_max(ca, cb) : triangle_pair_min(ca, cb)).d2;
  }

  // Each frame of the batch, in order: as many as it can in each launch of the device loop, else (the host drives
  // the search) one at a time. `done` counts the frames answered.
  template <bool kMax>
  void search_frames(const double* poses, uint64_t k, xhd_distance_result* results, PhaseLog& log, uint64_t& done) {
    for (uint64_t f = 0; f < k; f = done) {
      if (loop_blocks_ > 0 && device_frames<kMax>(poses, f, k, results, log, done)) continue;
      const auto start = std::chrono::steady_clock::now();
      const FrameInput& in = frames_.data()[f];
      motion_ = in.motion;
      Found found{nothing_known<kMax>(), ~0ull};
      const double given = last_answer_bound<kMax>(poses + 12 * f);
      const bool first = !(kMax ? last_max_ : last_min_);
      cudaStream_t s = stream_.get();
      Fronts& top = fronts_at(0);
      start_kernel<kMax><<<1, 1, 0, s>>>(view_a(), view_b(), motion_, given, first, state<kMax>(), top.buffer[0].get());
      XHD_CUDA_LAUNCHED("start_kernel");
      log.mark("start and descent");
      expand<kMax>(top.buffer[0].get(), 1, 0, 0, 0, in.slack, found, results[f], log);
      answer<kMax>(found, poses + 12 * f, results[f]);
      own_ms_[f] += elapsed_ms(start);
      done = f + 1;
    }
  }

  // The search's winner as the frame's answer: the winning pair's points, recomputed on the host by the same
  // functions (the CPU backend's bits); the pair bounds the next query.
  // `ahead`, if given, holds a pair measured under this pose before the answer came.
  template <bool kMax>
  void answer(const Found& found, const double* pose, xhd_distance_result& r, const PairAhead* ahead = nullptr) {
    if (found.key == ~0ull) throw std::runtime_error("the search ended without a triangle pair");
    const uint32_t ta = static_cast<uint32_t>(found.key >> 32), tb = static_cast<uint32_t>(found.key & 0xffffffffu);
    (kMax ? last_max_ : last_min_) = TrianglePair{ta, tb};
    PairPoints p;
    if (ahead != nullptr && ahead->pair.a == ta && ahead->pair.b == tb) {
      p = ahead->points;
    } else {
      const Corners3 ca = a_input_.corners(ta), cb = b_input_.posed_corners(pose, tb);
      p = kMax ? triangle_pair_max(ca, cb) : triangle_pair_min(ca, cb);
    }
    xhd_distance_pair& out = kMax ? r.max : r.min;
    out = xhd_distance_pair{};
    out.triangle_a = out.triangle_b = XHD_NO_INDEX;
    write_pair({p.d2, ta, tb, p}, out);
  }

  // Expands the front `in` (n pairs at levels la, lb) down to the leaves and tests their triangle pairs.
  // When an expansion would outgrow the buffers, the front is cut into chunks, each searched to its
  // leaves in turn (depth first over chunks): memory stays bounded, and later chunks meet a tighter bound.
  template <bool kMax>
  void expand(const uint2* in, uint64_t n, uint32_t la, uint32_t lb, size_t depth, double slack, Found& found,
              xhd_distance_result& r, PhaseLog& log) {
    cudaStream_t s = stream_.get();
    const TreeView a = view_a(), b = view_b();
    int current = -1;  // -1: the front is still the caller's `in`
    while (la < a.shape.depth || lb < b.shape.depth) {
      const Step st = next_step(n, la, lb, a.shape, b.shape, front_capacity_, step_pairs_);
      const uint32_t ka = st.ka, kb = st.kb;
      const uint64_t generated = st.generated;
      const uint2* front = current < 0 ? in : fronts_at(depth).buffer[current].get();
      if (generated > front_capacity_) {
        const uint64_t piece = std::max<uint64_t>(1, front_capacity_ >> (ka + kb));
        for (uint64_t first = 0; first < n; first += piece)
          expand<kMax>(front + first, std::min(piece, n - first), la, lb, depth + 1, slack, found, r, log);
        return;
      }
      // Never write the buffer being read: the first front may be one of this depth's buffers (the root's).
      const int next = current >= 0 ? 1 - current : (in == fronts_at(depth).buffer[0].get() ? 1 : 0);
      XHD_CUDA(cudaMemsetAsync(&state<kMax>()->count, 0, sizeof(unsigned int), s));
      auto* kernel = !kMax && tight_read() ? expand_kernel<kMax, !kMax> : expand_kernel<kMax, false>;
      kernel<<<blocks_for(generated, kThreads), kThreads, 0, s>>>(
          a, b, front, st, slack, motion_, state<kMax>(), fronts_at(depth).buffer[next].get());
      XHD_CUDA_LAUNCHED("expand_kernel");
      XHD_CUDA(cudaMemcpyAsync(&readback_.data()->state.count, &state<kMax>()->count, sizeof(unsigned int),
                               cudaMemcpyDeviceToHost, s));
      XHD_CUDA(cudaStreamSynchronize(s));
      const unsigned int count = readback_.data()->state.count;
      r.box_pairs += generated;
      ++r.iterations;
      char phase[80];
      std::snprintf(phase, sizeof(phase), "expand k=%u+%u %llu -> %u", ka, kb,
                    static_cast<unsigned long long>(generated), count);
      log.mark(phase);
      n = count;
      current = next;
      la += ka;
      lb += kb;
      if (n == 0) return;
    }
    leaf_stage<kMax>(current < 0 ? in : fronts_at(depth).buffer[current].get(), n, slack, found, r, log);
  }

  template <bool kMax>
  void leaf_stage(const uint2* pairs, uint64_t n, double slack, Found& found, xhd_distance_result& r, PhaseLog& log) {
    cudaStream_t s = stream_.get();
    const TreeView a = view_a(), b = view_b();
    leaf_pairs_kernel<kMax><<<blocks_for(4 * n, kThreads), kThreads, 0, s>>>(
        a, b, motion_, pairs, static_cast<uint32_t>(n), slack, state<kMax>(), d2_.get());
    XHD_CUDA_LAUNCHED("leaf_pairs_kernel");
    winner_kernel<<<blocks_for(4 * n, kThreads), kThreads, 0, s>>>(a, b, pairs, static_cast<uint32_t>(n), d2_.get(),
                                                                   state<kMax>());
    XHD_CUDA_LAUNCHED("winner_kernel");
    XHD_CUDA(cudaMemcpyAsync(&readback_.data()->state, state<kMax>(), sizeof(SearchState), cudaMemcpyDeviceToHost, s));
    // The next chunk starts its own winner and count; the bound and the best distance carry on.
    XHD_CUDA(cudaMemsetAsync(&state<kMax>()->key, 0xff, sizeof(unsigned long long), s));
    XHD_CUDA(cudaMemsetAsync(&state<kMax>()->tests, 0, sizeof(unsigned long long), s));
    XHD_CUDA(cudaStreamSynchronize(s));
    log.mark("leaf pairs and winner");
    take_chunk<kMax>(readback_.data()->state, found, r);
  }

  // A chunk's winner (if it has one at the best distance so far) against the chunks' before it.
  template <bool kMax>
  static void take_chunk(const SearchState& chunk, Found& found, xhd_distance_result& r) {
    r.triangle_pairs += chunk.tests;
    if (chunk.key == ~0ull) return;  // nothing here at the best distance found so far
    double d2;
    std::memcpy(&d2, &chunk.best, sizeof(d2));
    const bool better = kMax ? d2 > found.d2 : d2 < found.d2;
    if (better || (d2 == found.d2 && chunk.key < found.key)) found = {d2, chunk.key};
  }

  // Frames first..k-1 of the batch in one cooperative launch (search_kernel) and one readback, each counted in `done`
  // once answered. Where a frame's front outgrows the buffers, the launch stops there and the host searches that
  // frame on in chunks, as the host-driven search does. False, with nothing done, where the launch is refused
  // although it was planned to fit (e.g. a multiprocessor limit under MPS): this and every later search is then
  // driven by the host.
  template <bool kMax>
  bool device_frames(const double* poses, uint64_t first, uint64_t k, xhd_distance_result* results, PhaseLog& log,
                     uint64_t& done) {
    cudaStream_t s = stream_.get();
    const uint32_t n = static_cast<uint32_t>(k - first);
    Fronts& top = fronts_at(0);
    const uint32_t slot = slot_[kMax];
    const bool descent = !(kMax ? last_max_ : last_min_), start = descent || !ready_[kMax];
    // After a search of its kind on the device, the first frame's bound comes from the last record there, its pair
    // measured under the pose on the device as for a batch's later frames: the host's measure of the last answer
    // took 1-3 us of a touching frame's 13-14 (XHD_GPU_CALL_TRACE, stop 70).
    FrameInput& head = frames_.data()[first];
    head.by_record = start ? 0 : 1;
    head.given = start ? last_answer_bound<kMax>(poses + 12 * first) : nothing_known<kMax>();
    // Touching frames of the minimum begin from the stored cut, unless a round outgrew the block lately.
    const BatchAsk ask{n, slot, start, descent, log.enabled(), !kMax && cut_on_ && cut_rest_ == 0};
    // While the device searches a single frame, the host measures the last answer's pair under its pose: where
    // the pair wins again (touching frames keep their contact), its points are ready (answer).
    ahead_.valid = false;
    const std::optional<TrianglePair>& last = kMax ? last_max_ : last_min_;
    const auto measure_ahead = [&] {
      if (n != 1 || !last) return;
      const Corners3 ca = a_input_.corners(last->a), cb = b_input_.posed_corners(poses + 12 * first, last->b);
      ahead_ = {true, *last, kMax ? triangle_pair_max(ca, cb) : triangle_pair_min(ca, cb)};
    };
    // The host's clock around the call, for the measuring aids only (a read costs 25-45 ns).
    const bool timed = trace_calls_ || log.enabled();
    const auto host_start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    const BatchRecord* answered = resident_call(kMax, first, ask, measure_ahead);
    const bool by_resident = answered != nullptr;
    const auto host_launched = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    if (answered == nullptr) {
      // One launch: the later frames' inputs go up from pinned memory ahead of it, on its stream.
      if (n > 1)
        XHD_CUDA(cudaMemcpyAsync(later_.get(), frames_.data() + first + 1, (n - 1) * sizeof(FrameInput),
                                 cudaMemcpyHostToDevice, s));
      FrameInput first_input = frames_.data()[first];
      TreeView a = view_a(), b = view_b();
      const FrameInput* later = later_.get();
      BatchAsk launch_ask = ask;
      LoopBuffers buf = loop_buffers();
      BatchRecord* batch = batch_.get();
      void* args[] = {&a, &b, &first_input, &later, &launch_ask, &buf, &batch};
      const void* kernel = !kMax && tight_read() ? reinterpret_cast<const void*>(&search_kernel<kMax, !kMax>)
                                                : reinterpret_cast<const void*>(&search_kernel<kMax, false>);
      const cudaError_t launched = cudaLaunchCooperativeKernel(kernel, dim3(loop_blocks_), dim3(kThreads), args, 0, s);
      if (launched == cudaErrorCooperativeLaunchTooLarge || launched == cudaErrorNotSupported) {
        cudaGetLastError();
        XHD_CUDA(cudaStreamSynchronize(s));  // the inputs' copy reads the pinned frames
        loop_blocks_ = 0;
        return false;
      }
      XHD_CUDA(launched);
      XHD_CUDA_LAUNCHED("search_kernel");
      XHD_CUDA(cudaMemcpyAsync(batch_readback_.data(), batch, offsetof(BatchRecord, frame) + n * sizeof(FrameOutput),
                               cudaMemcpyDeviceToHost, s));
      XHD_CUDA(cudaStreamSynchronize(s));
      answered = batch_readback_.data();
    }
    const auto host_done = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    const BatchRecord& back = *answered;
    const LoopEnd& e = back.end;
    if (log.enabled()) print_profile(e, n, host_launched - host_start, host_done - host_launched);
    if (trace_calls_) trace_call(e, back.frame[e.frames > 0 ? e.frames - 1 : 0], host_start, host_done);
    log.mark("device loop");
    if (!kMax) cut_rest_ = e.cut_outgrown != 0 ? kCutRest : cut_rest_ - std::min<uint32_t>(cut_rest_, e.frames);
    // Each frame's own time: from the end of the one before (the kernel's start for the first).
    unsigned long long before = e.begin_ns;
    for (uint32_t f = 0; f < e.frames; ++f) {
      const FrameOutput& o = back.frame[f];
      xhd_distance_result& r = results[first + f];
      r.box_pairs += o.box_pairs;
      r.iterations += o.iterations;
      Found found{nothing_known<kMax>(), ~0ull};
      take_chunk<kMax>(o.state, found, r);
      answer<kMax>(found, poses + 12 * (first + f), r, f == 0 && ahead_.valid ? &ahead_ : nullptr);
      own_ms_[first + f] += (o.end_ns - before) / 1e6;
      before = o.end_ns;
      done = first + f + 1;
    }
    if (!e.stopped) {
      // The last frame cleared the record after its own: the next search of this kind uses it, with no start.
      slot_[kMax] = (slot + e.frames) % kRing;
      ready_[kMax] = true;
      return true;
    }
    // The stopped frame's search goes on from its record; the frame before it cleared the one after it, which the
    // next search of this kind then uses with no start, even where the host's chunks below fail part-way (the
    // stopped frame's record is left as they left it).
    if (by_resident) resident_->left();  // a stopped batch ends the resident kernel
    const auto chunks_start = std::chrono::steady_clock::now();
    const uint64_t f = first + e.frames;
    slot_[kMax] = (slot + e.frames) % kRing;
    struct NextRecord {
      uint32_t& slot;
      bool& ready;
      ~NextRecord() { slot = (slot + 1) % kRing, ready = true; }
    } next_record{slot_[kMax], ready_[kMax]};
    xhd_distance_result& r = results[f];
    r.box_pairs += e.box_pairs;
    r.iterations += e.iterations;
    motion_ = frames_.data()[f].motion;
    Found found{nothing_known<kMax>(), ~0ull};
    expand<kMax>(top.buffer[e.front].get(), e.count, e.la, e.lb, 0, frames_.data()[f].slack, found, r, log);
    answer<kMax>(found, poses + 12 * f, r);
    own_ms_[f] += elapsed_ms(chunks_start);
    done = f + 1;
    return true;
  }

  // XHD_GPU_CALL_TRACE=1 (a measuring aid): where a call's time goes, on the host's clock (before the launch or the
  // resident call, the call, and the answers after it) and the device's (a resident call's wait to be taken, and the
  // search).
  void trace_call(const LoopEnd& e, const FrameOutput& last, std::chrono::steady_clock::time_point call,
                  std::chrono::steady_clock::time_point back) const {
    using us = std::chrono::duration<double, std::micro>;
    std::fprintf(stderr,
                 "xhd-call frames %u: before %.1f us (inputs %.1f us), call %.1f us (taken to search %.1f us, search "
                 "%.1f us)%s\n",
                 e.frames, us(call - batch_started_).count(), us(inputs_made_ - batch_started_).count(),
                 us(back - call).count(),
                 e.taken_ns != 0 ? (e.begin_ns - e.taken_ns) / 1000.0 : 0.0, (last.end_ns - e.begin_ns) / 1000.0,
                 last.by_cut != 0 ? ", the last frame from the cut" : "");
  }

  // XHD_CUDA_PROFILE: the host's clock around the launch, the device's (kernel stamps) inside its first frame: no
  // events, which cost more than some phases.
  static void print_profile(const LoopEnd& e, uint32_t frames, std::chrono::steady_clock::duration launch,
                            std::chrono::steady_clock::duration wait) {
    using us = std::chrono::duration<double, std::micro>;
    std::fprintf(stderr,
                 "xhd-profile search_kernel, %u of %u frames: the launch call %.1f us, then %.1f us to the readback; "
                 "the first frame on the device (us): start",
                 e.frames, frames, us(launch).count(), us(wait).count());
    unsigned long long last = e.stamps[0];
    for (int i = 1; i < kLoopStamps; ++i)
      if (e.stamps[i] != 0) std::fprintf(stderr, " %.1f", (e.stamps[i] - last) / 1000.0), last = e.stamps[i];
    std::fprintf(stderr, " (leaf pairs and winner last), %.1f in all", (last - e.stamps[0]) / 1000.0);
    if (last > e.stamps[0] && e.cycles[1] > e.cycles[0])
      std::fprintf(stderr, ", block 0's clock %.0f MHz", 1e3 * static_cast<double>(e.cycles[1] - e.cycles[0]) /
                                                           static_cast<double>(last - e.stamps[0]));
    std::fprintf(stderr, "\n");
  }

  // This kind's record in use (of its kRing: search_kernel).
  template <bool kMax>
  SearchRecord* record() {
    return ring_.get() + kRing * kMax + slot_[kMax];
  }
  template <bool kMax>
  SearchState* state() {
    return &record<kMax>()->state;
  }

  const int which_;
  const bool exact_;  // an input is double: the boxes are fitted to float copies, the exact tests read the truth
  Stream stream_;
  DeviceMemory memory_;
  const MeshTruth a_input_, b_input_;
  FrameInfo a_frame_, b_frame_;
  F12Shape a_shape_{1, 0}, b_shape_{1, 0};
  DeviceArray<float> a_corners_, b_corners_;  // float copies (float inputs: the inputs themselves)
  DeviceArray<double> a_truth_, b_truth_;       // double inputs only (each: where that mesh is double), unposed
  DeviceArray<uint32_t> a_triangle_, b_triangle_;
  DeviceArray<Box> a_boxes_, b_boxes_;
  DeviceArray<OrientedBox> a_oriented_, b_oriented_;
  DeviceArray<DopReaches> a_dops_, b_dops_;  // XHD_GPU_DOP=1 only, built on the device only (the host's uploads none)
  Motion motion_{};  // the frame's the host-driven kernels search
  DeviceArray<SearchRecord> ring_;  // kRing a kind (minimum, maximum), used in turn by the frames
  uint32_t slot_[2] = {0, 0};       // each kind's record in use
  bool ready_[2] = {false, false};  // whether it is clear (the device loop's last frame of the kind cleared it)
  PinnedArray<SearchRecord> readback_{1};  // the record's copies back land here: pinned, so they are real DMA
  // A batch's frames: their inputs (made here, the later ones copied up to later_ for the device loop), what the
  // device loop leaves (batch_, read back to batch_readback_), and each frame's own time.
  PinnedArray<FrameInput> frames_{kBatchFrames};
  DeviceArray<FrameInput> later_;
  DeviceArray<BatchRecord> batch_;
  PinnedArray<BatchRecord> batch_readback_{2};  // a kind each: the resident kernel writes here
  double own_ms_[kBatchFrames] = {};
  std::chrono::steady_clock::time_point batch_started_{}, inputs_made_{};  // for XHD_GPU_CALL_TRACE
  const bool trace_calls_ = asked_for("XHD_GPU_CALL_TRACE");
  const bool profile_ = std::getenv("XHD_CUDA_PROFILE") != nullptr;  // read once: getenv costs a call 0.1 us
  // The last query's answers (triangles of A and B), tried first by the next.
  std::optional<TrianglePair> last_min_, last_max_;
  // A pair measured while the device searched (device_frames), and a record answered by words (resident_call).
  PairAhead ahead_{};
  BatchRecord by_words_{};
  std::vector<Fronts> fronts_;
  DeviceArray<double> d2_;
  Box a_root_{}, b_root_{};
  // The device-driven search: blocks of its cooperative launch (0: the host drives the search).
  unsigned int loop_blocks_ = 0;
  // Front pairs an expansion may generate before the front is searched in chunks (XHD_MESH_FRONT_CAPACITY
  // lowers it, for tests of the chunks; the buffers hold this many).
  uint64_t front_capacity_ = kFrontCapacity;
  // Pairs a step may generate (the adaptive depth's C; XHD_GPU_STEP_PAIRS sets it, for measuring).
  uint64_t step_pairs_ = kGenerated;
  // Whether a final front of few pairs is measured a warp a triangle pair (leaf_pair_by_warp).
  bool leaf_warps_ = true;
  // The minimum's stored cut (cut_frames): on or off, its buffers' size, a round's most pairs, where block 0 leaves
  // a batch to the grid, and the frames to keep to the grid's search after a round outgrew the block.
  bool cut_on_ = true;
  uint32_t cut_capacity_ = kCutPairs, cut_round_ = kCutRound, cut_rest_ = 0;
  DeviceArray<uint2> cut_pairs_;
  DeviceArray<CutState> cut_state_;
  DeviceArray<CutHandoff> handoff_;
  // Whether the minimum's hierarchies get DOPs and the searches read them (XHD_GPU_DOP=1: dop_cut says why not
  // by default). Set before the build.
  const bool use_dops_ = asked_for("XHD_GPU_DOP");
  // Nodes of at most this many triangles bounded by their corners' hulls (warp_hull_gap): XHD_GPU_HULL=1 asks for
  // it, XHD_GPU_HULL_TRIANGLES sets the size (default 32); 0, the default: off.
  const uint32_t hull_triangles_ = hull_triangles_asked();
  // The resident device loop (plan_resident), and its record on the device. Last, so it leaves (its destructor
  // waits for the kernel) before anything it reads is freed.
  DeviceArray<ResidentState> resident_state_;
  std::unique_ptr<ResidentLoop> resident_;
};

}  // namespace

std::unique_ptr<MeshDistanceEngine> make_gpu_mesh_distance(const xhd_mesh& a, const xhd_mesh& b,
                                                           const xhd_distance_options& options,
                                                           const Progress& progress) {
  return std::make_unique<F12GpuDistance>(a, b, options, progress);
}

}  // namespace xhd
