// A set's extent and coordinate check found on its GPU, from a copy already there (early_upload.h): a few
// milliseconds for a billion points, where the host's pass over the input took 0.17 s alone and 0.23-0.29 s
// beside the copies, whose reads of the same memory it competes with (docs/benchmarks.md, stop 54).
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "../geometry/bulk_box.h"

namespace xhd {

struct ScannedExtent {
  Extent3 extent;    // of the points' coordinates (as doubles of the floats)
  bool bad = false;  // a coordinate not finite or beyond +-1e15 (check_coordinates' rule): extent is then not to be used
};

// The extent of n float points at xyz (device memory), after the work queued on stream; returns once known.
ScannedExtent scan_extent(const float* xyz, uint64_t n, cudaStream_t stream);

}  // namespace xhd
