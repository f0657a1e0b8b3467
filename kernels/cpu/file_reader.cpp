// xhd_read_file: a byte range of a file into the caller's buffer, in pieces read by every thread at once.
// Reading a file whole is the kernel's work, copying from the page cache and giving the fresh buffer its
// pages (which costs about as much again): on one thread that runs far below the memory's speed.
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "open_file.h"
#include "prefault.h"
#include "xhd.h"

namespace {

// Large enough that a call costs nothing next to its copy, small enough to spread a 100 MB file over
// every core.
constexpr uint64_t kPieceBytes = uint64_t(4) << 20;

// The bytes read before the first piece that came up short (a file that shrank while it was read).
uint64_t read_range(const xhd::OpenFile& file, uint64_t offset, uint64_t length, int threads, uint8_t* buffer) {
  std::atomic<uint64_t> complete{length};
  xhd::parallel_blocks(length, kPieceBytes, threads, [&](size_t begin, size_t end, int) {
    xhd::prefault_for_writing(buffer + begin, end - begin);
    const uint64_t got = file.read(buffer + begin, end - begin, offset + begin);
    if (got == end - begin) return;
    uint64_t seen = complete.load(std::memory_order_relaxed);
    while (begin + got < seen && !complete.compare_exchange_weak(seen, begin + got, std::memory_order_relaxed)) {
    }
  });
  return complete.load();
}

}  // namespace

extern "C" XHD_API int32_t xhd_read_file(const char* path, uint64_t offset, uint64_t length, int32_t threads,
                                         uint8_t* buffer, xhd_file_read* result) {
  return xhd::guarded([&] {
    if (path == nullptr || result == nullptr || (buffer == nullptr && length > 0))
      throw xhd::InvalidArgument("path, buffer and result must not be null");
    if (threads < 0) throw xhd::InvalidArgument("threads must be >= 0");
    *result = xhd_file_read{};
    try {
      const xhd::OpenFile file(path);
      result->bytes = read_range(file, offset, length, xhd::resolve_thread_count(threads), buffer);
    } catch (const xhd::SystemError& error) {
      result->bytes = 0;
      result->error_number = error.code;
    }
    return int32_t(XHD_OK);
  });
}
