// The witness pair of a directed HD, settled in double precision: the nearest target point of the
// chosen source point (smallest original index among equal distances) and their distance. Single
// precision decides which source point it is; the digits reported come from here.
#pragma once

#include <cstdint>

#include "device_memory.h"

namespace xhd {

struct Nearest {
  double distance;
  int64_t index;
};

Nearest nearest_in_double(DeviceMemory& memory, const float4* targets, uint32_t count, const float p[3],
                          cudaStream_t stream);

}  // namespace xhd
