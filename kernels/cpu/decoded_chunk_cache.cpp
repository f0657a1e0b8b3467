#include "decoded_chunk_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace xhd {
namespace {

constexpr uint64_t kRecordBytes = 3 * sizeof(double);

// A file no other process can open, gone when closed (or when the process dies): O_TMPFILE where the file
// system has it, else a named one unlinked at once. -1 where neither can be made.
int unnamed_temporary_file() {
  const char* dir = std::getenv("TMPDIR");
  const std::string where = dir != nullptr && dir[0] != '\0' ? dir : "/tmp";
#ifdef O_TMPFILE
  const int fd = ::open(where.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
#endif
  std::string name = where + "/xhd-laz-chunks-XXXXXX";
  const int named = ::mkostemp(name.data(), O_CLOEXEC);
  if (named >= 0) ::unlink(name.c_str());
  return named;
}

// All of [bytes, bytes + length) at `offset`, through short reads and writes and signals.
bool pread_all(int fd, void* bytes, uint64_t length, uint64_t offset) {
  auto* at = static_cast<char*>(bytes);
  while (length > 0) {
    const ssize_t got = ::pread(fd, at, length, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    at += got;
    offset += static_cast<uint64_t>(got);
    length -= static_cast<uint64_t>(got);
  }
  return true;
}

bool pwrite_all(int fd, const void* bytes, uint64_t length, uint64_t offset) {
  const auto* at = static_cast<const char*>(bytes);
  while (length > 0) {
    const ssize_t put = ::pwrite(fd, at, length, static_cast<off_t>(offset));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    at += put;
    offset += static_cast<uint64_t>(put);
    length -= static_cast<uint64_t>(put);
  }
  return true;
}

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
