// An acceleration structure over one build input whose primitives keep their number but grow with the
// search radius: built the first time, refitted after (the paper's BVH update), into buffers sized once.
// The runs of points (target_chunks.h) and the spheres (target_spheres.h) each keep one.
#pragma once

#include <optix.h>

#include <cstdint>

#include "../cuda/device_memory.h"

namespace xhd {

class RefittedStructure {
 public:
  // Device bytes a structure over `input` holds: its output, and the larger of its build and refit scratch.
  // The input's buffer addresses are not read (aligned stand-ins do).
  static uint64_t bytes(OptixDeviceContext context, const OptixBuildInput& input);

  RefittedStructure() = default;
  RefittedStructure(DeviceMemory& memory, OptixDeviceContext context, const OptixBuildInput& input);

  // The traversable over the input's buffers as they are now: built on the first call, refitted after
  // (rebuilt each time with XHD_OPTIX_REBUILD=1, optix_tuning.h). Queued on `stream`.
  OptixTraversableHandle update(OptixDeviceContext context, cudaStream_t stream, const OptixBuildInput& input);

 private:
  DeviceArray<unsigned char> temp_, output_;
  OptixTraversableHandle handle_ = 0;
};

}  // namespace xhd
