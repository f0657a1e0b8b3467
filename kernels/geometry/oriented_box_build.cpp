#include "oriented_box_build.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <vector>

#include "../abi/parallel.h"
#include "../abi/progress.h"
#include "principal_axes.h"

namespace xhd {
namespace {

// The principal axes of the moments.
void principal_box_axes(const NodeMoments& m, OrientedBox& box) {
  double cov[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) cov[i][j] = m.ss[i][j] - m.s[i] * m.s[j] / m.n;
  covariance_axes(cov, box);
}

// A leaf's moments about origin, its corners in order: the one sum both the full build (whose parents of
// leaves sum them again rather than keep them) and the nodes made on demand use, so their bits agree.
NodeMoments leaf_moments(const F12Mesh& mesh, uint64_t leaf, const Dvec3& origin) {
  NodeMoments m;
  const float* corners = mesh.corners.data();
  for (uint64_t v = 3ull * f12_leaf_first(mesh.shape, leaf); v < 3ull * f12_leaf_first(mesh.shape, leaf + 1); ++v)
    m.add(dsub(dload(corners + 3 * v), origin));
  return m;
}

// A leaf's axes from its first triangle (principal_axes.h): a leaf of one triangle makes a box of no thickness
// (the principal axes too, up to the turn in the plane) and a leaf of two neighbours nearly so; the Jacobi
// rotations cost about 20% of a full build's CPU time, leaves half the nodes. A degenerate first triangle takes
// the moments' axes (summed only then).
void leaf_axes(const F12Mesh& mesh, uint64_t leaf, const Dvec3& origin, OrientedBox& box) {
  if (triangle_axes(mesh.corners.data() + 9ull * f12_leaf_first(mesh.shape, leaf), box)) return;
  principal_box_axes(leaf_moments(mesh, leaf, origin), box);
}

// Node i of the level's axes: a leaf's from its first triangle, any other node's from its moments (moments(),
// asked only for those). The one definition the full build and the nodes made on demand share, so both give the
// same bits.
template <class Moments>
void node_axes(const F12Mesh& mesh, uint32_t level, uint64_t i, const Dvec3& origin, Moments moments,
               OrientedBox& box) {
  if (level == mesh.shape.depth) return leaf_axes(mesh, i, origin, box);
  principal_box_axes(moments(), box);
}

// How many threads share one node's scans: a level with fewer nodes than threads splits each node's
// vertices into parts (their extremes merge exactly), so the top levels use every core too.
constexpr uint64_t kVerticesPerPart = 1 << 15;

// The vertices a node's scans read: its slots' corners, or, for the nodes of the levels that have them, the
// distinct points of NodeVertexBlocks (the same set without repeats, so the same extremes, about a sixth of
// the corners on a closed mesh); a node above those levels reads its descendants' blocks on that level.
class NodeVertices {
 public:
  NodeVertices(const F12Mesh& mesh, const NodeVertexBlocks* blocks)
      : mesh_(mesh), blocks_(blocks != nullptr && blocks->first_level <= mesh.shape.depth ? blocks : nullptr) {}

  // Roughly how many vertices a node of the level holds (to size its parts).
  uint64_t per_node(uint32_t level) const { return (3ull * mesh_.shape.triangles) >> level; }

  // Calls g(xs, ys, zs, count, stride) for the runs of vertices of part `part` of `parts` of node i of the level:
  // vertex k of a run at xs[k * stride], ys[k * stride], zs[k * stride].
  template <typename G>
  void runs(uint32_t level, uint64_t i, uint64_t part, uint64_t parts, G&& g) const {
    if (blocks_ == nullptr) return corners(level, i, part, parts, g);
    const uint32_t top = blocks_->first_level;
    if (level > blocks_->last_level) return corners(level, i, part, parts, g);
    if (level >= top) {
      const uint64_t node = f12_node(level, i);
      const uint32_t n = blocks_->padded[node - ((1ull << top) - 1)];
      if (n >= 3 * triangles(level, i)) return corners(level, i, part, parts, g);  // small nodes: padding
      const float* xs = blocks_->start[node - ((1ull << top) - 1)];
      const uint64_t begin = n * part / parts, end = n * (part + 1) / parts;
      g(xs + begin, xs + n + begin, xs + 2 * n + begin, end - begin, uint64_t{1});
      return;
    }
    const uint64_t roots = 1ull << (top - level), first = i * roots;
    for (uint64_t r = first + roots * part / parts; r < first + roots * (part + 1) / parts; ++r) runs(top, r, 0, 1, g);
  }

