// The OptiX side of one device, created once per process and device and kept: the driver's OptiX entry
// points (optixInit), a device context on the device's primary CUDA context, the embedded search programs
// compiled into a pipeline, and its shader binding table. Creating it is where an unusable OptiX shows:
// those failures are Unavailable (XHD_ERROR_UNAVAILABLE) with the cause and the fix.
#pragma once

#include <optix.h>

#include <cstdint>

namespace xhd {

// Build flags of every structure over the targets: fast traversal, and refits as the radius grows. The
// built-in sphere intersector is fetched for exactly these flags (optixBuiltinISModuleGet).
constexpr unsigned kTargetBuildFlags = OPTIX_BUILD_FLAG_PREFER_FAST_TRACE | OPTIX_BUILD_FLAG_ALLOW_UPDATE;

// The options of a structure over the targets: built (OPTIX_BUILD_OPERATION_BUILD) or refitted (UPDATE).
inline OptixAccelBuildOptions target_build_options(OptixBuildOperation operation) {
  OptixAccelBuildOptions options{};
  options.buildFlags = kTargetBuildFlags;
  options.operation = operation;
  return options;
}

// OptiX started on one device: the device context and what it reports. Cheap next to a session (no
// program is compiled): what xhd_optix_info, and so backend selection and doctor, need.
struct OptixDevice {
  int device = -1;
  OptixDeviceContext context = nullptr;
  unsigned rtcore_version = 0;  // OPTIX_DEVICE_PROPERTY_RTCORE_VERSION: 0 = no RT cores, traversal in software
};

// OptiX on `device` (made current by the caller), started on first use. Thread-safe.
const OptixDevice& optix_device(int device);

struct OptixSession {
  int device = -1;
  OptixDeviceContext context = nullptr;
  OptixPipeline pipeline = nullptr;
  OptixShaderBindingTable sbt{};
  unsigned rtcore_version = 0;  // OPTIX_DEVICE_PROPERTY_RTCORE_VERSION: 0 = no RT cores, traversal in software
};

// The session of `device` (made current by the caller), created on first use on optix_device's context.
// Thread-safe.
const OptixSession& optix_session(int device);

// The OptiX version of the headers this library was built with (OPTIX_VERSION, e.g. 90000).
int optix_header_version();

}  // namespace xhd
