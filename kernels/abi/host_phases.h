// XHD_HOST_PROFILE=1 prints the wall time of each host-side phase of a call to stderr (framing, splitting,
// each worker's parts and run), for tuning where a GPU call's time goes beside its kernels (phase_log.h);
// off by default, when it costs nothing.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace xhd {

class HostPhases {
 public:
  explicit HostPhases(std::string who) : who_(std::move(who)), on_(std::getenv("XHD_HOST_PROFILE") != nullptr) {
    if (on_) start_ = Clock::now();
  }
  void mark(const char* phase) {
    if (!on_) return;
    const auto now = Clock::now();
    std::fprintf(stderr, "xhd-host %-12s %-28s %9.3f ms\n", who_.c_str(), phase,
                 std::chrono::duration<double, std::milli>(now - start_).count());
    start_ = now;
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::string who_;
  bool on_;
  Clock::time_point start_;
};

}  // namespace xhd
