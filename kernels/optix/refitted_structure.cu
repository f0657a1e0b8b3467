#include "refitted_structure.h"

#include <optix.h>
#include <optix_stubs.h>

#include <algorithm>

#include "optix_check.h"
#include "optix_session.h"
#include "optix_tuning.h"

namespace xhd {
namespace {

OptixAccelBufferSizes sizes_of(OptixDeviceContext context, const OptixBuildInput& input) {
  const OptixAccelBuildOptions options = target_build_options(OPTIX_BUILD_OPERATION_BUILD);
  OptixAccelBufferSizes sizes{};
  XHD_OPTIX(optixAccelComputeMemoryUsage(context, &options, &input, 1, &sizes));
  return sizes;
}

uint64_t scratch_bytes(const OptixAccelBufferSizes& sizes) {
  return std::max(sizes.tempSizeInBytes, sizes.tempUpdateSizeInBytes);
}

}  // namespace

uint64_t RefittedStructure::bytes(OptixDeviceContext context, const OptixBuildInput& input) {
  const OptixAccelBufferSizes sizes = sizes_of(context, input);
  return scratch_bytes(sizes) + sizes.outputSizeInBytes;
}

RefittedStructure::RefittedStructure(DeviceMemory& memory, OptixDeviceContext context, const OptixBuildInput& input) {
  const OptixAccelBufferSizes sizes = sizes_of(context, input);
  temp_ = DeviceArray<unsigned char>(memory, scratch_bytes(sizes));
  output_ = DeviceArray<unsigned char>(memory, sizes.outputSizeInBytes);
}

OptixTraversableHandle RefittedStructure::update(OptixDeviceContext context, cudaStream_t stream,
                                                 const OptixBuildInput& input) {
  // Growing primitives in place keeps the tree's shape valid; a refit tree is looser than a fresh one, which
  // XHD_OPTIX_REBUILD measures.
  const bool refit = handle_ != 0 && !optix_rebuild_each_radius();
  const OptixAccelBuildOptions options =
      target_build_options(refit ? OPTIX_BUILD_OPERATION_UPDATE : OPTIX_BUILD_OPERATION_BUILD);
  XHD_OPTIX(optixAccelBuild(context, stream, &options, &input, 1, reinterpret_cast<CUdeviceptr>(temp_.get()),
                            temp_.size(), reinterpret_cast<CUdeviceptr>(output_.get()), output_.size(), &handle_,
                            nullptr, 0));
  return handle_;
}

}  // namespace xhd
