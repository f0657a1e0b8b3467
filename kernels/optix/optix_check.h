// OptiX error handling for the host side: every OptiX call goes through XHD_OPTIX, which turns a failure
// into an exception naming the call, OptiX's error name and text, and (where the call keeps one) the log.
#pragma once

#include <optix.h>

#include <stdexcept>
#include <string>

namespace xhd {

struct OptixFailure : std::runtime_error {
  OptixResult code;
  OptixFailure(OptixResult c, const std::string& what) : std::runtime_error(what), code(c) {}
};

// The message of a failed call: "optixCall: OPTIX_ERROR_NAME (text)" plus the log when there is one.
std::string optix_failure_text(OptixResult status, const char* what, const char* log = nullptr);

inline void optix_check(OptixResult status, const char* what) {
  if (status != OPTIX_SUCCESS) throw OptixFailure(status, optix_failure_text(status, what));
}

}  // namespace xhd

#define XHD_OPTIX(call) ::xhd::optix_check((call), #call)
