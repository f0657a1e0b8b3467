// A LAZ file's decoded chunks, kept in an unnamed temporary file for the streamed compare's later passes.
// A chunk decodes only from its start and every pass needs most of the file, so without it each of a
// streamed compare's hundreds of passes decodes the whole file again (0.85 s a pass over two 5M-point files
// on a 2-core VM); with it each chunk is decoded once and read back, 24 bytes a point, from the page cache or
// the disk. The doubles are kept bit for bit, so the answer does not change. Where the file cannot be made
// or written (no room left), the cache turns itself off and the reader decodes as before.
// XHD_STREAMED_LAZ_CACHE=0 turns it off; TMPDIR says where the file goes (default /tmp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "temporary_file.h"

namespace xhd {

class DecodedChunkCache {
 public:
  // chunk_firsts: each chunk's first record, and the record count after the last (chunks + 1 values).
  explicit DecodedChunkCache(const std::vector<uint64_t>& chunk_firsts);

  // Whether every chunk of c0..c1 is kept.
  bool holds(uint64_t c0, uint64_t c1) const;
  // Chunks c0..c1's points (x, y, z doubles a record) into xyz; false (and off from then on) where the read fails.
  bool load(uint64_t c0, uint64_t c1, double* xyz);
  // Keeps those of chunks c0..c1 not kept yet, from xyz (the points of chunks c0..c1); off where a write fails.
  void keep(uint64_t c0, uint64_t c1, const double* xyz);

 private:
  const std::vector<uint64_t>& firsts_;
  std::vector<uint8_t> kept_;            // a flag a chunk (whose meaning ends with the file's usability)
  std::unique_ptr<TemporaryFile> file_;  // none where XHD_STREAMED_LAZ_CACHE=0
};

}  // namespace xhd