 private:
  uint64_t triangles(uint32_t level, uint64_t i) const {
    const uint32_t shift = mesh_.shape.depth - level;
    return f12_leaf_first(mesh_.shape, (i + 1) << shift) - f12_leaf_first(mesh_.shape, i << shift);
  }

  template <typename G>
  void corners(uint32_t level, uint64_t i, uint64_t part, uint64_t parts, G&& g) const {
    const uint32_t shift = mesh_.shape.depth - level;
    const uint64_t first = 3ull * f12_leaf_first(mesh_.shape, i << shift);
    const uint64_t last = 3ull * f12_leaf_first(mesh_.shape, (i + 1) << shift);
    const float* c = mesh_.corners.data() + 3 * (first + (last - first) * part / parts);
    const uint64_t count = (last - first) * (part + 1) / parts - (last - first) * part / parts;
    g(c, c + 1, c + 2, count, uint64_t{3});
  }

  const F12Mesh& mesh_;
  const NodeVertexBlocks* blocks_;
};

// The 13 directions s0·u0 + s1·u1 + s2·u2 whose first non-zero sign is +; the other 13 are their negatives.
constexpr int kHalfDirections[13][3] = {{0, 0, 1},  {0, 1, -1}, {0, 1, 0},  {0, 1, 1}, {1, -1, -1},
                                        {1, -1, 0}, {1, -1, 1}, {1, 0, -1}, {1, 0, 0}, {1, 0, 1},
                                        {1, 1, -1}, {1, 1, 0},  {1, 1, 1}};

// The 13 directions' projections, in kHalfDirections's order, from a vertex's projections q on the three axes: the
// sums s0·q0 + s1·q1 + s2·q2 with the products by 0 and ±1 left out. They are the same values (a zero's sign aside)
// in 10 additions where the products took 39 multiplications and 26 additions.
template <class T>
inline void direction_sums(const T (&q)[3], T (&h)[13]) {
  const T plus01 = q[0] + q[1], minus01 = q[0] - q[1];
  h[0] = q[2], h[1] = q[1] - q[2], h[2] = q[1], h[3] = q[1] + q[2];
  h[4] = minus01 - q[2], h[5] = minus01, h[6] = minus01 + q[2];
  h[7] = q[0] - q[2], h[8] = q[0], h[9] = q[0] + q[2];
  h[10] = plus01 - q[2], h[11] = plus01, h[12] = plus01 + q[2];
}

// Four doubles, one a vertex (GCC's vector extensions: AVX registers where the target has them).
typedef double VertexLanes __attribute__((vector_size(32)));
typedef float VertexLaneFloats __attribute__((vector_size(16)));

// The least and largest projections of a node's vertices on three axes (and on the 13 DOP directions built
// from them, when kReaches), each vertex measured from an origin o as ddot(u_j, v - o).
template <bool kReaches>
struct Projections {
  static constexpr int kHalf = 13;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  double dir_lo[kReaches ? kHalf : 1], dir_hi[kReaches ? kHalf : 1];

