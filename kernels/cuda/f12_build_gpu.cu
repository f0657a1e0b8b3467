#include "f12_build_gpu.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../abi/progress.h"
#include "../geometry/principal_axes.h"
#include "cuda_check.h"
#include "launch.h"
#include "ordered_float.cuh"
#include "phase_log.h"

namespace xhd {
namespace {

constexpr int kThreads = 256;

// ---- The kd order (f12_bvh.cpp's triangle_kd_order) ----
//
// The host splits each node's run where the f12 layout puts its children's boundary, along the longest side of
// its centroids' box, by the key (coordinate, triangle index). Here every triangle is sorted once along each
// axis by that key; a level's split then takes each node's first `middle - first` triangles along its axis, and
// the three sorted runs are partitioned stably into the halves, so each half's runs stay sorted for the next
// level. The halves are the same sets as the host's (no two keys are equal), so every level, and the leaves, are.

// The split key's coordinate part (f12_bvh.cpp's split_key): the float's bits in the floats' order, -0 as +0.
__device__ uint32_t ordered_bits(float v) {
  if (v == 0.0f) v = 0.0f;
  const uint32_t u = __float_as_uint(v);
  return (u & 0x80000000u) != 0 ? ~u : (u | 0x80000000u);
}

// Every triangle's centroid as f12_centroids computes it ((a + b) + c, then / 3, each rounded to float), its
// three keys, and its index (the sort's values).
__global__ void centroid_kernel(const float* xyz, const uint32_t* triangles, uint64_t n, float* centroid,
                                uint32_t* keys, uint32_t* index) {
  const uint64_t t = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  if (t >= n) return;
  const uint32_t* v = triangles + 3 * t;
  for (int i = 0; i < 3; ++i) {
    const float c =
        __fdiv_rn(__fadd_rn(__fadd_rn(xyz[3ull * v[0] + i], xyz[3ull * v[1] + i]), xyz[3ull * v[2] + i]), 3.f);
    centroid[i * n + t] = c;
    keys[i * n + t] = ordered_bits(c);
  }
  index[t] = static_cast<uint32_t>(t);
}

// The node of `level` whose run holds slot p: the i with ⌊i·n / 2^level⌋ <= p < ⌊(i+1)·n / 2^level⌋.
__device__ uint64_t node_of_slot(const F12Shape& s, uint32_t level, uint64_t p) {
  return (((p + 1) << level) - 1) / s.triangles;
}

struct SortedRuns {
  uint32_t* at[3];  // the triangles along each axis, sorted within every node's run
};

// Each node's axis: the longest side of its centroids' box, whose ends are its runs' first and last.
__global__ void split_axis_kernel(F12Shape s, uint32_t level, SortedRuns runs, const float* centroid,
                                  uint8_t* axis_of) {
  const uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= (1ull << level)) return;
  const F12Slots slots = f12_node_slots(s, level, i);
  float lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = centroid[a * static_cast<uint64_t>(s.triangles) + runs.at[a][slots.first]];
    hi[a] = centroid[a * static_cast<uint64_t>(s.triangles) + runs.at[a][slots.last - 1]];
  }
  int axis = 0;  // as f12_bvh.cpp's longest_axis
  for (int j = 1; j < 3; ++j)
    if (__fsub_rn(hi[j], lo[j]) > __fsub_rn(hi[axis], lo[axis])) axis = j;
  axis_of[i] = static_cast<uint8_t>(axis);
}

// Which half each triangle goes to: along its node's axis, the first middle - first go first.
__global__ void split_side_kernel(F12Shape s, uint32_t level, SortedRuns runs, const uint8_t* axis_of,
                                  uint8_t* first_half) {
  const uint64_t p = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  if (p >= s.triangles) return;
  const uint64_t i = node_of_slot(s, level, p);
  const uint32_t middle = f12_node_slots(s, level + 1, 2 * i + 1).first;
  first_half[runs.at[axis_of[i]][p]] = p < middle ? 1 : 0;
}

__global__ void side_counts_kernel(uint64_t n, SortedRuns runs, const uint8_t* first_half, uint32_t* counts) {
  const uint64_t p = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  if (p >= n) return;
  for (int a = 0; a < 3; ++a) counts[a * n + p] = first_half[runs.at[a][p]];
}

