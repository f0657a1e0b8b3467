#include "witness.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda_check.h"
#include "launch.h"

namespace xhd {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kBlocks = 512;

__device__ __forceinline__ void keep_better(double& d, uint32_t& i, double od, uint32_t oi) {
  if (od < d || (od == d && oi < i)) {
    d = od;
    i = oi;
  }
}

__global__ void nearest_kernel(const float4* targets, uint32_t count, double px, double py, double pz,
                               double* block_d, uint32_t* block_i) {
  __shared__ double sd[kThreads / 32];
  __shared__ uint32_t si[kThreads / 32];
  double best = 1.0 / 0.0;
  uint32_t index = 0xffffffffu;
  for (uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < count; j += gridDim.x * blockDim.x) {
    const float4 t = targets[j];
    const double dx = px - t.x, dy = py - t.y, dz = pz - t.z;
    keep_better(best, index, dx * dx + dy * dy + dz * dz, __float_as_uint(t.w));
  }
  for (int o = 16; o > 0; o >>= 1)
    keep_better(best, index, __shfl_down_sync(0xffffffffu, best, o), __shfl_down_sync(0xffffffffu, index, o));
  if ((threadIdx.x & 31) == 0) {
    sd[threadIdx.x >> 5] = best;
    si[threadIdx.x >> 5] = index;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kThreads / 32; ++w) keep_better(best, index, sd[w], si[w]);
    block_d[blockIdx.x] = best;
    block_i[blockIdx.x] = index;
  }
}

}  // namespace

Nearest nearest_in_double(DeviceMemory& memory, const float4* targets, uint32_t count, const float p[3],
                          cudaStream_t stream) {
  const unsigned blocks = std::min(kBlocks, blocks_for(count, kThreads));
  DeviceArray<double> d(memory, blocks);
  DeviceArray<uint32_t> i(memory, blocks);
  nearest_kernel<<<blocks, kThreads, 0, stream>>>(targets, count, p[0], p[1], p[2], d.get(), i.get());
  XHD_CUDA_LAUNCHED("nearest_kernel");
  std::vector<double> hd(blocks);
  std::vector<uint32_t> hi(blocks);
  XHD_CUDA(cudaMemcpyAsync(hd.data(), d.get(), blocks * sizeof(double), cudaMemcpyDeviceToHost, stream));
  XHD_CUDA(cudaMemcpyAsync(hi.data(), i.get(), blocks * sizeof(uint32_t), cudaMemcpyDeviceToHost, stream));
  XHD_CUDA(cudaStreamSynchronize(stream));
  double best = hd[0];
  uint32_t index = hi[0];
  for (unsigned b = 1; b < blocks; ++b)
    if (hd[b] < best || (hd[b] == best && hi[b] < index)) {
      best = hd[b];
      index = hi[b];
    }
  return {std::sqrt(best), static_cast<int64_t>(index)};
}

}  // namespace xhd
