#include "target_spheres.h"

#include <optix.h>
#include <optix_stubs.h>

#include "../cuda/cuda_check.h"
#include "optix_check.h"
#include "optix_session.h"
#include "refitted_structure.h"

namespace xhd {
namespace {

// Any-hit runs for every sphere met: the programs compute the distances themselves.
constexpr unsigned kSphereFlags = OPTIX_GEOMETRY_FLAG_NONE;

// n spheres centred on float4 points (x, y, z read, w skipped through the stride), one radius for all.
OptixBuildInput sphere_input(uint32_t n, const CUdeviceptr* centers, const CUdeviceptr* radius, const unsigned* flags) {
  OptixBuildInput input{};
  input.type = OPTIX_BUILD_INPUT_TYPE_SPHERES;
  input.sphereArray.vertexBuffers = centers;
  input.sphereArray.vertexStrideInBytes = sizeof(float4);
  input.sphereArray.numVertices = n;
  input.sphereArray.radiusBuffers = radius;
  input.sphereArray.singleRadius = 1;
  input.sphereArray.flags = flags;
  input.sphereArray.numSbtRecords = 1;
  return input;
}

}  // namespace

uint64_t target_spheres_bytes(uint64_t n, OptixDeviceContext context) {
  if (n == 0) return 0;
  const CUdeviceptr stand_in = 256;  // aligned: the sizes depend on the count and the options only
  const unsigned flags = kSphereFlags;
  return RefittedStructure::bytes(context, sphere_input(static_cast<uint32_t>(n), &stand_in, &stand_in, &flags)) +
         sizeof(float);
}

TargetSpheres::TargetSpheres(DeviceMemory& memory, const OptixSession& session, const float4* points, uint32_t count,
                             cudaStream_t stream)
    : session_(session), count_(count), stream_(stream), radius_(memory, 1), flags_(kSphereFlags) {
  if (count_ == 0) return;
  centers_ = reinterpret_cast<CUdeviceptr>(points);
  radius_buffer_ = reinterpret_cast<CUdeviceptr>(radius_.get());
  input_ = sphere_input(count_, &centers_, &radius_buffer_, &flags_);
  structure_ = RefittedStructure(memory, session_.context, input_);
}

OptixTraversableHandle TargetSpheres::at_radius(float radius) {
  if (count_ == 0) return 0;
  // From pageable memory the copy has taken the value when it returns.
  XHD_CUDA(cudaMemcpyAsync(radius_.get(), &radius, sizeof(float), cudaMemcpyHostToDevice, stream_));
  return structure_.update(session_.context, stream_, input_);
}

}  // namespace xhd