// The stable partition of each run: a triangle's place in its half from the running count of first-half ones.
__global__ void partition_kernel(F12Shape s, uint32_t level, SortedRuns runs, const uint8_t* first_half,
                                 const uint32_t* before, SortedRuns out) {
  const uint64_t p = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  const uint64_t n = s.triangles;
  if (p >= n) return;
  const uint64_t i = node_of_slot(s, level, p);
  const uint32_t first = f12_node_slots(s, level, i).first, middle = f12_node_slots(s, level + 1, 2 * i + 1).first;
  for (int a = 0; a < 3; ++a) {
    const uint32_t t = runs.at[a][p];
    const uint32_t ahead = before[a * n + p] - before[a * n + first];  // first-half ones before p in the run
    out.at[a][first_half[t] ? first + ahead : middle + (p - first - ahead)] = t;
  }
}

// A leaf's two triangles in index order (f12_bvh.cpp's last step).
__global__ void leaf_order_kernel(F12Shape s, uint32_t* order) {
  const uint64_t leaf = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  if (leaf >= (1ull << s.depth)) return;
  const uint32_t first = f12_leaf_first(s, leaf), last = f12_leaf_first(s, leaf + 1);
  if (last - first == 2 && order[first] > order[first + 1]) {
    const uint32_t t = order[first];
    order[first] = order[first + 1];
    order[first + 1] = t;
  }
}

// Each slot's corners from the vertices: the float copy's (the tree's corners) or the input's doubles (the truth).
template <typename T>
__global__ void gather_corners_kernel(const T* xyz, const uint32_t* triangles, const uint32_t* order, uint64_t n, T* corners) {
  const uint64_t slot = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  if (slot >= n) return;
  const uint32_t* v = triangles + 3ull * order[slot];
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 3; ++i) corners[9 * slot + 3 * k + i] = xyz[3ull * v[k] + i];
}

// ---- Tight boxes (f12_boxes) ----

__global__ void leaf_box_kernel(F12Shape s, const float* corners, Box* boxes) {
  const uint64_t leaf = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  if (leaf >= (1ull << s.depth)) return;
  Box box;
  box_make_empty(box);
  for (uint32_t slot = f12_leaf_first(s, leaf); slot < f12_leaf_first(s, leaf + 1); ++slot)
    for (int k = 0; k < 3; ++k) box_grow(box, corners + 9ull * slot + 3 * k);
  boxes[f12_node(s.depth, leaf)] = box;
}

__global__ void level_box_kernel(Box* boxes, uint32_t level) {
  const uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= (1ull << level)) return;
  Box box = boxes[f12_node(level + 1, 2 * i)];
  box_merge(box, boxes[f12_node(level + 1, 2 * i + 1)]);
  boxes[f12_node(level, i)] = box;
}

// ---- Oriented boxes ----

// First and second moments of a node's corners (every corner of its triangles) about the mesh's first corner.
struct Moments {
  double n, s[3], ss[6];  // ss: xx, xy, xz, yy, yz, zz
};

__device__ void covariance_of(const Moments& m, double cov[3][3]) {
  const int at[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) cov[i][j] = m.ss[at[i][j]] - m.s[i] * m.s[j] / m.n;
}

// The leaves' moments and axes (principal_axes.h: from the first triangle, else the moments').
__global__ void leaf_axes_kernel(F12Shape s, const float* corners, Moments* moments, OrientedBox* oriented) {
  const uint64_t leaf = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  if (leaf >= (1ull << s.depth)) return;
  const Dvec3 origin = dload(corners);
  Moments m{};
  for (uint64_t v = 3ull * f12_leaf_first(s, leaf); v < 3ull * f12_leaf_first(s, leaf + 1); ++v) {
    const Dvec3 p = dsub(dload(corners + 3 * v), origin);
    const double q[3] = {p.x, p.y, p.z};
    m.n += 1.0;
    for (int i = 0, k = 0; i < 3; ++i) {
      m.s[i] += q[i];
      for (int j = i; j < 3; ++j) m.ss[k++] += q[i] * q[j];
    }
  }
  moments[leaf] = m;
  OrientedBox& box = oriented[f12_node(s.depth, leaf)];
  if (triangle_axes(corners + 9ull * f12_leaf_first(s, leaf), box)) return;
  double cov[3][3];
  covariance_of(m, cov);
  covariance_axes(cov, box);
}

