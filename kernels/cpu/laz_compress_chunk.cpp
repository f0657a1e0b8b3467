// xhd_compress_laz_chunk: raw LAS records of point formats 6 to 8 compressed as one layered LAZ chunk
// (laz_layered_encode.h). Writers of LAZ and COPC files lay the chunks out themselves; xhd's own are the tests'
// and the benchmarks' generators of layered files, which laz-perf and the native decoder then read.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "../abi/status_guard.h"
#include "laz_layered_encode.h"
#include "xhd.h"

extern "C" XHD_API int32_t xhd_compress_laz_chunk(const uint8_t* records, uint64_t count, const uint16_t* items,
                                                  uint32_t item_count, uint32_t record_length, uint8_t* out,
                                                  uint64_t capacity, uint64_t* written) {
  return xhd::guarded([&] {
    if ((records == nullptr && count > 0) || items == nullptr || written == nullptr || (out == nullptr && capacity > 0))
      throw xhd::InvalidArgument("records, items, out and written must not be null");
    if (count > UINT32_MAX) throw xhd::InvalidArgument("a LAZ chunk holds at most 2^32 - 1 points");
    std::vector<xhd::laz::Item> list(item_count);
    uint32_t length = 0;
    for (uint32_t i = 0; i < item_count; ++i) {
      list[i] = xhd::laz::Item{items[3 * i], items[3 * i + 1], items[3 * i + 2]};
      length += list[i].size;
    }
    if (!xhd::laz::decodes_layered(list.data(), item_count) || length != record_length)
      throw xhd::InvalidArgument(
          "items must be POINT14, then RGB14 or RGBNIR14, then BYTE14 (version 3), adding up to record_length");
    std::vector<uint8_t> chunk;
    xhd::laz::encode_layered_chunk(records, count, list, record_length, chunk);
    *written = chunk.size();
    if (chunk.size() > capacity) throw xhd::InvalidArgument("out has less room than the chunk needs (*written bytes)");
    if (!chunk.empty()) std::memcpy(out, chunk.data(), chunk.size());
    return int32_t(XHD_OK);
  });
}
