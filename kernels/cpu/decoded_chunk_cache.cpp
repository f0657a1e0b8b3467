#include "decoded_chunk_cache.h"

#include <unistd.h>

#include <cstdlib>

#include "temporary_file.h"

namespace xhd {
namespace {

constexpr uint64_t kRecordBytes = 3 * sizeof(double);

}  // namespace

DecodedChunkCache::DecodedChunkCache(const std::vector<uint64_t>& chunk_firsts)
    : firsts_(chunk_firsts), kept_(chunk_firsts.empty() ? 0 : chunk_firsts.size() - 1, 0) {
  const char* wanted = std::getenv("XHD_STREAMED_LAZ_CACHE");
  if (wanted != nullptr && wanted[0] == '0') return;
  fd_ = unnamed_temporary_file();
}

DecodedChunkCache::~DecodedChunkCache() { turn_off(); }

void DecodedChunkCache::turn_off() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  kept_.assign(kept_.size(), 0);
}

bool DecodedChunkCache::holds(uint64_t c0, uint64_t c1) const {
  if (fd_ < 0) return false;
  for (uint64_t c = c0; c <= c1; ++c)
    if (!kept_[c]) return false;
  return true;
}

bool DecodedChunkCache::load(uint64_t c0, uint64_t c1, double* xyz) {
  const uint64_t first = firsts_[c0], records = firsts_[c1 + 1] - first;
  if (pread_all(fd_, xyz, records * kRecordBytes, first * kRecordBytes)) return true;
  turn_off();
  return false;
}

void DecodedChunkCache::keep(uint64_t c0, uint64_t c1, const double* xyz) {
  for (uint64_t c = c0; c <= c1 && fd_ >= 0; ++c) {
    if (kept_[c]) continue;
    const uint64_t records = firsts_[c + 1] - firsts_[c];
    const double* from = xyz + 3 * (firsts_[c] - firsts_[c0]);
    if (!pwrite_all(fd_, from, records * kRecordBytes, firsts_[c] * kRecordBytes)) {
      turn_off();
      return;
    }
    kept_[c] = 1;
  }
}

}  // namespace xhd