// A level's moments from its children's (below), and its nodes' principal axes.
__global__ void node_axes_kernel(uint32_t level, const Moments* below, Moments* moments, OrientedBox* oriented) {
  const uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= (1ull << level)) return;
  Moments m = below[2 * i];
  const Moments& o = below[2 * i + 1];
  m.n += o.n;
  for (int k = 0; k < 3; ++k) m.s[k] += o.s[k];
  for (int k = 0; k < 6; ++k) m.ss[k] += o.ss[k];
  moments[i] = m;
  double cov[3][3];
  covariance_of(m, cov);
  covariance_axes(cov, oriented[f12_node(level, i)]);
}

// The directions a node's corners are projected on: its box's three axes, or (kDops) the half of the DOP's 26
// directions s0·u0 + s1·u1 + s2·u2 (oriented_dop.h) whose slot is past the centre's: direction t is slot 14 + t, its
// opposite slot 12 - t, and axis j's own is t = dop_face(j) - 1. Only a build asked for DOPs pays for the ten more.
template <bool kDops>
constexpr int kDirections = kDops ? 13 : 3;

template <bool kDops>
XHD_HD constexpr int axis_direction(int j) {
  return kDops ? dop_face(j) - 1 : j;
}

// A node's corners' least and largest projections on each direction, measured from its tight box's centre (as
// floats) in double, as ordered integers for the atomics.
struct Extremes {
  long long lo[kDirections<true>], hi[kDirections<true>];
};

__device__ Dvec3 box_centre(const Box& b) {
  return {0.5 * (static_cast<double>(b.min[0]) + b.max[0]), 0.5 * (static_cast<double>(b.min[1]) + b.max[1]),
          0.5 * (static_cast<double>(b.min[2]) + b.max[2])};
}

__global__ void clear_extremes_kernel(uint64_t count, Extremes* x) {
  const uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  for (int t = 0; t < kDirections<true>; ++t)
    x[i].lo[t] = double_to_ordered(INFINITY), x[i].hi[t] = double_to_ordered(-INFINITY);
}

// The directions' components from those along the axes (p): an axis's own direction is its value.
template <bool kDops>
__device__ void direction_values(const double p[3], double x[kDirections<kDops>]) {
#pragma unroll
  for (int t = 0; t < kDirections<kDops>; ++t) {
    const int slot = 14 + t, s0 = slot / 9 - 1, s1 = slot / 3 % 3 - 1, s2 = slot % 3 - 1;
    x[t] = kDops ? (s0 * p[0] + s1 * p[1]) + s2 * p[2] : p[t];
  }
}

template <bool kDops>
__device__ void project_slot(const float* corners, uint64_t slot, const OrientedBox& box, const Dvec3& o,
                             double lo[kDirections<kDops>], double hi[kDirections<kDops>]) {
  for (int k = 0; k < 3; ++k) {
    const Dvec3 d = dsub(dload(corners + 9 * slot + 3 * k), o);
    const double p[3] = {ddot(fvec(box.u[0]), d), ddot(fvec(box.u[1]), d), ddot(fvec(box.u[2]), d)};
    double x[kDirections<kDops>];
    direction_values<kDops>(p, x);
#pragma unroll
    for (int t = 0; t < kDirections<kDops>; ++t) lo[t] = fmin(lo[t], x[t]), hi[t] = fmax(hi[t], x[t]);
  }
}

