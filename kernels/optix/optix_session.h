// The OptiX side of one device, created once per process and device and kept: the driver's OptiX entry
// points (optixInit), a device context on the device's primary CUDA context, the embedded search programs
// compiled into a pipeline, and its shader binding table. Creating it is where an unusable OptiX shows:
// those failures are Unavailable (XHD_ERROR_UNAVAILABLE) with the cause and the fix.
#pragma once

#include <optix.h>

#include <cstdint>

namespace xhd {

struct OptixSession {
  int device = -1;
  OptixDeviceContext context = nullptr;
  OptixPipeline pipeline = nullptr;
  OptixShaderBindingTable sbt{};
  unsigned rtcore_version = 0;  // OPTIX_DEVICE_PROPERTY_RTCORE_VERSION: 0 = no RT cores, traversal in software
};

// The session of `device` (made current by the caller), created on first use. Thread-safe.
const OptixSession& optix_session(int device);

// The OptiX version of the headers this library was built with (OPTIX_VERSION, e.g. 90000).
int optix_header_version();

}  // namespace xhd
