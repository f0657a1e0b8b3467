#include "device_grid.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "cell_starts.cuh"
#include "cuda_check.h"
#include "grid_sizing.h"
#include "launch.h"
#include "ordered_float.cuh"
#include "phase_log.h"

namespace xhd {
namespace {

constexpr int kThreads = 256;
constexpr uint32_t kSizingSample = 4096;

// Empty encoded boxes: mins at the top of the integer range, maxes at the bottom.
__global__ void init_encoded_boxes(int* boxes, uint32_t count) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  for (int i = 0; i < 3; ++i) {
    boxes[6ull * k + i] = INT_MAX;
    boxes[6ull * k + 3 + i] = INT_MIN;
  }
}

__global__ void gather_sample(const float* xyz, uint64_t stride, uint32_t count, float* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  for (int k = 0; k < 3; ++k) out[3ull * i + k] = xyz[3 * stride * i + k];
}

__global__ void bounds_kernel(const float* xyz, uint32_t n, int* out) {
  float lo[3] = {3.4e38f, 3.4e38f, 3.4e38f}, hi[3] = {-3.4e38f, -3.4e38f, -3.4e38f};
  for (uint32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < n; p += gridDim.x * blockDim.x)
    for (int i = 0; i < 3; ++i) {
      const float v = xyz[3ull * p + i];
      lo[i] = fminf(lo[i], v);
      hi[i] = fmaxf(hi[i], v);
    }
  for (int i = 0; i < 3; ++i)
    for (int o = 16; o > 0; o >>= 1) {
      lo[i] = fminf(lo[i], __shfl_down_sync(0xffffffffu, lo[i], o));
      hi[i] = fmaxf(hi[i], __shfl_down_sync(0xffffffffu, hi[i], o));
    }
  if ((threadIdx.x & 31) == 0)
    for (int i = 0; i < 3; ++i) {
      atomicMin(&out[i], float_to_ordered(lo[i]));
      atomicMax(&out[3 + i], float_to_ordered(hi[i]));
    }
}

// Cell key of every point, and its rank among the points of its cell (the counting sort's slot).
__global__ void count_cells(const float* xyz, uint32_t n, GridFrame f, uint32_t* keys, uint32_t* ranks,
                            uint32_t* counts) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  const uint32_t key = f.key_of_point(xyz[3ull * p], xyz[3ull * p + 1], xyz[3ull * p + 2]);
  keys[p] = key;
  ranks[p] = atomicAdd(&counts[key], 1u);
}

__global__ void scatter_points(const float* xyz, uint32_t n, uint32_t index_base, const uint32_t* keys,
                               const uint32_t* ranks, const uint32_t* cell_start, float4* out) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  out[cell_start[keys[p]] + ranks[p]] =
      make_float4(xyz[3ull * p], xyz[3ull * p + 1], xyz[3ull * p + 2], __uint_as_float(p + index_base));
}

// MBRs of the level-1 nodes (blocks of 2^fanout_bits cells) from the sorted points: lanes holding the
// same node are adjacent, so each node's lanes reduce among themselves and one lane per node and warp
// does the atomics (on order-preserving integer images of the floats).
__global__ void level1_boxes(const float4* points, uint32_t n, GridFrame f, int* boxes) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  const bool live = p < n;
  const float4 q = live ? points[p] : make_float4(0.f, 0.f, 0.f, 0.f);
  const uint32_t node = live ? (f.key_of_point(q.x, q.y, q.z) >> f.fanout_bits) : 0xffffffffu;
  const unsigned lane = threadIdx.x & 31;
  const unsigned peers = __match_any_sync(0xffffffffu, node);
  float v[6] = {q.x, q.y, q.z, q.x, q.y, q.z};
  for (int o = 1; o < 32; o <<= 1) {
    const bool take = lane + o < 32 && ((peers >> (lane + o)) & 1u);
    for (int i = 0; i < 6; ++i) {
      const float other = __shfl_down_sync(0xffffffffu, v[i], o);
      if (take) v[i] = i < 3 ? fminf(v[i], other) : fmaxf(v[i], other);
    }
  }
  if (!live || static_cast<unsigned>(__ffs(peers) - 1) != lane) return;
  int* b = boxes + 6ull * node;
  for (int i = 0; i < 3; ++i) {
    atomicMin(&b[i], float_to_ordered(v[i]));
    atomicMax(&b[3 + i], float_to_ordered(v[3 + i]));
  }
}