// A node's centre and extents from its extremes, as oriented_box_build.cpp's set_extents does: the centre a float
// point in the middle of the projections on the axes, the extents measured from it (in double: the centre's
// rounding moves the projections by q), enlarged by 1e-12 and rounded up to float. Every corner v then has
// |u_j·(v - c)| <= e_j up to the double arithmetic's rounding, a few ulps of the node's size, which the searches'
// pruning slack (1e-12 of the coordinates) covers, as for the host's boxes. Then (kDops) its DOP's reaches from the
// same extremes moved to the centre, as the host's reaches_from makes them (with room for the double arithmetic,
// rounded up to whole units). Not the host's bits (its scan keeps other roundings): valid bounds.
template <bool kDops>
__device__ void finish_shape(const Dvec3& o, const double lo[kDirections<kDops>], const double hi[kDirections<kDops>],
                             OrientedBox& box, DopReaches* dop) {
  double c[3] = {o.x, o.y, o.z};
  for (int j = 0; j < 3; ++j) {
    const double mid = 0.5 * (lo[axis_direction<kDops>(j)] + hi[axis_direction<kDops>(j)]);
    for (int k = 0; k < 3; ++k) c[k] += mid * box.u[j][k];
  }
  for (int k = 0; k < 3; ++k) box.c[k] = static_cast<float>(c[k]);
  const Dvec3 shift = dsub(fvec(box.c), o);
  const double q[3] = {ddot(fvec(box.u[0]), shift), ddot(fvec(box.u[1]), shift), ddot(fvec(box.u[2]), shift)};
  for (int j = 0; j < 3; ++j) {
    const double e = fmax(hi[axis_direction<kDops>(j)] - q[j], q[j] - lo[axis_direction<kDops>(j)]);
    box.e[j] = nextafterf(static_cast<float>(e * (1.0 + 1e-12)), INFINITY);
  }
  if constexpr (kDops) {
    double moved[kDirections<kDops>], reach[kDopSlots];
    direction_values<kDops>(q, moved);
    reach[13] = 0.0;  // the centre: unused
    for (int t = 0; t < kDirections<kDops>; ++t) {
      const double high = hi[t] - moved[t], low = lo[t] - moved[t];
      const double room = 1e-12 * (fabs(high) + fabs(low));
      reach[14 + t] = high + room;
      reach[12 - t] = -low + room;
    }
    double radius2 = 0.0;
    for (int j = 0; j < 3; ++j) {
      const double e = fmax(reach[13 + dop_face(j)], reach[13 - dop_face(j)]);
      radius2 += e * e;
    }
    dop->r = nextafterf(static_cast<float>(sqrt(radius2) * (1.0 + 1e-6) + 1e-30), INFINITY);
    const double unit = dop_unit(dop->r);
    for (int k = 0; k < kDopSlots; ++k) {
      double steps = ceil(reach[k] / unit);  // rounded up: a reach never shrinks
      if (!(steps > 0.0)) steps = 0.0;       // a negative reach (or none) stored as 0: still an upper bound
      dop->h[k] = static_cast<uint16_t>(fmin(steps, 65535.0));
    }
  }
}

// Small nodes: a thread each, over every slot, finished at once.
template <bool kDops>
__global__ void node_shape_kernel(F12Shape s, uint32_t level, const float* corners, const Box* boxes,
                                  OrientedBox* oriented, DopReaches* dops) {
  const uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= (1ull << level)) return;
  const uint64_t node = f12_node(level, i);
  OrientedBox box = oriented[node];
  const Dvec3 o = box_centre(boxes[node]);
  double lo[kDirections<kDops>], hi[kDirections<kDops>];
  for (int t = 0; t < kDirections<kDops>; ++t) lo[t] = INFINITY, hi[t] = -INFINITY;
  const F12Slots slots = f12_node_slots(s, level, i);
  for (uint64_t slot = slots.first; slot < slots.last; ++slot) project_slot<kDops>(corners, slot, box, o, lo, hi);
  finish_shape<kDops>(o, lo, hi, box, kDops ? dops + node : nullptr);
  oriented[node] = box;
}

