// The start of each cell's entries from the entries each cell holds: an exclusive prefix sum on the device,
// with its scratch space from the call's memory. Shared by the grids that sort points or triangles into cells.
#pragma once

#include <cub/device/device_scan.cuh>

#include <cstddef>
#include <cstdint>

#include "cuda_check.h"
#include "device_memory.h"

namespace xhd {

inline void cell_starts(DeviceMemory& memory, const uint32_t* counts, uint32_t* starts, size_t n, cudaStream_t stream) {
  size_t scratch_bytes = 0;
  XHD_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scratch_bytes, counts, starts, n, stream));
  DeviceArray<unsigned char> scratch(memory, scratch_bytes);
  XHD_CUDA(cub::DeviceScan::ExclusiveSum(scratch.get(), scratch_bytes, counts, starts, n, stream));
}  // scratch: a stream-ordered free, after the scan

}  // namespace xhd
