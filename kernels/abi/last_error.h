// The process-wide last-error slot behind xhd_last_error().
#pragma once

#include <string>

namespace xhd {
void set_last_error(const std::string& message);
void clear_last_error();
}  // namespace xhd
