// Unnamed temporary files for the streamed compare's copies of its inputs (decoded_chunk_cache.h,
// slab_ordered_copy.h): no other process can open one, and it is gone when closed or when the process dies.
#pragma once

#include <cstdint>

namespace xhd {

class TemporaryFile {
 public:
  // O_TMPFILE where the file system has it, else a named file unlinked at once; in TMPDIR, else /tmp.
  // Unusable where neither can be made.
  TemporaryFile();
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  bool usable() const { return fd_ >= 0; }
  // All of [bytes, bytes + length) at `offset`, through short reads and writes and signals. False on an
  // error or (reading) the file's end, and the file is closed: unusable from then on.
  bool read(void* bytes, uint64_t length, uint64_t offset);
  bool write(const void* bytes, uint64_t length, uint64_t offset);
  void close();

 private:
  int fd_ = -1;
};

}  // namespace xhd
