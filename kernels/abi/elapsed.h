// Milliseconds since a steady-clock instant: how every backend times its phases for the result structs.
#pragma once

#include <chrono>

namespace xhd {

inline double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace xhd
