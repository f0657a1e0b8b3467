#include "eb_directed.h"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>

#include "../geometry/box_math.h"
#include "cuda_check.h"
#include "launch.h"
#include "query_state.cuh"

namespace xhd {
namespace {

constexpr int kThreads = 256;
constexpr uint32_t kQueriesPerLaunch = 1u << 20;  // between launches: progress and cancellation

__device__ __forceinline__ uint32_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return static_cast<uint32_t>(x);
}

__global__ void random_keys(uint32_t n, uint64_t seed, uint32_t* keys, uint32_t* values) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  keys[i] = mix(seed * 0x9e3779b97f4a7c15ull + i);
  values[i] = i;
}

__global__ void gather_points(const float* xyz, const uint32_t* order, uint32_t n, float4* out) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t p = order[i];
  out[i] = make_float4(xyz[3ull * p], xyz[3ull * p + 1], xyz[3ull * p + 2], __uint_as_float(p));
}

__global__ void eb_kernel(const float4* queries, uint32_t first, uint32_t last, const float4* targets,
                          uint32_t target_count, unsigned long long* cmax, FilterBounds bounds, SurvivorList survivors,
                          unsigned long long* evals_out) {
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t warps = gridDim.x * (blockDim.x / 32);
  uint32_t evals = 0;
  for (uint32_t q = first + (blockIdx.x * blockDim.x + threadIdx.x) / 32; q < last; q += warps) {
    const float4 a = queries[q];
    const uint32_t source_index = __float_as_uint(a.w);
    float cmin = __int_as_float(0x7f800000);
    float threshold = -1.f;
    bool pruned = false;
    for (uint32_t base = 0; base < target_count; base += 32) {
      if ((base & 255u) == 0) threshold = threshold_of(load_cmax(cmax), bounds);  // a stale one prunes less
      const uint32_t j = base + lane;
      float d2 = __int_as_float(0x7f800000);
      bool zero_settles = false;
      if (j < target_count) {
        const float4 b = targets[j];
        d2 = dist2(a.x, a.y, a.z, b.x, b.y, b.z);
        ++evals;
        const float p[3] = {a.x, a.y, a.z};
        zero_settles = d2 == 0.f && settled_at_zero(bounds, p, b, source_index);
      }
      for (int o = 16; o > 0; o >>= 1) d2 = fminf(d2, __shfl_xor_sync(0xffffffffu, d2, o));
      cmin = fminf(cmin, d2);
      // Early break: truly nearer than the query that set cmax, or certainly at distance 0.
      if (cmin <= threshold || __any_sync(0xffffffffu, zero_settles)) {
        pruned = true;
        break;
      }
      if (cmin == 0.f) break;  // nothing lower can be found
    }
    if (!pruned && lane == 0) offer_result(cmax, survivors, cmin, source_index, true);
  }
  for (int o = 16; o > 0; o >>= 1) evals += __shfl_down_sync(0xffffffffu, evals, o);
  if (lane == 0) atomicAdd(evals_out, static_cast<unsigned long long>(evals));
}

}  // namespace

DeviceArray<float4> shuffled_points(DeviceMemory& memory, const float* xyz, uint32_t n, uint64_t seed,
                                    cudaStream_t stream) {
  DeviceArray<uint32_t> keys(memory, n), values(memory, n), sorted_keys(memory, n), order(memory, n);
  const unsigned blocks = blocks_for(n, kThreads);
  random_keys<<<blocks, kThreads, 0, stream>>>(n, seed, keys.get(), values.get());
  XHD_CUDA_LAUNCHED("random_keys");
  size_t scratch_bytes = 0;
  XHD_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, scratch_bytes, keys.get(), sorted_keys.get(), values.get(),
                                           order.get(), n, 0, 32, stream));
  DeviceArray<unsigned char> scratch(memory, scratch_bytes);
  XHD_CUDA(cub::DeviceRadixSort::SortPairs(scratch.get(), scratch_bytes, keys.get(), sorted_keys.get(), values.get(),
                                           order.get(), n, 0, 32, stream));
  DeviceArray<float4> out(memory, n);
  gather_points<<<blocks, kThreads, 0, stream>>>(xyz, order.get(), n, out.get());
  XHD_CUDA_LAUNCHED("gather_points");
  return out;
}

uint64_t run_directed_eb(DeviceMemory& memory, const float4* queries, uint32_t query_count, const float4* targets,
                         uint32_t target_count, unsigned long long* cmax, const FilterBounds& bounds,
                         const SurvivorList& survivors, const Progress* progress, cudaStream_t stream) {
  DeviceArray<unsigned long long> evals(memory, 1);
  XHD_CUDA(cudaMemsetAsync(evals.get(), 0, sizeof(unsigned long long), stream));
  int device = 0, sms = 0;
  XHD_CUDA(cudaGetDevice(&device));
  XHD_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  for (uint32_t first = 0; first < query_count; first += kQueriesPerLaunch) {
    progress->check_cancel();
    const uint32_t last = std::min(query_count, first + kQueriesPerLaunch);
    const unsigned blocks = std::min<unsigned>(sms * 8, blocks_for(uint64_t(last - first) * 32, kThreads));
    eb_kernel<<<blocks, kThreads, 0, stream>>>(queries, first, last, targets, target_count, cmax, bounds, survivors,
                                               evals.get());
    XHD_CUDA_LAUNCHED("eb_kernel");
    XHD_CUDA(cudaStreamSynchronize(stream));
    progress->add(last - first);
  }
  unsigned long long host = 0;
  XHD_CUDA(cudaMemcpyAsync(&host, evals.get(), sizeof(host), cudaMemcpyDeviceToHost, stream));
  XHD_CUDA(cudaStreamSynchronize(stream));
  return host;
}

}  // namespace xhd
