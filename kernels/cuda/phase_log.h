// XHD_CUDA_PROFILE=1 prints the duration of each GPU phase to stderr (synchronizing after each one),
// for tuning; off by default, when it costs nothing.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace xhd {

class PhaseLog {
 public:
  explicit PhaseLog(cudaStream_t stream) : PhaseLog(stream, std::getenv("XHD_CUDA_PROFILE") != nullptr) {}
  // `on`: XHD_CUDA_PROFILE as the caller read it once (a per-query log need not read the environment each time).
  PhaseLog(cudaStream_t stream, bool on) : stream_(stream), on_(on) {
    if (on_) start_ = Clock::now();
  }
  bool enabled() const { return on_; }
  void mark(const char* phase) {
    if (!on_) return;
    cudaStreamSynchronize(stream_);
    const auto now = Clock::now();
    std::fprintf(stderr, "xhd-profile %-28s %8.3f ms\n", phase,
                 std::chrono::duration<double, std::milli>(now - start_).count());
    start_ = now;
  }

 private:
  using Clock = std::chrono::steady_clock;
  cudaStream_t stream_;
  bool on_;
  Clock::time_point start_;
};

}  // namespace xhd
