// The device probes' one error check (cuda-call-contention.cu, transfer-probe.cu): a failed CUDA call prints
// what failed and ends the probe, whose numbers would otherwise mean nothing.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(call)                                                  \
  do {                                                                    \
    const cudaError_t status = (call);                                    \
    if (status != cudaSuccess) {                                          \
      std::printf("%s failed: %s\n", #call, cudaGetErrorString(status)); \
      std::exit(1);                                                       \
    }                                                                     \
  } while (0)
