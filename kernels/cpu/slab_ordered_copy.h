// A point file's points rewritten in slab order, for the streamed compare (streamed_compare.cpp): slab 0's
// points, then slab 1's, each slab's in record order and each point with its record number, in an unnamed
// temporary file. Nearly every pass of a streamed compare needs one slab (its queries) or one halo (a few
// neighbouring slabs); over the file itself each such pass reads every point, over this copy it reads only
// the slabs it needs. Slabs read together are merged back into record order as they are read, because the
// searches settle ties by a point's place among the targets they are given. Written once, after the plan
// has counted each slab's points, in one more pass over the file; 20 bytes a float32 point, 32 a double one.
// Where the file cannot be made or written (no room), the copy is dropped and the passes read the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "temporary_file.h"

namespace xhd {

class SlabOrderedCopy {
 public:
  // The most the copy holds in memory while it is written: a block of points sorted by slab.
  static constexpr uint64_t kStagingBytes = (uint64_t(1) << 16) * 32;

  // counts: each slab's points, as the plan counted them; floats: coordinates as float32, else double.
  SlabOrderedCopy(const std::vector<uint64_t>& counts, bool floats);

  // False once a write or read failed (or the file could not be made): the caller reads the point file.
  bool usable() const { return file_.usable(); }
  // Every slab's points written.
  bool complete() const;

  // Appends n points (xyz: float or double as constructed; their records; each one's slab), in record order
  // across calls. Throws std::runtime_error where a slab receives more points than counted (the file
  // changed since the plan's pass); a failed write makes the copy unusable.
  void append(const void* xyz, const uint64_t* records, const int* slabs, size_t n);

  // Reads slabs first..last merged into record order, in runs of at most `most` points: a reader's state.
  class Merge {
   public:
    // Up to `most` next points into xyz (3 a point) and records; how many (0 at the end). Throws
    // std::runtime_error where the copy's file cannot be read (the caller then has no way back mid-pass).
    size_t next(void* xyz, uint64_t* records, size_t most);

   private:
    friend class SlabOrderedCopy;
    struct Cursor {
      uint64_t at = 0, end = 0;      // points of the copy, this slab's range
      std::vector<uint8_t> block;    // read ahead: points [at - held + taken, at)
      size_t held = 0, taken = 0;
    };
    static constexpr size_t kLinearMerge = 6;  // slabs merged by scanning their heads; more, by a heap
    bool refill(Cursor& c);
    uint64_t head(const Cursor& c) const;
    size_t next_by_scan(uint8_t* out, uint64_t* records, size_t most);
    size_t take_run(Cursor& c, uint64_t bound, uint8_t* out, uint64_t* records, size_t n, size_t most) const;

    const SlabOrderedCopy* copy_ = nullptr;
    std::vector<Cursor> cursors_;
    std::vector<size_t> heap_;  // cursors with points left, by their next record (a min-heap)
    size_t block_points_ = 0;
  };
  Merge merge(int first, int last, size_t block_points) const;

 private:
  size_t stride() const { return 8 + (floats_ ? 12 : 24); }

  bool floats_;
  std::vector<uint64_t> start_;    // each slab's first point in the copy, and the total after the last
  std::vector<uint64_t> written_;  // each slab's points written so far
  std::vector<uint8_t> staging_;   // a block of appended points sorted by slab before they are written
  mutable TemporaryFile file_;     // read by a Merge (a read that fails closes it)
};

}  // namespace xhd