  Projections() {
    for (double& x : dir_lo) x = INFINITY;
    for (double& x : dir_hi) x = -INFINITY;
  }
  void add(const Dvec3& p, const Dvec3 (&u)[3]) {
    const double q[3] = {ddot(u[0], p), ddot(u[1], p), ddot(u[2], p)};
    for (int j = 0; j < 3; ++j) lo[j] = smaller(lo[j], q[j]), hi[j] = larger(hi[j], q[j]);
    if constexpr (kReaches) {
      double h[kHalf];
      direction_sums(q, h);
      for (int k = 0; k < kHalf; ++k) dir_hi[k] = larger(dir_hi[k], h[k]), dir_lo[k] = smaller(dir_lo[k], h[k]);
    }
  }
  // A run of vertices (vertex k at xs[k * kStride], ...) measured as add() measures each, four at a time in
  // lanes of their own: each lane keeps its own extremes, merged at the end (a set's extremes are the same in any
  // order). A run's last group is filled up with repeats of its first vertex, which change no extreme.
  template <int kStride>
  void add_run(const float* xs, const float* ys, const float* zs, uint64_t count, const Dvec3& o,
               const Dvec3 (&u)[3]) {
    if (count == 0) return;
    constexpr int kN = kReaches ? 3 + kHalf : 3;
    VertexLanes least[kN], most[kN];
    for (int k = 0; k < kN; ++k) least[k] = VertexLanes{} + INFINITY, most[k] = VertexLanes{} - INFINITY;
    auto take = [&](const VertexLanes& x, const VertexLanes& y, const VertexLanes& z) {
      const VertexLanes px = x - o.x, py = y - o.y, pz = z - o.z;
      VertexLanes v[kN];
      for (int j = 0; j < 3; ++j) v[j] = u[j].x * px + u[j].y * py + u[j].z * pz;  // ddot(u_j, p), term by term
      if constexpr (kReaches) {
        const VertexLanes q[3] = {v[0], v[1], v[2]};
        VertexLanes h[kHalf];
        direction_sums(q, h);
        for (int k = 0; k < kHalf; ++k) v[3 + k] = h[k];
      }
      for (int k = 0; k < kN; ++k) {
        least[k] = least[k] < v[k] ? least[k] : v[k];
        most[k] = most[k] > v[k] ? most[k] : v[k];
      }
    };
    uint64_t k = 0;
    for (; k + 4 <= count; k += 4) {
      if constexpr (kStride == 1) {
        VertexLaneFloats fx, fy, fz;
        __builtin_memcpy(&fx, xs + k, sizeof fx);
        __builtin_memcpy(&fy, ys + k, sizeof fy);
        __builtin_memcpy(&fz, zs + k, sizeof fz);
        take(__builtin_convertvector(fx, VertexLanes), __builtin_convertvector(fy, VertexLanes),
             __builtin_convertvector(fz, VertexLanes));
      } else {
        const uint64_t a = k * kStride;
        take(VertexLanes{xs[a], xs[a + kStride], xs[a + 2 * kStride], xs[a + 3 * kStride]},
             VertexLanes{ys[a], ys[a + kStride], ys[a + 2 * kStride], ys[a + 3 * kStride]},
             VertexLanes{zs[a], zs[a + kStride], zs[a + 2 * kStride], zs[a + 3 * kStride]});
      }
    }
    if (k < count) {
      VertexLanes x, y, z;
      for (uint64_t l = 0; l < 4; ++l) {
        const uint64_t a = (k + l < count ? k + l : k) * kStride;
        x[l] = xs[a], y[l] = ys[a], z[l] = zs[a];
      }
      take(x, y, z);
    }
    auto fold = [&](double& low, double& high, const VertexLanes& l, const VertexLanes& h) {
      for (int lane = 0; lane < 4; ++lane) low = smaller(low, l[lane]), high = larger(high, h[lane]);
    };
    for (int j = 0; j < 3; ++j) fold(lo[j], hi[j], least[j], most[j]);
    if constexpr (kReaches)
      for (int d = 0; d < kHalf; ++d) fold(dir_lo[d], dir_hi[d], least[3 + d], most[3 + d]);
  }
  // Merged in vertex order (a part's extremes after the earlier parts'), as one scan would keep them.
  void merge(const Projections& o) {
    for (int j = 0; j < 3; ++j) lo[j] = smaller(lo[j], o.lo[j]), hi[j] = larger(hi[j], o.hi[j]);
    if (kReaches)
      for (int k = 0; k < kHalf; ++k)
        dir_hi[k] = larger(dir_hi[k], o.dir_hi[k]), dir_lo[k] = smaller(dir_lo[k], o.dir_lo[k]);
  }
};

// A node's projections from o along its box's axes: scanned in `parts` parts on `threads` threads (parts > 1
// only where the caller runs one node at a time).
template <bool kReaches>
Projections<kReaches> project(const NodeVertices& vertices, uint32_t level, uint64_t i, const OrientedBox& box,
                              const Dvec3& o, uint64_t parts, int threads) {
  const Dvec3 u[3] = {fvec(box.u[0]), fvec(box.u[1]), fvec(box.u[2])};
  auto part_of = [&](uint64_t part) {
    Projections<kReaches> p;
    vertices.runs(level, i, part, parts,
                  [&](const float* xs, const float* ys, const float* zs, uint64_t count, uint64_t stride) {
                    if (stride == 1) p.template add_run<1>(xs, ys, zs, count, o, u);
                    else p.template add_run<3>(xs, ys, zs, count, o, u);
                  });
    return p;
  };
  if (parts == 1) return part_of(0);
  std::vector<Projections<kReaches>> each(parts);
  parallel_blocks(parts, 1, threads, [&](size_t begin, size_t end, int) {
    for (size_t k = begin; k < end; ++k) each[k] = part_of(k);
  });
  for (uint64_t k = 1; k < parts; ++k) each[0].merge(each[k]);
  return each[0];
}

// The reaches along the 26 directions from the box's centre, rounded up, from the 13 directions' extremes
// (the other 13 are their minima negated).
DopReaches reaches_from(const Projections<true>& p) {
  // Slot 27 pads the reaches to whole lanes (below); the centre, slot 13, stays 0 as unused.
  alignas(32) double reach[kDopSlots + 1] = {};
  for (int k = 0; k < Projections<true>::kHalf; ++k) {
    const int* s = kHalfDirections[k];
    const double hi = p.dir_hi[k], lo = p.dir_lo[k];
    const double room = 1e-12 * (std::fabs(hi) + std::fabs(lo));  // for the double arithmetic above
    reach[dop_slot(s[0], s[1], s[2])] = hi + room;
    reach[dop_slot(-s[0], -s[1], -s[2])] = -lo + room;
  }
  double radius2 = 0.0;
  for (int j = 0; j < 3; ++j) {
    const double e = larger(reach[13 + dop_face(j)], reach[13 - dop_face(j)]);
    radius2 += e * e;
  }
  DopReaches out;
  // Axes orthonormal to float precision: the radius from the three face reaches, with room.
  out.r = std::nextafter(static_cast<float>(std::sqrt(radius2) * (1.0 + 1e-6) + 1e-30), INFINITY);
  // Steps of the unit, rounded up and at most 65535: four slots at a time, by a product with the unit's
  // reciprocal (27 divisions, one after the other, were the largest cost here). The quotient may come out a few
  // ulps low, far inside the room every reach carries (1e-12 of its size). Clamped to [0, 65535] before the
  // rounding up (the same as after: 65535 is whole), which then is a truncation plus one where it cut.
  typedef int32_t StepLanes __attribute__((vector_size(16)));
  const double per_unit = 1.0 / dop_unit(out.r);
  const VertexLanes zero = {}, most = zero + 65535.0;
  for (int k = 0; k < kDopSlots; k += 4) {
    VertexLanes x;
    __builtin_memcpy(&x, reach + k, sizeof x);
    x *= per_unit;
    x = x > zero ? x : zero;  // also where x is NaN, as std::max(x, 0.0) read the other way round
    x = x < most ? x : most;
    StepLanes steps = __builtin_convertvector(x, StepLanes);
    steps -= __builtin_convertvector(__builtin_convertvector(steps, VertexLanes) < x, StepLanes);  // -1 where cut
    for (int l = 0; l < 4 && k + l < kDopSlots; ++l) out.h[k + l] = static_cast<uint16_t>(steps[l]);
  }
  return out;
}

// The extents from projections about the box's centre (rounded up, with room for the double arithmetic).
void set_extents(const double lo[3], const double hi[3], OrientedBox& box) {
  for (int j = 0; j < 3; ++j) {
    const double e = larger(-lo[j], hi[j]);
    box.e[j] = std::nextafter(static_cast<float>(e * (1.0 + 1e-12)), INFINITY);
  }
}

// How many parts one node's scans are split into on `threads` threads, where it is scanned alone: enough to
// share among them, none smaller than kVerticesPerPart.
uint64_t scan_parts(const NodeVertices& vertices, uint32_t level, int threads) {
  if (threads <= 1) return 1;
  return std::max<uint64_t>(1, std::min<uint64_t>(4 * threads, vertices.per_node(level) / kVerticesPerPart));
}

// One node's box (axes already set from its moments) and reaches, from one scan of its vertices measured from the
// node's first corner o: their interval along each axis gives the centre, rounded to float; the intervals moved
// to that centre (each projection less the centre's, u . (c - o)) give the extents (rounded up, with room for the
// double arithmetic) and the DOP's reaches. A second scan about the centre (which the build made before, a
// sixth of the oriented shapes' time) would measure the same intervals to within a few ulps of the node's size;
// the pruning slack (1e-12 of the coordinates, mesh_distance_common.h) is far above either rounding. (On the
// 100k rings and spheres, every extent and reach came out as the second scan gave it; the centre, now taken
// from the scan that also measures the DOP directions, moved by a rounding in a few nodes.)
template <bool kReaches>
void finish_node(const NodeVertices& vertices, uint32_t level, uint64_t i, const Dvec3& o, uint64_t parts, int threads,
                 OrientedBox& box, DopReaches* reaches) {
  Projections<kReaches> about = project<kReaches>(vertices, level, i, box, o, parts, threads);
  Dvec3 c = o;
  for (int j = 0; j < 3; ++j) {
    const double mid = 0.5 * (about.lo[j] + about.hi[j]);
    c = {c.x + mid * box.u[j][0], c.y + mid * box.u[j][1], c.z + mid * box.u[j][2]};
  }
  box.c[0] = static_cast<float>(c.x), box.c[1] = static_cast<float>(c.y), box.c[2] = static_cast<float>(c.z);
  const Dvec3 shift = dsub(fvec(box.c), o);
  const double moved[3] = {ddot(fvec(box.u[0]), shift), ddot(fvec(box.u[1]), shift), ddot(fvec(box.u[2]), shift)};
  for (int j = 0; j < 3; ++j) about.lo[j] -= moved[j], about.hi[j] -= moved[j];
  if constexpr (kReaches) {
    double h[Projections<kReaches>::kHalf];
    direction_sums(moved, h);
    for (int k = 0; k < Projections<kReaches>::kHalf; ++k) about.dir_lo[k] -= h[k], about.dir_hi[k] -= h[k];
  }
  set_extents(about.lo, about.hi, box);
  if constexpr (kReaches) *reaches = reaches_from(about);
}

// One level's moments, in storage left unwritten until the level's loop writes each entry whole: value-initialized
// buffers were 650 MB written on one thread before a 7.5M-triangle mesh's loop began.
class LevelMoments {
 public:
  explicit LevelMoments(uint64_t n) : raw_(n) {}
  void put(uint64_t i, const NodeMoments& m) { ::new (static_cast<void*>(&raw_[i])) NodeMoments(m); }
  const NodeMoments& operator[](uint64_t i) const {
    return *std::launder(reinterpret_cast<const NodeMoments*>(&raw_[i]));
  }
  void swap(LevelMoments& other) { raw_.swap(other.raw_); }