// Large nodes: a warp for each piece of at most `span` slots, merged by atomics.
template <bool kDops>
__global__ void piece_extremes_kernel(F12Shape s, uint32_t level, uint64_t pieces_per_node, const float* corners,
                                      const Box* boxes, const OrientedBox* oriented, Extremes* x) {
  const uint64_t warp = (blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x & 31;
  if (warp >= (pieces_per_node << level)) return;  // whole warps leave together
  const uint64_t i = warp / pieces_per_node, piece = warp % pieces_per_node;
  const uint64_t node = f12_node(level, i);
  const OrientedBox box = oriented[node];
  const Dvec3 o = box_centre(boxes[node]);
  const F12Slots slots = f12_node_slots(s, level, i);
  const uint64_t size = slots.last - slots.first;
  const uint64_t begin = slots.first + size * piece / pieces_per_node,
                 end = slots.first + size * (piece + 1) / pieces_per_node;
  double lo[kDirections<kDops>], hi[kDirections<kDops>];
  for (int t = 0; t < kDirections<kDops>; ++t) lo[t] = INFINITY, hi[t] = -INFINITY;
  for (uint64_t slot = begin + lane; slot < end; slot += 32) project_slot<kDops>(corners, slot, box, o, lo, hi);
  for (int t = 0; t < kDirections<kDops>; ++t)
    for (int d = 16; d > 0; d >>= 1) {
      lo[t] = fmin(lo[t], __shfl_down_sync(0xffffffffu, lo[t], d));
      hi[t] = fmax(hi[t], __shfl_down_sync(0xffffffffu, hi[t], d));
    }
  if (lane != 0) return;
  for (int t = 0; t < kDirections<kDops>; ++t) {
    atomicMin(&x[i].lo[t], double_to_ordered(lo[t]));
    atomicMax(&x[i].hi[t], double_to_ordered(hi[t]));
  }
}

// The large nodes finished from their pieces' extremes.
template <bool kDops>
__global__ void pieces_shape_kernel(uint32_t level, const Box* boxes, const Extremes* x, OrientedBox* oriented,
                                    DopReaches* dops) {
  const uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= (1ull << level)) return;
  const uint64_t node = f12_node(level, i);
  double lo[kDirections<kDops>], hi[kDirections<kDops>];
  for (int t = 0; t < kDirections<kDops>; ++t)
    lo[t] = ordered_to_double(x[i].lo[t]), hi[t] = ordered_to_double(x[i].hi[t]);
  OrientedBox box = oriented[node];
  finish_shape<kDops>(box_centre(boxes[node]), lo, hi, box, kDops ? dops + node : nullptr);
  oriented[node] = box;
}

// ---- The build ----

// Pieces of at most this many slots share one warp's scan of a large node.
constexpr uint64_t kPieceSlots = 2048;
// Nodes of at most this many slots are scanned by one thread.
constexpr uint64_t kThreadSlots = 24;

class Builder {
 public:
  Builder(DeviceMemory& memory, cudaStream_t stream, uint64_t n) : memory_(memory), s_(stream), n_(n) {}

