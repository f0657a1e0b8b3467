// Records of an xhd_point_file in ranges, as the whole-file readers read them, for the streamed compare
// (streamed_compare.cpp): a binary PLY's or an uncompressed LAS body's fixed-size records straight from the
// file (xhd_read_ply_vertices), or a LAZ body's chunks decoded whole (xhd_read_laz), a run of chunks at a
// time, the last run kept for the next read that falls in it.
#pragma once

#include <cstdint>
#include <memory>

#include "xhd.h"

namespace xhd {

// The points a pass keeps, by one coordinate: lo <= p[axis] <= hi (a superset of what it keeps is fine).
struct AxisRange {
  int axis;
  double lo, hi;
};

class PointFileReader {
 public:
  virtual ~PointFileReader() = default;
  // Records [first, first + n) into xyz (3 * n values of the file's output type). What the read found: their
  // bounds, or the first problem, its record (or a LAZ file's chunk) numbered in the whole file.
  virtual xhd_read_result read(uint64_t first, uint64_t n, void* xyz) = 0;
  // Where a pass's piece from `first` ends: after about `most` records, at the end of a chunk for LAZ, so a
  // pass decodes each chunk once (and before a chunk `need` skips, when given).
  virtual uint64_t piece_end(uint64_t first, uint64_t most, const AxisRange* need = nullptr) const = 0;
  // The first record from `first` on that a pass needing only `need` must read: `first` itself for records;
  // for LAZ, the start of the first chunk not known (from an earlier decode) to lie wholly outside it.
  virtual uint64_t next_needed(uint64_t first, const AxisRange& need) const { (void)need; return first; }
  // Bytes it holds between reads (a LAZ file's decoded run of chunks), for the streamed compare's count.
  virtual uint64_t held_bytes() const { return 0; }
  // Chunks decoded so far (a LAZ file's; each once when its decoded chunks are kept on disk), for the tests.
  virtual uint64_t chunks_decoded() const { return 0; }
};

// The reader of `file` (threads: those of each read).
std::unique_ptr<PointFileReader> open_point_file(const xhd_point_file& file, int threads);

}  // namespace xhd
