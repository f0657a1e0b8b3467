// The queries of one worker's slab (slab_split.h) taken from its part's grid: the part's points that lie in
// the slab itself, in the grid's (Morton) order, so that the grid built as one direction's index also orders
// the other direction's queries, as the one-GPU run shares its two grids.
#pragma once

#include <cstdint>

#include "device_grid.h"

namespace xhd {

// in_slab: one flag per point of the part (device memory, by the part's positions, which the grid's w still
// hold), slab_count of them set. Queued on stream; throws when the device's selection does not count
// slab_count points.
DeviceArray<float4> slab_queries(DeviceMemory& memory, const DeviceGrid& grid, const uint8_t* in_slab,
                                 uint64_t slab_count, cudaStream_t stream);

// The float box of n device points (min > max when n is 0), back on the host: a slab's queries' bounds, which
// the search takes as its source's box, as the one-GPU run takes a grid's.
Box points_box(DeviceMemory& memory, const float4* points, uint64_t n, cudaStream_t stream);

}  // namespace xhd
