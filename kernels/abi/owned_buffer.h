// Memory a call hands to its caller (xhd_surface_compare's samples and distances): allocated so that std::free
// releases it whatever its size, owned here until the call succeeds, then released into the result.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <utility>

#include <sys/mman.h>

namespace xhd {

class OwnedBuffer {
 public:
  OwnedBuffer() = default;
  // bytes > 0. From 2 MiB on, aligned to 2 MiB and offered as transparent huge pages, as LargeBufferAllocator
  // does: on a VM a page fault per 4 KiB rivals the work of filling the page.
  explicit OwnedBuffer(size_t bytes) {
    constexpr size_t kHugePage = size_t(1) << 21;
    if (bytes < kHugePage) {
      data_ = std::malloc(bytes);
    } else {
      const size_t rounded = (bytes + kHugePage - 1) & ~(kHugePage - 1);
      data_ = std::aligned_alloc(kHugePage, rounded);
#ifdef MADV_HUGEPAGE
      if (data_ != nullptr) madvise(data_, rounded, MADV_HUGEPAGE);  // a hint: failure only means ordinary pages
#endif
    }
    if (data_ == nullptr) throw std::bad_alloc();
  }
  OwnedBuffer(OwnedBuffer&& other) noexcept : data_(std::exchange(other.data_, nullptr)) {}
  OwnedBuffer& operator=(OwnedBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  OwnedBuffer(const OwnedBuffer&) = delete;
  OwnedBuffer& operator=(const OwnedBuffer&) = delete;
  ~OwnedBuffer() { std::free(data_); }

  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  // The caller now owns it (and frees it with std::free).
  void* release() { return std::exchange(data_, nullptr); }

 private:
  void* data_ = nullptr;
};

}  // namespace xhd
