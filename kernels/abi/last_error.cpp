// Process-wide, not thread-local: FFI callers run the work on a pool thread and then read the error
// from their own thread, so a thread-local slot would look empty to them.
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
