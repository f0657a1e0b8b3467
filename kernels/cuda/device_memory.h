// Device allocations of one xhd_hausdorff call, counted so the call can report its peak and plan
// chunks against a budget (free memory, or XHD_CUDA_MEMORY_LIMIT in bytes for tests).
// Allocations are stream-ordered (cudaMallocAsync on the call's stream): freeing does not stall the
// device the way cudaFree does, and memory freed early in a call (raw uploads, sort scratch) is reused
// by later phases without new mappings.
// Small allocations (up to kSmallBytes) are carved from slabs of kSlabBytes, one cudaMallocAsync for many: the
// driver serialises its allocation calls across the process's threads and GPUs (2 x H200: an allocation and its
// free took 9-13 us alone and 93-183 us with 8-16 threads at it), and a small mask pair made tens of them in each
// direction (docs/benchmarks.md, "Where the batch's lanes wait"). A slab is used again once everything carved
// from it is freed; every use is on the call's one stream, so stream order keeps the old and new uses apart, as
// it does for cudaFreeAsync. Budgets below kSlabsFrom (tests' small limits) allocate everything directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.h"

namespace xhd {

class DeviceMemory {
 public:
  static constexpr size_t kSlabBytes = size_t(4) << 20;
  static constexpr size_t kSmallBytes = size_t(256) << 10;
  static constexpr uint64_t kSlabsFrom = uint64_t(256) << 20;

  DeviceMemory(uint64_t budget, cudaStream_t stream) : budget_(budget), stream_(stream) {}
  ~DeviceMemory() {
    for (const Slab& s : slabs_) cudaFreeAsync(s.base, stream_);
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  void* allocate(size_t bytes) {
    if (bytes == 0) return nullptr;
    if (bytes <= kSmallBytes && budget_ >= kSlabsFrom) {
      if (void* p = from_slab((bytes + kAlign - 1) / kAlign * kAlign)) return p;
    }
    return allocate_directly(bytes);
  }
  void release(void* p, size_t bytes) {
    if (p == nullptr) return;
    if (bytes <= kSmallBytes) {
      const uintptr_t at = reinterpret_cast<uintptr_t>(p);
      for (Slab& s : slabs_) {
        const uintptr_t base = reinterpret_cast<uintptr_t>(s.base);
        if (at < base || at >= base + kSlabBytes) continue;
        if (--s.live == 0) s.used = 0;
        return;
      }
    }
    cudaFreeAsync(p, stream_);
    in_use_ -= bytes;
  }
  uint64_t budget() const { return budget_; }
  uint64_t in_use() const { return in_use_; }
  uint64_t peak() const { return peak_; }

 private:
  static constexpr size_t kAlign = 256;  // as cudaMalloc's
  struct Slab {
    char* base = nullptr;
    size_t used = 0;  // bytes carved from the front
    int live = 0;     // carved and not yet freed
  };

  void* allocate_directly(size_t bytes) {
    if (in_use_ + bytes > budget_) throw DeviceMemoryShort("device memory budget exceeded");
    void* p = nullptr;
    const cudaError_t status = cudaMallocAsync(&p, bytes, stream_);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw DeviceMemoryShort("an allocation of " + std::to_string(bytes) + " bytes failed");
    }
    cuda_check(status, "cudaMallocAsync");
    count(bytes);
    return p;
  }
  // From a slab with room, or a new slab; null when a new one would not fit the budget or the device (the
  // allocation is then made directly, and fails there as it would have).
  void* from_slab(size_t bytes) {
    for (Slab& s : slabs_) {
      if (s.used + bytes > kSlabBytes) continue;
      void* p = s.base + s.used;
      s.used += bytes;
      ++s.live;
      return p;
    }
    if (in_use_ + kSlabBytes > budget_) return nullptr;
    void* base = nullptr;
    if (cudaMallocAsync(&base, kSlabBytes, stream_) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    count(kSlabBytes);
    slabs_.push_back(Slab{static_cast<char*>(base), bytes, 1});
    return base;
  }
  void count(uint64_t bytes) {
    in_use_ += bytes;
    if (in_use_ > peak_) peak_ = in_use_;
  }

  uint64_t budget_;
  cudaStream_t stream_;
  uint64_t in_use_ = 0;
  uint64_t peak_ = 0;
  std::vector<Slab> slabs_;
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