  DeviceArray<uint32_t> kd_order(const float* xyz, const uint32_t* triangles, const F12Shape& shape) {
    DeviceArray<float> centroid(memory_, 3 * n_);
    DeviceArray<uint32_t> keys(memory_, 3 * n_), index(memory_, n_), sorted_keys(memory_, n_);
    DeviceArray<uint32_t> runs[3], spare[3];
    for (int a = 0; a < 3; ++a) runs[a] = DeviceArray<uint32_t>(memory_, n_), spare[a] = DeviceArray<uint32_t>(memory_, n_);
    centroid_kernel<<<blocks_for(n_, kThreads), kThreads, 0, s_>>>(xyz, triangles, n_, centroid.get(), keys.get(),
                                                                   index.get());
    XHD_CUDA_LAUNCHED("centroid_kernel");
    // A stable sort by the coordinate's bits keeps equal coordinates in index order: the key (coordinate, index).
    size_t bytes = 0;
    XHD_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys.get(), sorted_keys.get(), index.get(), runs[0].get(),
                                             static_cast<int>(n_), 0, 32, s_));
    DeviceArray<unsigned char> scratch(memory_, bytes);
    for (int a = 0; a < 3; ++a)
      XHD_CUDA(cub::DeviceRadixSort::SortPairs(scratch.get(), bytes, keys.get() + a * n_, sorted_keys.get(),
                                               index.get(), runs[a].get(), static_cast<int>(n_), 0, 32, s_));
    if (shape.depth > 0) {
      DeviceArray<uint8_t> axis_of(memory_, 1ull << (shape.depth - 1)), first_half(memory_, n_);
      DeviceArray<uint32_t> before(memory_, 3 * n_);
      size_t scan_bytes = 0;
      XHD_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, before.get(), before.get(), static_cast<int>(n_), s_));
      DeviceArray<unsigned char> scan_scratch(memory_, scan_bytes);
      for (uint32_t level = 0; level < shape.depth; ++level) {
        const SortedRuns in{{runs[0].get(), runs[1].get(), runs[2].get()}};
        const SortedRuns out{{spare[0].get(), spare[1].get(), spare[2].get()}};
        split_axis_kernel<<<blocks_for(1ull << level, kThreads), kThreads, 0, s_>>>(shape, level, in, centroid.get(),
                                                                                   axis_of.get());
        XHD_CUDA_LAUNCHED("split_axis_kernel");
        split_side_kernel<<<blocks_for(n_, kThreads), kThreads, 0, s_>>>(shape, level, in, axis_of.get(),
                                                                         first_half.get());
        XHD_CUDA_LAUNCHED("split_side_kernel");
        side_counts_kernel<<<blocks_for(n_, kThreads), kThreads, 0, s_>>>(n_, in, first_half.get(), before.get());
        XHD_CUDA_LAUNCHED("side_counts_kernel");
        // Each run's counts are read relative to its node's first slot. (A scan a run: older CUB counts items in int.)
        for (int a = 0; a < 3; ++a)
          XHD_CUDA(cub::DeviceScan::ExclusiveSum(scan_scratch.get(), scan_bytes, before.get() + a * n_,
                                                 before.get() + a * n_, static_cast<int>(n_), s_));
        partition_kernel<<<blocks_for(n_, kThreads), kThreads, 0, s_>>>(shape, level, in, first_half.get(),
                                                                        before.get(), out);
        XHD_CUDA_LAUNCHED("partition_kernel");
        for (int a = 0; a < 3; ++a) std::swap(runs[a], spare[a]);
      }
    }
    leaf_order_kernel<<<blocks_for(1ull << shape.depth, kThreads), kThreads, 0, s_>>>(shape, runs[0].get());
    XHD_CUDA_LAUNCHED("leaf_order_kernel");
    return std::move(runs[0]);
  }

  void oriented(const DeviceF12& t, OrientedBox* oriented, DopReaches* dops) {
    const F12Shape& s = t.shape;
    {  // Axes, leaves up; each level's moments kept only until its parents are summed, and freed before the extents.
      DeviceArray<Moments> moments[2] = {DeviceArray<Moments>(memory_, 1ull << s.depth),
                                         DeviceArray<Moments>(memory_, s.depth > 0 ? 1ull << (s.depth - 1) : 1)};
      leaf_axes_kernel<<<blocks_for(1ull << s.depth, kThreads), kThreads, 0, s_>>>(s, t.corners.get(),
                                                                                  moments[0].get(), oriented);
      XHD_CUDA_LAUNCHED("leaf_axes_kernel");
      for (uint32_t level = s.depth, at = 0; level-- > 0; at ^= 1) {
        node_axes_kernel<<<blocks_for(1ull << level, kThreads), kThreads, 0, s_>>>(level, moments[at].get(),
                                                                                  moments[at ^ 1].get(), oriented);
        XHD_CUDA_LAUNCHED("node_axes_kernel");
      }
    }
    if (dops != nullptr) shapes<true>(t, oriented, dops);
    else shapes<false>(t, oriented, nullptr);
  }

 private:
  // Extents (and, kDops, reaches), a level at a time (every level reads every corner once). Small nodes are
  // finished by their threads; only the levels of large nodes, whose pieces meet in atomics, keep extremes between
  // kernels.
  template <bool kDops>
  void shapes(const DeviceF12& t, OrientedBox* oriented, DopReaches* dops) {
    const F12Shape& s = t.shape;
    auto largest = [&](uint32_t level) { return (static_cast<uint64_t>(s.triangles) >> level) + 1; };
    uint64_t large_nodes = 1;  // the most nodes of a level of large ones
    for (uint32_t level = 0; level <= s.depth && largest(level) > kThreadSlots; ++level) large_nodes = 1ull << level;
    DeviceArray<Extremes> extremes(memory_, large_nodes);
    for (uint32_t level = 0; level <= s.depth; ++level) {
      const uint64_t nodes = 1ull << level;
      if (largest(level) <= kThreadSlots) {
        node_shape_kernel<kDops><<<blocks_for(nodes, kThreads), kThreads, 0, s_>>>(s, level, t.corners.get(),
                                                                                   t.boxes.get(), oriented, dops);
        XHD_CUDA_LAUNCHED("node_shape_kernel");
        continue;
      }
      clear_extremes_kernel<<<blocks_for(nodes, kThreads), kThreads, 0, s_>>>(nodes, extremes.get());
      XHD_CUDA_LAUNCHED("clear_extremes_kernel");
      const uint64_t pieces = (largest(level) + kPieceSlots - 1) / kPieceSlots;
      piece_extremes_kernel<kDops><<<blocks_for(32 * (pieces << level), kThreads), kThreads, 0, s_>>>(
          s, level, pieces, t.corners.get(), t.boxes.get(), oriented, extremes.get());
      XHD_CUDA_LAUNCHED("piece_extremes_kernel");
      pieces_shape_kernel<kDops><<<blocks_for(nodes, kThreads), kThreads, 0, s_>>>(level, t.boxes.get(), extremes.get(),
                                                                                   oriented, dops);
      XHD_CUDA_LAUNCHED("pieces_shape_kernel");
    }
  }

  DeviceMemory& memory_;
  cudaStream_t s_;
  uint64_t n_;
};

}  // namespace

