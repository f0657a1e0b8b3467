// Pinned host memory, so the copies on the streams are truly asynchronous (a pageable destination makes the
// driver stage the copy and return only when it is done).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda_check.h"

namespace xhd {

template <class T>
class PinnedArray {
 public:
  explicit PinnedArray(size_t n) {
    if (n > 0) XHD_CUDA(cudaMallocHost(&p_, n * sizeof(T)));
  }
  ~PinnedArray() {
    if (p_ != nullptr) cudaFreeHost(p_);
  }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  T* data() const { return p_; }

 private:
  T* p_ = nullptr;
};

}  // namespace xhd
