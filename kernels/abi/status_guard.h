// The exception-to-status boundary of every backend's entry points: nothing may unwind into the FFI
// caller, so each C ABI function runs its body through guarded(), which maps exceptions to an
// xhd_status and records the message in the last-error slot and, for an entry point given an
// xhd_progress, in that call's own slot (call_message.h).
#pragma once

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "call_message.h"
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

// Records a failed call's message where its caller reads it: the process-wide last-error slot, and the call's
// own xhd_progress when it was given one (null: none). Returns status.
inline int32_t record_failure(xhd_progress* call, int32_t status, const std::string& message) {
  set_last_error(message);
  write_call_message(call, message);
  return status;
}

// The body of an entry point whose caller passed `call` (its xhd_progress, which may be null): the status it
// returns, or the status of the exception it threw, with the message recorded by record_failure(). A success
// clears both messages, so neither describes an older failure.
template <typename Body>
int32_t guarded(xhd_progress* call, Body&& body) {
  try {
    const int32_t status = body();
    clear_last_error();
    write_call_message(call, std::string());
    return status;
  } catch (const InvalidArgument& e) {
    return record_failure(call, XHD_ERROR_INVALID_ARGUMENT, e.what());
  } catch (const Cancelled& e) {
    return record_failure(call, XHD_ERROR_CANCELLED, e.what());
  } catch (const Unavailable& e) {
    return record_failure(call, XHD_ERROR_UNAVAILABLE, e.what());
  } catch (const OutOfMemory& e) {
    return record_failure(call, XHD_ERROR_OUT_OF_MEMORY, e.what());
  } catch (const std::bad_alloc&) {
    return record_failure(call, XHD_ERROR_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception& e) {
    return record_failure(call, XHD_ERROR_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return record_failure(call, XHD_ERROR_INTERNAL, "internal error: unknown exception");
  }
}

// An entry point without an xhd_progress: its message goes to the last-error slot alone.
template <typename Body>
int32_t guarded(Body&& body) {
  return guarded(nullptr, std::forward<Body>(body));
}

}  // namespace xhd