__global__ void decode_boxes(int* boxes, uint32_t count) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  int* b = boxes + 6ull * k;
  Box out;
  if (b[0] == INT_MAX) {
    box_make_empty(out);
  } else {
    for (int i = 0; i < 3; ++i) {
      out.min[i] = ordered_to_float(b[i]);
      out.max[i] = ordered_to_float(b[3 + i]);
    }
  }
  reinterpret_cast<Box*>(boxes)[k] = out;
}

__global__ void merge_level(Box* nodes, uint32_t child_offset, uint32_t child_count, uint32_t offset, uint32_t count,
                            int fanout_bits) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  Box b;
  box_make_empty(b);
  const uint32_t first = k << fanout_bits;
  const uint32_t last = min(first + (1u << fanout_bits), child_count);
  for (uint32_t c = first; c < last; ++c) {
    const Box child = nodes[child_offset + c];
    if (!box_is_empty(child)) box_merge(b, child);
  }
  nodes[offset + k] = b;
}

float host_ordered_to_float(int i) {
  const int bits = i >= 0 ? i : i ^ 0x7fffffff;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

}  // namespace

GridView DeviceGrid::view() const {
  GridView v{};
  v.frame = frame;
  v.points = points.get();
  v.cell_start = cell_start.get();
  v.nodes = nodes.get();
  for (size_t j = 0; j < level_offset.size() && j < 28; ++j) v.level_offset[j] = level_offset[j];
  v.count = count;
  return v;
}

uint64_t grid_build_bytes(uint64_t n, uint64_t max_cells) {
  // float4 points, keys + ranks (temporary), counts + cell_start, tree nodes (under 1/7 of the cells
  // for fanout 8, 1/3 for fanout 4, 1 for fanout 2), scan scratch.
  return 16 * n + 8 * n + 8 * (max_cells + 1) + 24 * max_cells + (1u << 20);
}

GridInput survey_points(DeviceMemory& memory, const float* xyz, uint32_t n, uint32_t index_base, cudaStream_t stream) {
  GridInput in;
  in.xyz = xyz;
  in.count = n;
  in.index_base = index_base;
  const uint32_t sample_count = std::min(n, kSizingSample);
  // One device buffer for both answers: six encoded bounds, then the sample.
  DeviceArray<float> found(memory, 6 + 3ull * sample_count);
  int* encoded = reinterpret_cast<int*>(found.get());
  const int init[6] = {INT_MAX, INT_MAX, INT_MAX, INT_MIN, INT_MIN, INT_MIN};
  XHD_CUDA(cudaMemcpyAsync(encoded, init, sizeof(init), cudaMemcpyHostToDevice, stream));
  bounds_kernel<<<std::min(blocks_for(n, kThreads), 1024u), kThreads, 0, stream>>>(xyz, n, encoded);
  XHD_CUDA_LAUNCHED("bounds_kernel");
  gather_sample<<<blocks_for(sample_count, kThreads), kThreads, 0, stream>>>(xyz, n / sample_count, sample_count,
                                                                             found.get() + 6);
  XHD_CUDA_LAUNCHED("gather_sample");
  std::vector<float> host(found.size());
  XHD_CUDA(cudaMemcpyAsync(host.data(), found.get(), 4 * host.size(), cudaMemcpyDeviceToHost, stream));
  XHD_CUDA(cudaStreamSynchronize(stream));
  for (int i = 0; i < 3; ++i) {
    int lo, hi;
    std::memcpy(&lo, &host[i], sizeof(int));
    std::memcpy(&hi, &host[3 + i], sizeof(int));
    in.bounds.min[i] = host_ordered_to_float(lo);
    in.bounds.max[i] = host_ordered_to_float(hi);
  }
  in.sample.assign(host.begin() + 6, host.end());
  return in;
}

