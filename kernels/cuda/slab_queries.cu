#include "slab_queries.h"

#include <algorithm>
#include <stdexcept>

#include <cub/device/device_select.cuh>

#include "cuda_check.h"
#include "launch.h"
#include "ordered_float.cuh"

namespace xhd {
namespace {

// CUB counts items in int: the grid's points are selected in pieces below that.
constexpr uint64_t kSelectPiece = uint64_t(1) << 30;

constexpr int kBoxThreads = 256;

// Each thread's box of its points, reduced over the warp, then into the six words by integer atomics on the
// floats' ordered images (ordered_float.cuh): min x, y, z, then max x, y, z.
__global__ void box_kernel(const float4* points, uint64_t n, int* words) {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint64_t k = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; k < n; k += uint64_t(gridDim.x) * blockDim.x) {
    const float4 p = points[k];
    const float c[3] = {p.x, p.y, p.z};
    for (int d = 0; d < 3; ++d) {
      lo[d] = fminf(lo[d], c[d]);
      hi[d] = fmaxf(hi[d], c[d]);
    }
  }
  for (int offset = 16; offset > 0; offset /= 2)
    for (int d = 0; d < 3; ++d) {
      lo[d] = fminf(lo[d], __shfl_down_sync(0xffffffffu, lo[d], offset));
      hi[d] = fmaxf(hi[d], __shfl_down_sync(0xffffffffu, hi[d], offset));
    }
  if ((threadIdx.x & 31) != 0) return;
  for (int d = 0; d < 3; ++d) {
    atomicMin(&words[d], float_to_ordered(lo[d]));
    atomicMax(&words[3 + d], float_to_ordered(hi[d]));
  }
}

__global__ void box_start_kernel(int* words) {
  for (int d = 0; d < 3; ++d) {
    words[d] = float_to_ordered(INFINITY);
    words[3 + d] = float_to_ordered(-INFINITY);
  }
}

__global__ void box_floats_kernel(int* words) {
  for (int d = 0; d < 6; ++d) words[d] = __float_as_int(ordered_to_float(words[d]));
}

// A grid point's w holds its index in the part (device_grid.h).
struct InSlab {
  const uint8_t* flags;
  __device__ bool operator()(const float4& p) const { return flags[__float_as_uint(p.w)] != 0; }
};

}  // namespace

DeviceArray<float4> slab_queries(DeviceMemory& memory, const DeviceGrid& grid, const uint8_t* in_slab,
                                 uint64_t slab_count, cudaStream_t stream) {
  const uint64_t n = grid.count;
  DeviceArray<float4> queries(memory, std::max<uint64_t>(slab_count, 1));
  if (n == 0 || slab_count == 0) return queries;
  DeviceArray<int> piece_count(memory, 1);
  const InSlab select{in_slab};
  size_t scratch_bytes = 0;
  XHD_CUDA(cub::DeviceSelect::If(nullptr, scratch_bytes, grid.points.get(), queries.get(), piece_count.get(),
                                 static_cast<int>(std::min(n, kSelectPiece)), select, stream));
  DeviceArray<uint8_t> scratch(memory, std::max<size_t>(scratch_bytes, 1));
  uint64_t written = 0;
  for (uint64_t begin = 0; begin < n; begin += kSelectPiece) {
    const int items = static_cast<int>(std::min(kSelectPiece, n - begin));
    XHD_CUDA(cub::DeviceSelect::If(scratch.get(), scratch_bytes, grid.points.get() + begin, queries.get() + written,
                                   piece_count.get(), items, select, stream));
    int got = 0;
    XHD_CUDA(cudaMemcpyAsync(&got, piece_count.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
    XHD_CUDA(cudaStreamSynchronize(stream));
    written += static_cast<uint64_t>(got);
    if (written > slab_count) break;
  }
  if (written != slab_count) throw std::runtime_error("slab queries: the selection disagrees with the count");
  return queries;
}

Box points_box(DeviceMemory& memory, const float4* points, uint64_t n, cudaStream_t stream) {
  DeviceArray<int> words(memory, 6);
  box_start_kernel<<<1, 1, 0, stream>>>(words.get());
  XHD_CUDA_LAUNCHED("box_start_kernel");
  if (n > 0) {
    const unsigned blocks = std::min<unsigned>(blocks_for(n, kBoxThreads), 4096);
    box_kernel<<<blocks, kBoxThreads, 0, stream>>>(points, n, words.get());
    XHD_CUDA_LAUNCHED("box_kernel");
  }
  box_floats_kernel<<<1, 1, 0, stream>>>(words.get());
  XHD_CUDA_LAUNCHED("box_floats_kernel");
  Box box{};
  static_assert(sizeof(Box) == 6 * sizeof(float), "a Box is six floats");
  XHD_CUDA(cudaMemcpyAsync(&box, words.get(), sizeof(Box), cudaMemcpyDeviceToHost, stream));
  XHD_CUDA(cudaStreamSynchronize(stream));
  return box;
}

}  // namespace xhd
