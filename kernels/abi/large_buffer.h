// Allocator for the index's big arrays. Fresh memory costs a page fault per 4 KiB page, which on some
// machines (VMs especially) rivals the work done in it: buffers of 2 MiB and more are aligned to 2 MiB and
// offered to the kernel as transparent huge pages (honoured where THP is enabled, "madvise" or "always"),
// one fault per 2 MiB instead of 512.
//
// Those buffers are mapped and unmapped directly, not taken from malloc: glibc raises its mmap threshold to
// the size of each large block freed (up to 32 MiB), after which blocks that size come from its heap and
// stay there when freed. A streamed compare (cpu/streamed_compare.h) that holds 35 MB at a time grew to
// 200 MB of resident memory that way; unmapped, what is freed goes back to the system at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <utility>
#include <vector>

#include <sys/mman.h>

namespace xhd {

template <class T>
struct LargeBufferAllocator {
  using value_type = T;
  static constexpr size_t kHugePage = size_t(1) << 21;

  LargeBufferAllocator() = default;
  template <class U>
  LargeBufferAllocator(const LargeBufferAllocator<U>&) {}

  static size_t mapped_bytes(size_t n) { return (n * sizeof(T) + kHugePage - 1) & ~(kHugePage - 1); }

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes, std::align_val_t(alignof(T))));
    // A huge page's worth more than asked for, then the unaligned head and the tail given back.
    const size_t rounded = mapped_bytes(n);
    void* raw = mmap(nullptr, rounded + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const uintptr_t at = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t start = (at + kHugePage - 1) & ~(uintptr_t(kHugePage) - 1);
    if (start > at) munmap(raw, start - at);
    if (start - at < kHugePage) munmap(reinterpret_cast<void*>(start + rounded), kHugePage - (start - at));
#ifdef MADV_HUGEPAGE
    madvise(reinterpret_cast<void*>(start), rounded, MADV_HUGEPAGE);  // a hint: failure only means ordinary pages
#endif
    return reinterpret_cast<T*>(start);
  }
  void deallocate(T* p, size_t n) {
    if (n * sizeof(T) < kHugePage) ::operator delete(p, std::align_val_t(alignof(T)));
    else munmap(p, mapped_bytes(n));
  }
  template <class U>
  bool operator==(const LargeBufferAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const LargeBufferAllocator<U>&) const {
    return false;
  }
};

template <class T>
using LargeVector = std::vector<T, LargeBufferAllocator<T>>;

// The same allocator, but resize() and the size constructor leave new elements default-initialized
// (uninitialized, for numbers and plain structs). A zero fill would fault in, and clear, every page on the
// calling thread alone; left unwritten, the pages are first touched by the parallel loop that fills them.
// Only for arrays whose every element is written before it is read.
template <class T>
struct UninitLargeBufferAllocator : LargeBufferAllocator<T> {
  using value_type = T;
  UninitLargeBufferAllocator() = default;
  template <class U>
  UninitLargeBufferAllocator(const UninitLargeBufferAllocator<U>&) {}

  template <class U>
  void construct(U* p) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
using UninitLargeVector = std::vector<T, UninitLargeBufferAllocator<T>>;

}  // namespace xhd
