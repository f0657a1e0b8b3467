// The process-wide last-error slot behind xhd_last_error(): the message of whichever call failed last, for
// callers that make one call at a time. Concurrent callers read a call's own message in its xhd_progress
// instead (call_message.h); status_guard.h writes both.
#pragma once

#include <string>

namespace xhd {
void set_last_error(const std::string& message);
void clear_last_error();
}  // namespace xhd
