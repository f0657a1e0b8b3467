// Records of an xhd_point_file in ranges, as the whole-file readers read them, for the streamed compare
// (streamed_compare.cpp): a binary PLY's or an uncompressed LAS body's fixed-size records straight from the
// file (xhd_read_ply_vertices), or a LAZ body's chunks decoded whole (xhd_read_laz), a run of chunks at a
// time, the last run kept for the next read that falls in it.
#pragma once

#include <cstdint>
#include <memory>

#include "xhd.h"

namespace xhd {

class PointFileReader {
 public:
  virtual ~PointFileReader() = default;
  // Records [first, first + n) into xyz (3 * n values of the file's output type). What the read found: their
  // bounds, or the first problem, its record (or a LAZ file's chunk) numbered in the whole file.
  virtual xhd_read_result read(uint64_t first, uint64_t n, void* xyz) = 0;
  // Where a pass's piece from `first` ends: after about `most` records, at the end of a chunk for LAZ, so a
  // pass decodes each chunk once.
  virtual uint64_t piece_end(uint64_t first, uint64_t most) const = 0;
  // Bytes it holds between reads (a LAZ file's decoded run of chunks), for the streamed compare's count.
  virtual uint64_t held_bytes() const { return 0; }
};

// The reader of `file` (threads: those of each read).
std::unique_ptr<PointFileReader> open_point_file(const xhd_point_file& file, int threads);

}  // namespace xhd
