// What one xhd_hausdorff call holds on the GPU: the chosen device, a stream, the memory budget and
// event timers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "cuda_check.h"
#include "device_memory.h"

namespace xhd {

// No usable device: reported as XHD_ERROR_UNAVAILABLE.
using DeviceUnavailable = Unavailable;

// Number of devices, or a DeviceUnavailable saying why there are none.
int usable_device_count();

// Memory the call may use: free memory (counting what the allocator's pool holds from earlier calls)
// less a reserve for the runtime, or XHD_CUDA_MEMORY_LIMIT (bytes) when set, which lets tests
// exercise the chunked path.
uint64_t device_memory_budget(int device);

class Stream {
 public:
  Stream() { XHD_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Milliseconds of device work between start() and stop(), by CUDA events on the stream.
class EventTimer {
 public:
  explicit EventTimer(cudaStream_t stream) : stream_(stream) {
    XHD_CUDA(cudaEventCreate(&begin_));
    XHD_CUDA(cudaEventCreate(&end_));
  }
  ~EventTimer() {
    cudaEventDestroy(begin_);
    cudaEventDestroy(end_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start() { XHD_CUDA(cudaEventRecord(begin_, stream_)); }
  double stop() {
    end();
    return ms();
  }
  // stop() in two halves, so that the host need not wait at the end: end() queues the end, and ms(), once the
  // stream has been waited on for other reasons, reads the time without waiting again.
  void end() { XHD_CUDA(cudaEventRecord(end_, stream_)); }
  double ms() {
    XHD_CUDA(cudaEventSynchronize(end_));
    float ms = 0.f;
    XHD_CUDA(cudaEventElapsedTime(&ms, begin_, end_));
    return ms;
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t begin_ = nullptr, end_ = nullptr;
};

}  // namespace xhd
