#include "surface_grid_build.h"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstring>

#include "cell_starts.cuh"
#include "cuda_check.h"
#include "launch.h"
#include "ordered_float.cuh"

namespace xhd {
namespace {

constexpr int kThreads = 256;

// Bounds as order-preserving ints (min x,y,z then max x,y,z) and the total area.
struct MeshExtent {
  int bounds[6];
  double area;
};

// Each warp reduces its triangles' bounds (rounded outward to float, as the host build's) and areas, then
// one lane folds them in with atomics.
__global__ void mesh_extent_kernel(TriangleGridView g, uint32_t count, MeshExtent* out) {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  double area = 0.0;
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < count; t += gridDim.x * blockDim.x) {
    const Corners c = grid_corners(g, t);
    const Dvec3 v[3] = {c.a, c.b, c.c};
    for (int j = 0; j < 3; ++j) {
      const float p[3] = {__double2float_rd(v[j].x), __double2float_rd(v[j].y), __double2float_rd(v[j].z)};
      const float q[3] = {__double2float_ru(v[j].x), __double2float_ru(v[j].y), __double2float_ru(v[j].z)};
      for (int k = 0; k < 3; ++k) {
        lo[k] = fminf(lo[k], p[k]);
        hi[k] = fmaxf(hi[k], q[k]);
      }
    }
    const Dvec3 n = dcross(dsub(c.b, c.a), dsub(c.c, c.a));
    area += 0.5 * sqrt(ddot(n, n));
  }
  for (int o = 16; o > 0; o >>= 1) {
    for (int k = 0; k < 3; ++k) {
      lo[k] = fminf(lo[k], __shfl_down_sync(0xffffffffu, lo[k], o));
      hi[k] = fmaxf(hi[k], __shfl_down_sync(0xffffffffu, hi[k], o));
    }
    area += __shfl_down_sync(0xffffffffu, area, o);
  }
  if ((threadIdx.x & 31) == 0) {
    for (int k = 0; k < 3; ++k) {
      atomicMin(&out->bounds[k], float_to_ordered(lo[k]));
      atomicMax(&out->bounds[3 + k], float_to_ordered(hi[k]));
    }
    atomicAdd(&out->area, area);
  }
}

// Σ over the triangles of the cells their widened boxes cover (grid_is_worthwhile decides on it).
__global__ void box_cells_kernel(TriangleGridView g, uint32_t count, unsigned long long* total) {
  unsigned long long cells = 0;
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < count; t += gridDim.x * blockDim.x)
    cells += crossed_box_cells(g, grid_corners(g, t));
  for (int o = 16; o > 0; o >>= 1) cells += __shfl_down_sync(0xffffffffu, cells, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(total, cells);
}

__global__ void count_crossings_kernel(TriangleGridView g, uint32_t count, uint32_t* counts) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count) return;
  for_each_crossed_cell(g, grid_corners(g, t), [&](uint64_t cell) { atomicAdd(&counts[cell], 1u); });
}

__global__ void fill_crossings_kernel(TriangleGridView g, uint32_t count, uint32_t* cursor, uint32_t* entries) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count) return;
  for_each_crossed_cell(g, grid_corners(g, t), [&](uint64_t cell) { entries[atomicAdd(&cursor[cell], 1u)] = t; });
}

// Key: the Morton code of the point's cell (clamped into the grid, 10 bits an axis).
__global__ void cell_morton_kernel(TriangleGridView g, PointTruth points, uint32_t count, uint32_t* keys,
                                   uint32_t* index) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  unsigned int q[3];
  for (int k = 0; k < 3; ++k) {
    const uint32_t cell = grid_axis_cell(g, k, points.coord(i, k));
    // Grids wider than 1024 cells keep the top 10 bits of the cell index.
    uint32_t shift = 0;
    while ((g.dims[k] - 1) >> shift >= 1024u) ++shift;
    q[k] = cell >> shift;
  }
  keys[i] = morton3_10(q[0], q[1], q[2]);
  index[i] = i;
}

}  // namespace

