// xhd_optix_info: what `xhd doctor` and backend selection know of OptiX on a device (kernels/include/xhd.h).
#include <string>

#include "../abi/status_guard.h"
#include "../cuda/cuda_check.h"
#include "../cuda/device_session.h"
#include "optix_session.h"
#include "xhd.h"

extern "C" XHD_API int32_t xhd_optix_info(int32_t ordinal, int32_t* optix_version, uint32_t* rtcore_version) {
  return xhd::guarded([&] {
    if (optix_version == nullptr || rtcore_version == nullptr)
      throw xhd::InvalidArgument("optix_version and rtcore_version must not be null");
    const int count = xhd::usable_device_count();
    if (ordinal < 0 || ordinal >= count) throw xhd::InvalidArgument("no CUDA device " + std::to_string(ordinal));
    XHD_CUDA(cudaSetDevice(ordinal));
    const xhd::OptixDevice& optix = xhd::optix_device(ordinal);
    *optix_version = xhd::optix_header_version();
    *rtcore_version = optix.rtcore_version;
    return XHD_OK;
  });
}
