// The target points as OptiX built-in spheres, one a point, of the search reach as radius: the paper's
// "inverse test" as the hardware offers it, measured beside the runs of boxes (target_chunks.h). OptiX's own
// intersector decides which spheres a ray meets, and an any-hit program computes each distance; the
// structure is built once and refitted as the radius grows. Chosen with XHD_OPTIX_PRIMITIVE=spheres.
#pragma once

#include <optix.h>

#include <cstdint>

#include "../cuda/device_memory.h"
#include "refitted_structure.h"

namespace xhd {

struct OptixSession;

class TargetSpheres {
 public:
  TargetSpheres(DeviceMemory& memory, const OptixSession& session, const float4* points, uint32_t count,
                cudaStream_t stream);

  // The traversable of the spheres of radius `radius` around every target point (0 when there are none).
  OptixTraversableHandle at_radius(float radius);

 private:
  const OptixSession& session_;
  uint32_t count_;
  cudaStream_t stream_;
  DeviceArray<float> radius_;
  CUdeviceptr centers_ = 0, radius_buffer_ = 0;
  unsigned flags_;
  OptixBuildInput input_{};
  RefittedStructure structure_;
};

// Device bytes a TargetSpheres over n points holds (the structure and its scratch).
uint64_t target_spheres_bytes(uint64_t n, OptixDeviceContext context);

}  // namespace xhd
