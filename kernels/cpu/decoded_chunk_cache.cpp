#include "decoded_chunk_cache.h"

#include "../abi/env_switch.h"

namespace xhd {
namespace {

constexpr uint64_t kRecordBytes = 3 * sizeof(double);

}  // namespace

DecodedChunkCache::DecodedChunkCache(const std::vector<uint64_t>& chunk_firsts)
    : firsts_(chunk_firsts), kept_(chunk_firsts.empty() ? 0 : chunk_firsts.size() - 1, 0) {
  if (switched_on("XHD_STREAMED_LAZ_CACHE")) file_ = std::make_unique<TemporaryFile>();
}

bool DecodedChunkCache::holds(uint64_t c0, uint64_t c1) const {
  if (file_ == nullptr || !file_->usable()) return false;
  for (uint64_t c = c0; c <= c1; ++c)
    if (!kept_[c]) return false;
  return true;
}

bool DecodedChunkCache::load(uint64_t c0, uint64_t c1, double* xyz) {
  const uint64_t first = firsts_[c0], records = firsts_[c1 + 1] - first;
  return file_->read(xyz, records * kRecordBytes, first * kRecordBytes);
}

void DecodedChunkCache::keep(uint64_t c0, uint64_t c1, const double* xyz) {
  if (file_ == nullptr) return;
  for (uint64_t c = c0; c <= c1 && file_->usable(); ++c) {
    if (kept_[c]) continue;
    const uint64_t records = firsts_[c + 1] - firsts_[c];
    const double* from = xyz + 3 * (firsts_[c] - firsts_[c0]);
    if (file_->write(from, records * kRecordBytes, firsts_[c] * kRecordBytes)) kept_[c] = 1;
  }
}

}  // namespace xhd
