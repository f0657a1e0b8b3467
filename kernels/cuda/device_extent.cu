#include "device_extent.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../abi/validate.h"
#include "cuda_check.h"
#include "launch.h"

namespace xhd {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kMostBlocks = 2048;  // a grid-stride loop: a few blocks an SM, few atomics

// Floats as unsigned keys in the same order (negatives below positives, -0 below +0), so that the extent is
// found by unsigned atomic minima and maxima.
__device__ unsigned order_key(float f) {
  const unsigned u = __float_as_uint(f);
  return (u & 0x80000000u) != 0 ? ~u : (u | 0x80000000u);
}

float from_key(unsigned key) {
  const unsigned u = (key & 0x80000000u) != 0 ? (key ^ 0x80000000u) : ~key;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// words[0..2]: each axis's least key, [3..5] its largest, [6]: 1 where a coordinate breaks check_coordinates' rule.
__global__ void extent_kernel(const float* xyz, uint64_t n, unsigned* words) {
  unsigned lo[3] = {0xffffffffu, 0xffffffffu, 0xffffffffu}, hi[3] = {0, 0, 0}, bad = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    for (int k = 0; k < 3; ++k) {
      const float v = xyz[3 * i + k];
      bad |= !(fabs(static_cast<double>(v)) <= kMaxAbsCoordinate);
      const unsigned key = order_key(v);
      lo[k] = min(lo[k], key);
      hi[k] = max(hi[k], key);
    }
  for (int offset = 16; offset > 0; offset >>= 1) {
    for (int k = 0; k < 3; ++k) {
      lo[k] = min(lo[k], __shfl_down_sync(0xffffffffu, lo[k], offset));
      hi[k] = max(hi[k], __shfl_down_sync(0xffffffffu, hi[k], offset));
    }
    bad |= __shfl_down_sync(0xffffffffu, bad, offset);
  }
  if ((threadIdx.x & 31) != 0) return;
  for (int k = 0; k < 3; ++k) {
    atomicMin(&words[k], lo[k]);
    atomicMax(&words[3 + k], hi[k]);
  }
  if (bad != 0) atomicOr(&words[6], 1u);
}

}  // namespace

ScannedExtent scan_extent(const float* xyz, uint64_t n, cudaStream_t stream) {
  ScannedExtent out;
  if (n == 0) return out;
  void* memory = nullptr;
  XHD_CUDA(cudaMallocAsync(&memory, 7 * sizeof(unsigned), stream));
  unsigned* words = static_cast<unsigned*>(memory);
  XHD_CUDA(cudaMemsetAsync(words, 0xff, 3 * sizeof(unsigned), stream));
  XHD_CUDA(cudaMemsetAsync(words + 3, 0, 4 * sizeof(unsigned), stream));
  const unsigned blocks = std::min(blocks_for(n, kThreads), kMostBlocks);
  extent_kernel<<<blocks, kThreads, 0, stream>>>(xyz, n, words);
  XHD_CUDA_LAUNCHED("extent_kernel");
  unsigned host[7];
  XHD_CUDA(cudaMemcpyAsync(host, words, sizeof host, cudaMemcpyDeviceToHost, stream));
  XHD_CUDA(cudaFreeAsync(memory, stream));
  XHD_CUDA(cudaStreamSynchronize(stream));
  out.bad = host[6] != 0;
  for (int k = 0; k < 3; ++k) {
    out.extent.lo[k] = from_key(host[k]);
    out.extent.hi[k] = from_key(host[3 + k]);
  }
  return out;
}

}  // namespace xhd
