// Process-wide, not thread-local: FFI callers run the work on a pool thread and then read the error
// from their own thread, so a thread-local slot would look empty to them. Being shared, it describes
// the call that finished last, which is the caller's own only when calls do not overlap: a call that
// fails while another runs may find its message replaced, or cleared by the other's success, before its
// caller reads it. Calls given an xhd_progress also keep their message there (call_message.h), which
// is what callers running several calls at once read.
#include "last_error.h"

#include <mutex>

#include "xhd.h"

namespace {
std::mutex g_mutex;
std::string g_message;
}  // namespace

namespace xhd {
void set_last_error(const std::string& message) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_message = message;
}
void clear_last_error() { set_last_error(std::string()); }
}  // namespace xhd

extern "C" XHD_API const char* xhd_last_error(void) {
  thread_local std::string copy;  // stable storage for the returned pointer
  std::lock_guard<std::mutex> lock(g_mutex);
  copy = g_message;
  return copy.c_str();
}
