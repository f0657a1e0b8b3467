// Device allocations of one xhd_hausdorff call, counted so the call can report its peak and plan
// chunks against a budget (free memory, or XHD_CUDA_MEMORY_LIMIT in bytes for tests).
// Allocations are stream-ordered (cudaMallocAsync on the call's stream): freeing does not stall the
// device the way cudaFree does, and memory freed early in a call (raw uploads, sort scratch) is reused
// by later phases without new mappings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "cuda_check.h"

namespace xhd {

class DeviceMemory {
 public:
  DeviceMemory(uint64_t budget, cudaStream_t stream) : budget_(budget), stream_(stream) {}
  void* allocate(size_t bytes) {
    if (bytes == 0) return nullptr;
    if (in_use_ + bytes > budget_) throw DeviceMemoryShort("device memory budget exceeded");
    void* p = nullptr;
    const cudaError_t status = cudaMallocAsync(&p, bytes, stream_);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw DeviceMemoryShort("an allocation of " + std::to_string(bytes) + " bytes failed");
    }
    cuda_check(status, "cudaMallocAsync");
    in_use_ += bytes;
    if (in_use_ > peak_) peak_ = in_use_;
    return p;
  }
  void release(void* p, size_t bytes) {
    if (p == nullptr) return;
    cudaFreeAsync(p, stream_);
    in_use_ -= bytes;
  }
  uint64_t budget() const { return budget_; }
  uint64_t in_use() const { return in_use_; }
  uint64_t peak() const { return peak_; }

 private:
  uint64_t budget_;
  cudaStream_t stream_;
  uint64_t in_use_ = 0;
  uint64_t peak_ = 0;
};

// An owned device array of T, freed with its owner.
template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(DeviceMemory& memory, size_t count) : memory_(&memory), count_(count) {
    data_ = static_cast<T*>(memory.allocate(count * sizeof(T)));
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept { swap(o); }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    reset();
    swap(o);
    return *this;
  }
  ~DeviceArray() { reset(); }

  void reset() {
    if (memory_ != nullptr) memory_->release(data_, count_ * sizeof(T));
    data_ = nullptr;
    count_ = 0;
  }
  T* get() const { return data_; }
  size_t size() const { return count_; }

 private:
  void swap(DeviceArray& o) {
    std::swap(memory_, o.memory_);
    std::swap(data_, o.data_);
    std::swap(count_, o.count_);
  }
  DeviceMemory* memory_ = nullptr;
  T* data_ = nullptr;
  size_t count_ = 0;
};

}  // namespace xhd
