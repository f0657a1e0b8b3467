#include "device_session.h"

#include <cstdlib>

namespace xhd {

int usable_device_count() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess && count > 0) return count;
  cudaGetLastError();
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  const std::string built = std::to_string(runtime / 1000) + "." + std::to_string((runtime % 1000) / 10);
  switch (status) {
    case cudaSuccess:
    case cudaErrorNoDevice:
      throw DeviceUnavailable("no CUDA GPU found");
    case cudaErrorInsufficientDriver:
      throw DeviceUnavailable("the NVIDIA driver is missing or older than CUDA " + built +
                              ", which this library was built with");
    default:
      throw DeviceUnavailable(std::string("CUDA cannot start: ") + cudaGetErrorString(status));
  }
}

uint64_t device_memory_budget(int device) {
  // The default pool serves cudaMallocAsync. It keeps freed memory for the next call of this process
  // (as framework caching allocators do) instead of unmapping it at every synchronization.
  cudaMemPool_t pool = nullptr;
  XHD_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
  uint64_t keep = UINT64_MAX;
  XHD_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  uint64_t reserved = 0, used = 0;
  XHD_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  XHD_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  size_t free_bytes = 0, total_bytes = 0;
  XHD_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  free_bytes += reserved > used ? reserved - used : 0;
  const uint64_t reserve = 256ull << 20;  // cuBLAS-free, but the runtime and CUB scratch need some
  uint64_t budget = free_bytes > reserve ? free_bytes - reserve : 0;
  if (const char* limit = std::getenv("XHD_CUDA_MEMORY_LIMIT")) {
    const unsigned long long asked = std::strtoull(limit, nullptr, 10);
    if (asked > 0 && asked < budget) budget = asked;
  }
  return budget;
}

}  // namespace xhd
