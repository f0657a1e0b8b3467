// The exception-to-status boundary of every backend's entry points: nothing may unwind into the FFI
// caller, so each C ABI function runs its body through guarded(), which maps exceptions to an
// xhd_status and records the message in the last-error slot.
#pragma once

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

#include "last_error.h"
#include "progress.h"
#include "validate.h"
#include "xhd.h"

namespace xhd {

// The backend cannot run here (no GPU, no driver): XHD_ERROR_UNAVAILABLE.
struct Unavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Memory the call needs and cannot get (e.g. device memory): XHD_ERROR_OUT_OF_MEMORY with the message.
struct OutOfMemory : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename Body>
int32_t guarded(Body&& body) {
  try {
    const int32_t status = body();
    clear_last_error();
    return status;
  } catch (const InvalidArgument& e) {
    set_last_error(e.what());
    return XHD_ERROR_INVALID_ARGUMENT;
  } catch (const Cancelled& e) {
    set_last_error(e.what());
    return XHD_ERROR_CANCELLED;
  } catch (const Unavailable& e) {
    set_last_error(e.what());
    return XHD_ERROR_UNAVAILABLE;
  } catch (const OutOfMemory& e) {
    set_last_error(e.what());
    return XHD_ERROR_OUT_OF_MEMORY;
  } catch (const std::bad_alloc&) {
    set_last_error("out of host memory");
    return XHD_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    set_last_error(std::string("internal error: ") + e.what());
    return XHD_ERROR_INTERNAL;
  } catch (...) {
    set_last_error("internal error: unknown exception");
    return XHD_ERROR_INTERNAL;
  }
}

}  // namespace xhd