void fit_f12_boxes(cudaStream_t stream, const F12Shape& shape, const float* corners, Box* boxes) {
  leaf_box_kernel<<<blocks_for(1ull << shape.depth, kThreads), kThreads, 0, stream>>>(shape, corners, boxes);
  XHD_CUDA_LAUNCHED("leaf_box_kernel");
  for (uint32_t level = shape.depth; level-- > 0;) {
    level_box_kernel<<<blocks_for(1ull << level, kThreads), kThreads, 0, stream>>>(boxes, level);
    XHD_CUDA_LAUNCHED("level_box_kernel");
  }
}

DeviceF12 build_f12_on_device(DeviceMemory& memory, cudaStream_t stream, const float* xyz, const uint32_t* triangles,
                              uint64_t triangle_count, bool with_oriented, bool with_dops) {
  DeviceF12 t;
  t.shape = f12_shape(static_cast<uint32_t>(triangle_count));
  Builder build(memory, stream, triangle_count);
  PhaseLog log(stream);
  log.mark("build: before");
  t.triangle = build.kd_order(xyz, triangles, t.shape);
  log.mark("build: kd order");
  t.corners = DeviceArray<float>(memory, 9 * triangle_count);
  gather_corners_kernel<float><<<blocks_for(triangle_count, kThreads), kThreads, 0, stream>>>(
      xyz, triangles, t.triangle.get(), triangle_count, t.corners.get());
  XHD_CUDA_LAUNCHED("gather_corners_kernel");
  t.boxes = DeviceArray<Box>(memory, f12_node_count(t.shape));
  fit_f12_boxes(stream, t.shape, t.corners.get(), t.boxes.get());
  log.mark("build: corners and boxes");
  if (with_oriented) {
    t.oriented = DeviceArray<OrientedBox>(memory, f12_node_count(t.shape));
    if (with_dops) t.dops = DeviceArray<DopReaches>(memory, f12_node_count(t.shape));
    build.oriented(t, t.oriented.get(), t.dops.get());
    log.mark("build: oriented boxes");
  }
  return t;
}

DeviceArray<double> device_truth_corners(DeviceMemory& memory, cudaStream_t stream, const DeviceF12& tree,
                                         const uint32_t* triangles, const double* xyz64) {
  const uint64_t n = tree.shape.triangles;
  DeviceArray<double> out(memory, 9 * n);
  gather_corners_kernel<double><<<blocks_for(n, kThreads), kThreads, 0, stream>>>(xyz64, triangles,
                                                                                 tree.triangle.get(), n, out.get());
  XHD_CUDA_LAUNCHED("gather_corners_kernel");
  return out;
}