 private:
  struct alignas(NodeMoments) Raw {
    unsigned char bytes[sizeof(NodeMoments)];
  };
  UninitLargeVector<Raw> raw_;
};

template <bool kReaches>
void build_shapes(const F12Mesh& mesh, const NodeVertexBlocks* blocks, int threads, const Progress& progress,
                  const OrientedShapeSink& sink) {
  const F12Shape& s = mesh.shape;
  const NodeVertices vertices(mesh, blocks);
  const float* corners = mesh.corners.data();
  const Dvec3 origin = dload(corners);
  threads = std::max(threads, 1);
  // Moments of one level at a time, leaves first.
  // Two buffers for the whole build, swapped level by level (fresh ones per level were faulted in again each time);
  // each entry is written whole by its node before the level above reads it. The leaves' are not kept: their
  // parents sum their few corners (leaf_moments) rather than read them from a buffer as large as both others
  // (436 MB at 7.5M triangles, every page of it faulted in and cleared); a leaf sums its own only when its first
  // triangle cannot give its axes.
  LevelMoments below(s.depth > 0 ? 1ull << (s.depth - 1) : 1), here(s.depth > 1 ? 1ull << (s.depth - 2) : 1);
  for (uint32_t level = s.depth + 1; level-- > 0;) {
    progress.check_cancel();
    const uint64_t count = 1ull << level;
    const uint32_t shift = s.depth - level;
    LevelMoments& moments = level + 1 == s.depth ? below : here;
    // Few nodes with many vertices: one node at a time, its vertices in parts on every thread.
    const uint64_t parts = count >= static_cast<uint64_t>(2 * threads)
                               ? 1
                               : std::max<uint64_t>(1, std::min<uint64_t>(4 * threads / count,
                                                                          vertices.per_node(level) / kVerticesPerPart));
    auto node = [&](uint64_t i, int node_threads) {
      const uint32_t first = f12_leaf_first(s, i << shift);
      // An internal node's moments, kept for the level above.
      auto sum = [&] {
        NodeMoments m = level + 1 == s.depth ? leaf_moments(mesh, 2 * i, origin) : below[2 * i];
        m.add(level + 1 == s.depth ? leaf_moments(mesh, 2 * i + 1, origin) : below[2 * i + 1]);
        moments.put(i, m);
        return m;
      };
      OrientedBox box;
      node_axes(mesh, level, i, origin, sum, box);
      // Exact extents at every level (children's boxes would be cheaper, but measured 1.2–3x more pairs).
      DopReaches reaches;
      finish_node<kReaches>(vertices, level, i, dload(corners + 9ull * first), parts, node_threads, box, &reaches);
      sink.put(f12_node(level, i), box, reaches);
    };
    if (parts == 1) {
      parallel_blocks(count, std::max<uint64_t>(1, 4096 >> shift), threads, [&](size_t begin, size_t end, int) {
        for (size_t i = begin; i < end; ++i) node(i, 1);
      });
    } else {
      for (uint64_t i = 0; i < count; ++i) node(i, threads);
    }
    if (level + 1 < s.depth) below.swap(here);
  }
}

// A node's moments summed as the level-by-level build sums them (each leaf over its corners, each parent its
// children's, left then right), so the axes come out the same bits; read from `top` where it holds them.
NodeMoments subtree_moments(const F12Mesh& mesh, uint32_t level, uint64_t i, const Dvec3& origin,
                            const TopNodeMoments* top) {
  const F12Shape& s = mesh.shape;
  if (top != nullptr && level < top->levels) return top->at[f12_node(level, i)];
  if (level == s.depth) return leaf_moments(mesh, i, origin);
  NodeMoments m = subtree_moments(mesh, level + 1, 2 * i, origin, top);
  m.add(subtree_moments(mesh, level + 1, 2 * i + 1, origin, top));
  return m;
}

// A node's box (its axes set) finished from its vertices, and its reaches: a large node is scanned in parts on
// every thread, as the level-by-level build scans its top levels.
void finish_shape(const F12Mesh& mesh, uint64_t node, const NodeVertexBlocks* blocks, int threads, OrientedBox& box,
                  DopReaches& reaches) {
  const uint32_t level = f12_level(node);
  const uint64_t i = node - ((1ull << level) - 1);
  const NodeVertices vertices(mesh, blocks);
  const uint64_t parts = scan_parts(vertices, level, threads);
  const uint32_t first = f12_node_slots(mesh.shape, level, i).first;
  finish_node<true>(vertices, level, i, dload(mesh.corners.data() + 9ull * first), parts, threads, box, &reaches);
}

}  // namespace

TopNodeMoments top_node_moments(const F12Mesh& mesh, uint64_t min_triangles, int threads) {
  const F12Shape& s = mesh.shape;
  TopNodeMoments top;
  uint32_t last = 0;
  while (last < s.depth && (static_cast<uint64_t>(s.triangles) >> (last + 1)) >= min_triangles) ++last;
  if ((static_cast<uint64_t>(s.triangles) >> last) < min_triangles) return top;
  top.at.resize(f12_node_count({s.triangles, last}));
  // The last level's nodes from their subtrees on the threads, then each level above from the one below.
  const Dvec3 origin = dload(mesh.corners.data());
  parallel_blocks(1ull << last, 1, threads, [&](size_t begin, size_t end, int) {
    for (size_t i = begin; i < end; ++i) top.at[f12_node(last, i)] = subtree_moments(mesh, last, i, origin, nullptr);
  });
  for (uint32_t level = last; level-- > 0;)
    for (uint64_t i = 0; i < (1ull << level); ++i) {
      NodeMoments m = top.at[f12_node(level + 1, 2 * i)];
      m.add(top.at[f12_node(level + 1, 2 * i + 1)]);
      top.at[f12_node(level, i)] = m;
    }
  top.levels = last + 1;
  return top;
}

void oriented_shape_of(const F12Mesh& mesh, uint64_t node, int threads, const TopNodeMoments* top,
                       const NodeVertexBlocks* blocks, const Dvec3& origin, OrientedBox& box, DopReaches& reaches) {
  const uint32_t level = f12_level(node);
  const uint64_t i = node - ((1ull << level) - 1);
  // The moments: from `top`, or summed over the node's subtree (small where `top` holds the large nodes).
  node_axes(mesh, level, i, origin, [&] { return subtree_moments(mesh, level, i, origin, top); }, box);
  finish_shape(mesh, node, blocks, threads, box, reaches);
}

namespace {

// Axes from the moments of a strided sample of a node's triangles about its tight box's centre, which becomes the
// box's centre: any axes give a valid box (its extents are measured apart), and a few thousand triangles give
// nearly the principal ones of millions.
void sampled_axes(const F12Mesh& mesh, uint64_t node, const Box& tight, OrientedBox& box) {
  constexpr uint64_t kAxisSample = 1 << 12;
  const F12Slots slots = f12_node_slots(mesh.shape, node);
  const float* corners = mesh.corners.data();
  const uint64_t stride = std::max<uint64_t>(1, (slots.last - slots.first) / kAxisSample);
  for (int k = 0; k < 3; ++k) box.c[k] = static_cast<float>(0.5 * (static_cast<double>(tight.min[k]) + tight.max[k]));
  NodeMoments m;
  for (uint64_t slot = slots.first; slot < slots.last; slot += stride)
    for (int k = 0; k < 3; ++k) m.add(dsub(dload(corners + 9 * slot + 3 * k), fvec(box.c)));
  principal_box_axes(m, box);
}


}  // namespace

void oriented_shape_of_run(const F12Mesh& mesh, uint64_t node, const Box& tight, int threads, OrientedBox& box,
                           DopReaches& reaches) {
  const uint32_t level = f12_level(node);
  const uint64_t i = node - ((1ull << level) - 1);
  sampled_axes(mesh, node, tight, box);
  // One exact scan of the extents, and the reaches the box implies along the 26 directions (a direction's
  // extremes over the box bound the vertices').
  const NodeVertices vertices(mesh, nullptr);
  const uint64_t parts = scan_parts(vertices, level, threads);
  const Projections<false> about = project<false>(vertices, level, i, box, fvec(box.c), parts, threads);
  set_extents(about.lo, about.hi, box);
  Projections<true> implied;
  for (int j = 0; j < 3; ++j) implied.lo[j] = about.lo[j], implied.hi[j] = about.hi[j];
  for (int k = 0; k < Projections<true>::kHalf; ++k) {
    double lo = 0.0, hi = 0.0;
    for (int j = 0; j < 3; ++j) {
      const double a = kHalfDirections[k][j] * about.lo[j], b = kHalfDirections[k][j] * about.hi[j];
      lo += smaller(a, b), hi += larger(a, b);
    }
    implied.dir_lo[k] = lo, implied.dir_hi[k] = hi;
  }
  reaches = reaches_from(implied);
}

void oriented_shape_over_boxes(const F12Mesh& mesh, uint64_t node, const Box& tight, const Box* parts,
                               uint64_t part_count, OrientedBox& box, DopReaches& reaches) {
  sampled_axes(mesh, node, tight, box);
  const Dvec3 u[3] = {fvec(box.u[0]), fvec(box.u[1]), fvec(box.u[2])};
  const Dvec3 c = fvec(box.c);
  Projections<true> about;
  for (uint64_t p = 0; p < part_count; ++p)
    for (int corner = 0; corner < 8; ++corner) {
      const Box& b = parts[p];
      const float v[3] = {corner & 1 ? b.max[0] : b.min[0], corner & 2 ? b.max[1] : b.min[1],
                          corner & 4 ? b.max[2] : b.min[2]};
      about.add(dsub(dload(v), c), u);
    }
  set_extents(about.lo, about.hi, box);
  reaches = reaches_from(about);
}

void build_oriented_shapes(const F12Mesh& mesh, const NodeVertexBlocks* blocks, bool with_reaches, int threads,
                           const Progress& progress, const OrientedShapeSink& sink) {
  if (with_reaches) build_shapes<true>(mesh, blocks, threads, progress, sink);
  else build_shapes<false>(mesh, blocks, threads, progress, sink);
}

UninitLargeVector<OrientedBox> build_oriented_boxes(const F12Mesh& mesh, int threads, const Progress& progress) {
  UninitLargeVector<OrientedBox> boxes(f12_node_count(mesh.shape));  // every node's written by the build
  build_oriented_shapes(mesh, nullptr, false, threads, progress,
                        OrientedShapeSink{boxes.data(), sizeof(OrientedBox), nullptr, 0});
  return boxes;
}

}  // namespace xhd

namespace xhd {

// The pose's 3x3 part is orthogonal to within 1e-9 (a rigid motion, perhaps a reflection).
bool is_rigid(const double* pose) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const double dot = pose[i] * pose[j] + pose[4 + i] * pose[4 + j] + pose[8 + i] * pose[8 + j];
      if (std::fabs(dot - (i == j ? 1.0 : 0.0)) > 1e-9) return false;
    }
  return true;
}

}  // namespace xhd