DeviceTriangleGrid build_device_triangle_grid(DeviceMemory& memory, PointTruth truth, const uint32_t* triangles,
                                              uint32_t triangle_count, const MeshBulk& bulk, cudaStream_t stream) {
  TriangleGridView reading{};
  reading.truth = truth;
  reading.triangles = triangles;
  DeviceArray<MeshExtent> extent(memory, 1);
  MeshExtent start;
  for (int k = 0; k < 3; ++k) {
    start.bounds[k] = 0x7fffffff;  // ordered +max
    start.bounds[3 + k] = -0x7fffffff - 1;
  }
  start.area = 0.0;
  XHD_CUDA(cudaMemcpyAsync(extent.get(), &start, sizeof(start), cudaMemcpyHostToDevice, stream));
  const unsigned reduce_blocks = std::min(blocks_for(triangle_count, kThreads), 1024u);
  mesh_extent_kernel<<<reduce_blocks, kThreads, 0, stream>>>(reading, triangle_count, extent.get());
  XHD_CUDA_LAUNCHED("mesh_extent_kernel");
  MeshExtent host;
  XHD_CUDA(cudaMemcpyAsync(&host, extent.get(), sizeof(host), cudaMemcpyDeviceToHost, stream));
  XHD_CUDA(cudaStreamSynchronize(stream));

  // The cells are sized on the host by the same function as the host build.
  Box bounds;
  for (int k = 0; k < 3; ++k) {
    const int lo = host.bounds[k], hi = host.bounds[3 + k];
    const int lo_bits = lo >= 0 ? lo : lo ^ 0x7fffffff, hi_bits = hi >= 0 ? hi : hi ^ 0x7fffffff;
    std::memcpy(&bounds.min[k], &lo_bits, sizeof(float));
    std::memcpy(&bounds.max[k], &hi_bits, sizeof(float));
  }
  TriangleGrid sizing;
  size_triangle_grid(sizing, bounds, host.area, triangle_count, bulk);
  DeviceTriangleGrid out;
  out.view = sizing.view();
  out.view.truth = truth;
  out.view.triangles = triangles;
  const uint64_t cells = static_cast<uint64_t>(sizing.dims[0]) * sizing.dims[1] * sizing.dims[2];

  {
    DeviceArray<unsigned long long> box_cells(memory, 1);
    XHD_CUDA(cudaMemsetAsync(box_cells.get(), 0, sizeof(unsigned long long), stream));
    box_cells_kernel<<<reduce_blocks, kThreads, 0, stream>>>(out.view, triangle_count, box_cells.get());
    XHD_CUDA_LAUNCHED("box_cells_kernel");
    unsigned long long host_cells = 0;
    XHD_CUDA(cudaMemcpyAsync(&host_cells, box_cells.get(), sizeof(host_cells), cudaMemcpyDeviceToHost, stream));
    XHD_CUDA(cudaStreamSynchronize(stream));
    if (!grid_is_worthwhile(host_cells, triangle_count)) {
      out.usable = false;
      return out;
    }
  }

  DeviceArray<uint32_t> counts(memory, cells + 1);
  XHD_CUDA(cudaMemsetAsync(counts.get(), 0, (cells + 1) * sizeof(uint32_t), stream));
  count_crossings_kernel<<<blocks_for(triangle_count, kThreads), kThreads, 0, stream>>>(out.view, triangle_count,
                                                                                        counts.get());
  XHD_CUDA_LAUNCHED("count_crossings_kernel");
  out.cell_start = DeviceArray<uint32_t>(memory, cells + 1);
  cell_starts(memory, counts.get(), out.cell_start.get(), cells + 1, stream);
  uint32_t total = 0;
  XHD_CUDA(cudaMemcpyAsync(&total, out.cell_start.get() + cells, sizeof(total), cudaMemcpyDeviceToHost, stream));
  XHD_CUDA(cudaStreamSynchronize(stream));
  out.entries = DeviceArray<uint32_t>(memory, total);
  // counts becomes the fill cursor: each cell's start, advanced as its triangles are written.
  XHD_CUDA(cudaMemcpyAsync(counts.get(), out.cell_start.get(), (cells + 1) * sizeof(uint32_t), cudaMemcpyDeviceToDevice,
                           stream));
  fill_crossings_kernel<<<blocks_for(triangle_count, kThreads), kThreads, 0, stream>>>(out.view, triangle_count,
                                                                                       counts.get(), out.entries.get());
  XHD_CUDA_LAUNCHED("fill_crossings_kernel");
  out.view.cell_start = out.cell_start.get();
  out.view.entries = out.entries.get();
  return out;
}

DeviceArray<uint32_t> device_query_order(DeviceMemory& memory, const TriangleGridView& grid, PointTruth points,
                                         uint32_t count, cudaStream_t stream) {
  DeviceArray<uint32_t> keys(memory, count), index(memory, count), sorted_keys(memory, count), order(memory, count);
  cell_morton_kernel<<<blocks_for(count, kThreads), kThreads, 0, stream>>>(grid, points, count, keys.get(),
                                                                           index.get());
  XHD_CUDA_LAUNCHED("cell_morton_kernel");
  size_t scratch_bytes = 0;
  XHD_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, scratch_bytes, keys.get(), sorted_keys.get(), index.get(),
                                           order.get(), count, 0, 30, stream));
  DeviceArray<unsigned char> scratch(memory, scratch_bytes);
  XHD_CUDA(cub::DeviceRadixSort::SortPairs(scratch.get(), scratch_bytes, keys.get(), sorted_keys.get(), index.get(),
                                           order.get(), count, 0, 30, stream));
  return order;
}

}  // namespace xhd
