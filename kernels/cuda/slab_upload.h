// One worker's part of a set on its device without a host copy of the part (slab_split.h's SlabLayout): the
// float copies gathered block by block straight into the staged upload's pinned buffers, and each point's
// index in the set and in-slab flag made on the device from the layout's bits (a bit a point on the bus
// rather than five bytes).
#pragma once

#include <cstdint>

#include "../geometry/slab_split.h"
#include "device_memory.h"

namespace xhd {

struct DevicePart {
  DeviceArray<float> raw;           // 3 floats a point, in the set's order
  DeviceArray<uint32_t> set_index;  // each point's index in the set
  DeviceArray<uint8_t> in_slab;     // 1 where the point lies in the slab itself
  uint64_t count = 0;
  uint64_t slab_count = 0;  // the points in the slab itself
};

// Part w of `set` as `layout` places it. Returns once the host's part of the work is done (the set may then
// change); the copies and kernels are queued on stream. `upload_ms` grows by the host's time in it.
DevicePart upload_part(DeviceMemory& memory, const FramedSet& set, const SlabLayout& layout, int w,
                       cudaStream_t stream, double& upload_ms);

// Renames n device points whose w is a position in a part by the set's index of that position.
void rename_to_set(float4* points, uint64_t n, const uint32_t* set_index, cudaStream_t stream);

}  // namespace xhd
