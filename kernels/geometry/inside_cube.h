// A set's points inside the frame's cube (point_frame.h), as the grids are built over them: the copies
// themselves when the set has no loose points, or else a compacted copy. Grids name points by their
// position there; original_index maps a position back to the set's index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "loose_gate.h"
#include "point_frame.h"

namespace xhd {

struct InsideCube {
  const float* xyz = nullptr;
  size_t count = 0;
  UninitLargeVector<float> owned;

  explicit InsideCube(const FramedSet& set) {
    if (set.loose.empty()) {
      xyz = set.xyz;
      count = set.count;
      return;
    }
    count = set.count - set.loose.size();
    owned.resize(3 * count);
    size_t from = 0, to = 0;
    for (size_t k = 0; k <= set.loose.size(); ++k) {
      const size_t stop = k < set.loose.size() ? set.loose[k] : set.count;
      // Through data(): when the set's last points are loose, the last run is empty and `to` is one past
      // the end, where owned[3 * to] would index out of range (even to copy nothing).
      std::memcpy(owned.data() + 3 * to, set.xyz + 3 * from, 3 * sizeof(float) * (stop - from));
      to += stop - from;
      from = stop + 1;
    }
    xyz = owned.data();
  }
};

// The set's index of the point at position j of its inside copy, given its ascending loose indices: j plus
// the loose indices before it, found by bisection on loose[m] - m (the inside points before the m-th).
XHD_HD uint32_t original_index(const uint32_t* loose, uint32_t loose_count, uint32_t j) {
  uint32_t lo = 0, hi = loose_count;
  while (lo < hi) {
    const uint32_t mid = (lo + hi) / 2;
    if (loose[mid] - mid <= j) lo = mid + 1;
    else hi = mid;
  }
  return j + lo;
}

// The gate of a direction whose targets are `target`, in `frame`.
inline LooseGate loose_gate(const PointFrame& frame, const FramedSet& target) {
  LooseGate g;
  if (!frame.has_loose()) return g;
  g.cube = frame.cube;
  g.copy_error = frame.tight.copies_exact ? 0.0 : float_copy_error(frame.cube);
  for (uint32_t j : target.loose) g.faces |= face_beyond(&target.xyz[3 * static_cast<size_t>(j)], frame.cube);
  return g;
}

}  // namespace xhd
