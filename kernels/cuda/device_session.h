// What one xhd_hausdorff call holds on the GPU: the chosen device, a stream, the memory budget and
// event timers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

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

// Streams and timing events are kept for the next call on the same device rather than created and destroyed
// each time: the driver serialises both across the process's threads, GPUs and all. On the 2 x H200 host a
// stream's creation and destruction took 6-9 us alone and 60-83 us each with 8 threads at it, an event's 8-9 and
// 55-81 us, and each batch lane's mask pair made tens of them (docs/benchmarks.md, "Where the batch's lanes
// wait"). A handle goes back with whatever work it still has queued: the next owner's work is ordered after it.
cudaStream_t take_stream(int device);
void give_back_stream(int device, cudaStream_t stream);
cudaEvent_t take_timing_event(int device);
void give_back_timing_event(int device, cudaEvent_t event);

// Opens each listed device's memory pool to every other listed device (cudaMemPoolSetAccess), once a process for
// each pair, so that a device reads arrays another allocated from its pool (device_memory.h); the GPUs' exchange
// of the split by space's parts needs it (slab_exchange.h). False, opening nothing more, where a pair cannot
// reach each other (cudaDeviceCanAccessPeer).
bool open_pools_to_each_other(const std::vector<int>& devices);

// The current device's (cudaSetDevice before).
int current_device();

// A non-blocking stream of the current device.
class Stream {
 public:
  Stream() : device_(current_device()), stream_(take_stream(device_)) {}
  ~Stream() { give_back_stream(device_, stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
};

// Milliseconds of device work between start() and stop(), by CUDA events on the stream.
class EventTimer {
 public:
  // On the current device, which must be the stream's.
  explicit EventTimer(cudaStream_t stream)
      : stream_(stream),
        device_(current_device()),
        begin_(take_timing_event(device_)),
        end_(take_timing_event(device_)) {}
  ~EventTimer() {
    give_back_timing_event(device_, begin_);
    give_back_timing_event(device_, end_);
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
  int device_;
  cudaEvent_t begin_ = nullptr, end_ = nullptr;
};

}  // namespace xhd