namespace {

template <typename T>
std::vector<T> download(cudaStream_t stream, const T* device, uint64_t count) {
  std::vector<T> out(count);
  if (count > 0) XHD_CUDA(cudaMemcpyAsync(out.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
  XHD_CUDA(cudaStreamSynchronize(stream));
  return out;
}

bool same_box(const Box& x, const Box& y) {
  for (int k = 0; k < 3; ++k)
    if (__builtin_memcmp(&x.min[k], &y.min[k], sizeof(float)) != 0 || __builtin_memcmp(&x.max[k], &y.max[k], sizeof(float)) != 0)
      return false;
  return true;
}

}  // namespace

void check_device_tree(cudaStream_t stream, const DeviceF12& tree, const float* xyz, const uint32_t* triangles,
                       int threads) {
  const uint64_t n = tree.shape.triangles;
  const F12Mesh host = build_f12_mesh(xyz, triangles, n, threads, Progress(nullptr));
  const UninitLargeVector<Box> host_boxes = f12_boxes(host, threads);
  const std::vector<uint32_t> order = download(stream, tree.triangle.get(), n);
  const std::vector<Box> boxes = download(stream, tree.boxes.get(), f12_node_count(tree.shape));
  const std::vector<float> corners = download(stream, tree.corners.get(), 9 * n);
  auto fail = [](const std::string& what) { throw std::runtime_error("the GPU-built hierarchy: " + what); };
  for (uint64_t slot = 0; slot < n; ++slot)
    if (order[slot] != host.triangle[slot])
      fail("slot " + std::to_string(slot) + " holds triangle " + std::to_string(order[slot]) + ", the host's " +
           std::to_string(host.triangle[slot]));
  if (__builtin_memcmp(corners.data(), host.corners.data(), corners.size() * sizeof(float)) != 0)
    fail("corners differ from the host's");
  for (uint64_t node = 0; node < boxes.size(); ++node)
    if (!same_box(boxes[node], host_boxes[node])) fail("node " + std::to_string(node) + "'s box differs from the host's");
  if (tree.oriented.get() == nullptr) return;
  const std::vector<OrientedBox> oriented = download(stream, tree.oriented.get(), f12_node_count(tree.shape));
  const std::vector<DopReaches> dops =
      tree.dops.get() != nullptr ? download(stream, tree.dops.get(), f12_node_count(tree.shape)) : std::vector<DopReaches>();
  for (uint64_t node = 0; node < oriented.size(); ++node) {
    const OrientedBox& b = oriented[node];
    const F12Slots slots = f12_node_slots(tree.shape, node);
    for (uint64_t v = 3ull * slots.first; v < 3ull * slots.last; ++v) {
      const Dvec3 d = dsub(dload(corners.data() + 3 * v), fvec(b.c));
      // The double arithmetic's rounding, here and in the build, is a few ulps of the corner's distance from the
      // centre (a flat node's e is itself that small); the searches' pruning slack, 1e-12 of the coordinates,
      // is far larger.
      const double rounding = 1e-13 * (std::fabs(d.x) + std::fabs(d.y) + std::fabs(d.z));
      const double p[3] = {ddot(fvec(b.u[0]), d), ddot(fvec(b.u[1]), d), ddot(fvec(b.u[2]), d)};
      for (int j = 0; j < 3; ++j)
        if (!(std::fabs(p[j]) <= b.e[j] + rounding))
          fail("node " + std::to_string(node) + "'s oriented box leaves out a corner of slot " + std::to_string(v / 3));
      if (dops.empty()) continue;
      // Along each of the 26 directions s the corner reaches s·(v - c) = sum s_j p_j, within the stored reach.
      const DopReaches& dop = dops[node];
      for (int slot = 0; slot < kDopSlots; ++slot) {
        const int s0 = slot / 9 - 1, s1 = slot / 3 % 3 - 1, s2 = slot % 3 - 1;
        if (slot == 13) continue;
        const double along = s0 * p[0] + s1 * p[1] + s2 * p[2];
        if (!(along <= dop.h[slot] * dop_unit(dop.r) + 3 * rounding))
          fail("node " + std::to_string(node) + "'s DOP leaves out a corner of slot " + std::to_string(v / 3) +
               " along direction " + std::to_string(slot));
      }
      if (!(std::sqrt(ddot(d, d)) <= dop.r * (1 + 1e-6) + rounding))
        fail("node " + std::to_string(node) + "'s DOP radius leaves out a corner of slot " + std::to_string(v / 3));
    }
  }
}

}  // namespace xhd