namespace {

// The counting sort of n raw points into the cells of g.frame: g.cell_start and g.points (w: the original index).
void sort_into_cells(DeviceMemory& memory, const float* xyz, uint32_t n, uint32_t index_base, cudaStream_t stream,
                     DeviceGrid& g) {
  const GridFrame& f = g.frame;
  const uint32_t cells = f.cell_count();
  DeviceArray<uint32_t> keys(memory, n), ranks(memory, n), counts(memory, cells + 1ull);
  XHD_CUDA(cudaMemsetAsync(counts.get(), 0, (cells + 1ull) * sizeof(uint32_t), stream));
  count_cells<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(xyz, n, f, keys.get(), ranks.get(), counts.get());
  XHD_CUDA_LAUNCHED("count_cells");
  g.cell_start = DeviceArray<uint32_t>(memory, cells + 1ull);
  cell_starts(memory, counts.get(), g.cell_start.get(), cells + 1ull, stream);
  g.points = DeviceArray<float4>(memory, n);
  scatter_points<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(xyz, n, index_base, keys.get(), ranks.get(),
                                                                   g.cell_start.get(), g.points.get());
  XHD_CUDA_LAUNCHED("scatter_points");
}

}  // namespace

DeviceGrid order_in_frame(DeviceMemory& memory, const float* xyz, uint32_t n, uint32_t index_base, const GridFrame& frame,
                          cudaStream_t stream) {
  DeviceGrid g;
  g.frame = frame;
  g.count = n;
  sort_into_cells(memory, xyz, n, index_base, stream, g);
  return g;
}

DeviceGrid build_device_grid(DeviceMemory& memory, const GridInput& input, const GridPlan& plan, cudaStream_t stream) {
  PhaseLog log(stream);
  const float* xyz = input.xyz;
  const uint32_t n = input.count;
  GridRequest request{};
  for (int i = 0; i < 3; ++i) {
    request.min[i] = input.bounds.min[i];
    request.max[i] = input.bounds.max[i];
  }
  request.count = n;
  request.sample = input.sample.data();
  request.sample_count = input.sample.size() / 3;
  request.cost_ratio = plan.cost_ratio;
  request.radius = plan.radius;
  request.cell_size = plan.cell_size;

  DeviceGrid g;
  g.frame = choose_grid_frame(request);
  g.bounds = input.bounds;
  g.count = n;
  const GridFrame& f = g.frame;
  const uint32_t cells = f.cell_count();
  log.mark("grid sizing (model, host)");

  sort_into_cells(memory, xyz, n, input.index_base, stream, g);

  log.mark("grid counting sort");
  g.level_offset.assign(f.levels + 1, 0);
  uint64_t total_nodes = 0;
  for (int j = 1; j <= f.levels; ++j) {
    g.level_offset[j] = static_cast<uint32_t>(total_nodes);
    total_nodes += f.level_count(j);
  }
  if (f.levels >= 1) {
    g.nodes = DeviceArray<Box>(memory, total_nodes);
    const uint32_t level1 = f.level_count(1);
    int* raw = reinterpret_cast<int*>(g.nodes.get());
    init_encoded_boxes<<<blocks_for(level1, kThreads), kThreads, 0, stream>>>(raw, level1);
    XHD_CUDA_LAUNCHED("init_encoded_boxes");
    level1_boxes<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(g.points.get(), n, f, raw);
    XHD_CUDA_LAUNCHED("level1_boxes");
    decode_boxes<<<blocks_for(level1, kThreads), kThreads, 0, stream>>>(raw, level1);
    XHD_CUDA_LAUNCHED("decode_boxes");
    for (int j = 2; j <= f.levels; ++j) {
      merge_level<<<blocks_for(f.level_count(j), kThreads), kThreads, 0, stream>>>(
          g.nodes.get(), g.level_offset[j - 1], f.level_count(j - 1), g.level_offset[j], f.level_count(j),
          f.fanout_bits);
      XHD_CUDA_LAUNCHED("merge_level");
    }
  }
  log.mark("grid node MBRs");
  return g;
}

}  // namespace xhd
