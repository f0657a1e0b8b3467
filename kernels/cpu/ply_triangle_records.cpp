// xhd_read_triangle_records: a binary PLY's plain triangle records (uchar 3, then three little-endian 32-bit
// indices: 13 bytes) decoded on every core into the caller's triangle array, as far as they stay plain.
//
// The TypeScript loop this stands in for (readTriangleRun, src/io/ply-binary.ts) stops at the first record
// that is not a triangle with its indices in range, and the general reader goes on from there and says what is
// wrong. So only the length of the valid prefix matters, and it must be exact: each block stops at its own
// first bad record, and the prefix ends at the smallest of those. A block that begins after a bad record
// already found is skipped, since nothing it could write would be kept.
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "prefault.h"
#include "xhd.h"

namespace {

constexpr uint64_t kRecordBytes = 13;

// Large enough that taking a block costs nothing next to decoding it (about 0.8 MB of records), small
// enough to spread a 7.5M-triangle mesh over every core.
constexpr uint64_t kRecordsPerBlock = uint64_t(1) << 16;

// The file's byte order whatever the host's: the compiler makes it one load on a little-endian host.
inline uint32_t little_endian_u32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// Decodes records [begin, end) into triangles; returns the first that is not a plain triangle in range, or end.
// An int32 index read unsigned: a negative one is 2^31 or more, beyond any vertex count, as in TypeScript.
uint64_t decode_block(const uint8_t* records, uint64_t begin, uint64_t end, uint32_t vertex_count,
                      uint32_t* triangles) {
  for (uint64_t r = begin; r < end; ++r) {
    const uint8_t* record = records + r * kRecordBytes;
    const uint32_t a = little_endian_u32(record + 1), b = little_endian_u32(record + 5),
                   c = little_endian_u32(record + 9);
    if (record[0] != 3 || a >= vertex_count || b >= vertex_count || c >= vertex_count) return r;
    triangles[3 * r] = a;
    triangles[3 * r + 1] = b;
    triangles[3 * r + 2] = c;
  }
  return end;
}

uint64_t read_valid_prefix(const uint8_t* records, uint64_t count, uint32_t vertex_count, int threads,
                           uint32_t* triangles) {
  std::atomic<uint64_t> first_bad{count};
  xhd::parallel_blocks(count, kRecordsPerBlock, threads, [&](size_t begin, size_t end, int) {
    if (begin > first_bad.load(std::memory_order_relaxed)) return;
    // The output is usually fresh memory: its pages given in one call rather than faulted one by one.
    xhd::prefault_for_writing(triangles + 3 * begin, (end - begin) * 3 * sizeof(uint32_t));
    const uint64_t bad = decode_block(records, begin, end, vertex_count, triangles);
    if (bad == end) return;
    uint64_t seen = first_bad.load(std::memory_order_relaxed);
    while (bad < seen && !first_bad.compare_exchange_weak(seen, bad, std::memory_order_relaxed)) {
    }
  });
  return first_bad.load();
}

}  // namespace

extern "C" XHD_API int32_t xhd_read_triangle_records(const uint8_t* records, uint64_t count, uint32_t vertex_count,
                                                     int32_t threads, uint32_t* triangles, uint64_t* read) {
  return xhd::guarded([&] {
    if (read == nullptr || (count > 0 && (records == nullptr || triangles == nullptr)))
      throw xhd::InvalidArgument("records, triangles and read must not be null");
    if (threads < 0) throw xhd::InvalidArgument("threads must be >= 0");
    *read = read_valid_prefix(records, count, vertex_count, xhd::resolve_thread_count(threads), triangles);
    return int32_t(XHD_OK);
  });
}
