// CUDA error handling for the host side: every runtime call goes through XHD_CUDA, which turns a
// failure into an exception that api.cu maps to a status code and a one-line message.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "../abi/status_guard.h"

namespace xhd {

struct CudaError : std::runtime_error {
  cudaError_t code;
  CudaError(cudaError_t c, const std::string& what) : std::runtime_error(what), code(c) {}
};

// Device memory the call needs but the GPU does not have: a clear message, not an internal error.
struct DeviceMemoryShort : OutOfMemory {
  explicit DeviceMemoryShort(const std::string& what) : OutOfMemory("not enough GPU memory: " + what) {}
};

inline void cuda_check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clear the sticky-free error state so the next call starts clean
  throw CudaError(status, std::string(what) + ": " + cudaGetErrorString(status));
}

}  // namespace xhd

#define XHD_CUDA(call) ::xhd::cuda_check((call), #call)
// After a kernel launch: launch-configuration errors surface here, execution errors at the next sync.
#define XHD_CUDA_LAUNCHED(name) ::xhd::cuda_check(cudaGetLastError(), name)
