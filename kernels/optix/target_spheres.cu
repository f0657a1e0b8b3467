#include "target_spheres.h"

#include <optix.h>
#include <optix_stubs.h>

#include <algorithm>

#include "../cuda/cuda_check.h"
#include "optix_check.h"
#include "optix_session.h"
#include "optix_tuning.h"

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

OptixAccelBufferSizes buffer_sizes(OptixDeviceContext context, uint32_t n) {
  // The sizes depend on the count and the options only; the buffer addresses are not read (aligned stand-ins).
  const CUdeviceptr stand_in = 256;
  const unsigned flags = kSphereFlags;
  const OptixBuildInput input = sphere_input(n, &stand_in, &stand_in, &flags);
  const OptixAccelBuildOptions options = target_build_options(OPTIX_BUILD_OPERATION_BUILD);
  OptixAccelBufferSizes sizes{};
  XHD_OPTIX(optixAccelComputeMemoryUsage(context, &options, &input, 1, &sizes));
  return sizes;
}

}  // namespace

uint64_t target_spheres_bytes(uint64_t n, OptixDeviceContext context) {
  if (n == 0) return 0;
  const OptixAccelBufferSizes sizes = buffer_sizes(context, static_cast<uint32_t>(n));
  return std::max(sizes.tempSizeInBytes, sizes.tempUpdateSizeInBytes) + sizes.outputSizeInBytes + sizeof(float);
}

TargetSpheres::TargetSpheres(DeviceMemory& memory, const OptixSession& session, const float4* points, uint32_t count,
                             cudaStream_t stream)
    : session_(session), count_(count), stream_(stream), radius_(memory, 1), flags_(kSphereFlags) {
  if (count_ == 0) return;
  centers_ = reinterpret_cast<CUdeviceptr>(points);
  radius_buffer_ = reinterpret_cast<CUdeviceptr>(radius_.get());
  input_ = sphere_input(count_, &centers_, &radius_buffer_, &flags_);
  const OptixAccelBufferSizes sizes = buffer_sizes(session_.context, count_);
  temp_ = DeviceArray<unsigned char>(memory, std::max(sizes.tempSizeInBytes, sizes.tempUpdateSizeInBytes));
  output_ = DeviceArray<unsigned char>(memory, sizes.outputSizeInBytes);
}

OptixTraversableHandle TargetSpheres::at_radius(float radius) {
  if (count_ == 0) return 0;
  // From pageable memory the copy has taken the value when it returns.
  XHD_CUDA(cudaMemcpyAsync(radius_.get(), &radius, sizeof(float), cudaMemcpyHostToDevice, stream_));
  const bool refit = handle_ != 0 && !optix_rebuild_each_radius();
  const OptixAccelBuildOptions options =
      target_build_options(refit ? OPTIX_BUILD_OPERATION_UPDATE : OPTIX_BUILD_OPERATION_BUILD);
  XHD_OPTIX(optixAccelBuild(session_.context, stream_, &options, &input_, 1,
                            reinterpret_cast<CUdeviceptr>(temp_.get()), temp_.size(),
                            reinterpret_cast<CUdeviceptr>(output_.get()), output_.size(), &handle_, nullptr, 0));
  return handle_;
}

}  // namespace xhd
