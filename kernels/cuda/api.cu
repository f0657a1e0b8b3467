// The C ABI entry points of the CUDA backend: validate (shared with the CPU backend), pick the device,
// run, and turn every exception into a status code plus a last-error message.
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "../common/status_guard.h"
#include "../common/progress.h"
#include "../common/validate.h"
#include "cuda_check.h"
#include "device_session.h"
#include "hausdorff_gpu.h"
#include "xhd.h"

namespace {

int32_t hausdorff(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                  xhd_hausdorff_result* result, xhd_progress* progress_slot) {
  xhd::check_hausdorff_call(a, b, options, result);
  if (options->method == XHD_METHOD_BRUTE)
    throw xhd::InvalidArgument("the brute method is the CPU reference implementation; use the CPU backend");
  const int count = xhd::usable_device_count();
  if (options->device < 0 || options->device >= count)
    throw xhd::InvalidArgument("device " + std::to_string(options->device) + " does not exist (" +
                               std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") + " found)");
  XHD_CUDA(cudaSetDevice(options->device));
  const xhd::Progress progress(progress_slot);
  const int directions = options->directions;
  progress.set_total(((directions & XHD_DIRECTION_AB) ? a->count : 0) +
                     ((directions & XHD_DIRECTION_BA) ? b->count : 0));
  xhd::gpu_hausdorff(*a, *b, *options, progress, *result);
  return XHD_OK;
}

}  // namespace

extern "C" {

XHD_API int32_t xhd_abi_version(void) { return XHD_ABI_VERSION; }

XHD_API const char* xhd_backend_name(void) { return "cuda"; }

XHD_API int32_t xhd_device_count(void) {
  int32_t count = 0;
  xhd::guarded([&] {
    count = xhd::usable_device_count();
    return XHD_OK;
  });
  return count;
}

XHD_API int32_t xhd_device_info_get(int32_t ordinal, xhd_device_info* info) {
  return xhd::guarded([&] {
    if (info == nullptr) throw xhd::InvalidArgument("info must not be null");
    const int count = xhd::usable_device_count();
    if (ordinal < 0 || ordinal >= count) throw xhd::InvalidArgument("no CUDA device " + std::to_string(ordinal));
    std::memset(info, 0, sizeof(*info));
    cudaDeviceProp prop{};
    XHD_CUDA(cudaGetDeviceProperties(&prop, ordinal));
    std::snprintf(info->name, sizeof(info->name), "%s", prop.name);
    info->ordinal = ordinal;
    info->compute_major = prop.major;
    info->compute_minor = prop.minor;
    info->multiprocessors = prop.multiProcessorCount;
    info->total_memory = prop.totalGlobalMem;
    XHD_CUDA(cudaSetDevice(ordinal));
    size_t free_bytes = 0, total_bytes = 0;
    XHD_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    info->free_memory = free_bytes;
    XHD_CUDA(cudaDriverGetVersion(&info->driver_version));
    XHD_CUDA(cudaRuntimeGetVersion(&info->runtime_version));
    return XHD_OK;
  });
}

XHD_API int32_t xhd_hausdorff(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                              xhd_hausdorff_result* result, xhd_progress* progress) {
  return xhd::guarded([&] { return hausdorff(a, b, options, result, progress); });
}

}  // extern "C"
