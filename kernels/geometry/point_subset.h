// A framed set's points picked by flags, in the set's order: what dropping duplicates (unique_points.h) and
// splitting a compare by space (slab_split.h) both make of a set.
#pragma once

#include <cstdint>

#include "point_frame.h"

namespace xhd {

// How a picked point names where it came from, through the new set's input_index.
enum class PickedIndex {
  kInput,   // the input's index (composed with the set's own input_index): the new set replaces the set
  kParent,  // its index in the set it was picked from: the new set is a part of that set
};

// The points i of `set` with keep[i] != 0, in increasing i: their float copies, truth and loose points (the
// kept ones, renumbered). Float32 inputs used in place stay so: one compacted array serves as both copies
// and truth. The order is kept, so the smallest index of the new set is the smallest of the old: ties
// resolve alike in both.
FramedSet pick_points(const FramedSet& set, const uint8_t* keep, PickedIndex naming, int threads);

}  // namespace xhd
