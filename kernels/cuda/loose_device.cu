#include "loose_device.h"

#include "../geometry/inside_cube.h"
#include "cuda_check.h"
#include "launch.h"

namespace xhd {
namespace {

constexpr int kThreads = 256;

__global__ void restore_kernel(float4* points, uint32_t count, const uint32_t* loose, uint32_t loose_count) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const uint32_t j = __float_as_uint(points[i].w);
  points[i].w = __uint_as_float(original_index(loose, loose_count, j));
}

}  // namespace

void restore_original_indices(DeviceMemory& memory, DeviceGrid& grid, const std::vector<uint32_t>& loose,
                              cudaStream_t stream) {
  if (loose.empty() || grid.count == 0) return;
  const uint32_t n = static_cast<uint32_t>(loose.size());
  DeviceArray<uint32_t> device_loose(memory, n);
  XHD_CUDA(cudaMemcpyAsync(device_loose.get(), loose.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice, stream));
  restore_kernel<<<blocks_for(grid.count, kThreads), kThreads, 0, stream>>>(grid.points.get(), grid.count,
                                                                            device_loose.get(), n);
  XHD_CUDA_LAUNCHED("restore_kernel");
}  // device_loose: a stream-ordered free, after the kernel has read it

}  // namespace xhd
