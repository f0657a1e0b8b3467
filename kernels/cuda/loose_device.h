// The loose points (far outliers, point_frame.h) on the GPU side: grids are built over each set's points
// inside the frame's cube, and their points named back by the set's own indices.
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include "device_grid.h"
#include "device_memory.h"

namespace xhd {

// Renames the grid's points (w: a position in the set's inside copy, inside_cube.h) by the set's indices,
// given its ascending loose indices. Queued on the stream; nothing to do when there are none.
void restore_original_indices(DeviceMemory& memory, DeviceGrid& grid, const std::vector<uint32_t>& loose,
                              cudaStream_t stream);

}  // namespace xhd
