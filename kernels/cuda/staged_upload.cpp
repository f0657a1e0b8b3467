#include "staged_upload.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "../abi/parallel.h"
#include "cuda_check.h"

namespace xhd {
namespace {

// Three 128 MiB buffers: one filling, one or two in DMA. Each buffer's fill is one fork-join over the cores,
// whose fixed cost (waking or, when several devices upload at once, starting threads) 32 MiB buffers paid
// four times as often: a billion points reached one H200 at 11 GB/s, and two at 11 GB/s together. Below
// kDirectBelow the driver's path costs less than pinning the buffers does on a process's first staged copy.
constexpr size_t kStageBytes = size_t(128) << 20;
constexpr int kStages = 3;
constexpr size_t kDirectBelow = size_t(256) << 20;
constexpr size_t kCopyGrain = size_t(1) << 20;  // bytes per thread's share of a buffer, at least
constexpr int kMaxDevices = 64;

// One device's pinned buffers and the events that say when each is free again. Allocated on first use,
// kept for the process (pinning memory costs milliseconds; later calls reuse it).
struct Stages {
  std::mutex lock;
  bool tried = false;
  bool ready = false;
  void* buffer[kStages] = {};
  cudaEvent_t free_again[kStages] = {};
};

Stages& stages_of(int device) {
  static Stages all[kMaxDevices];
  return all[device];
}

bool prepare(Stages& s) {
  if (s.tried) return s.ready;
  s.tried = true;
  for (int k = 0; k < kStages; ++k) {
    if (cudaHostAlloc(&s.buffer[k], kStageBytes, cudaHostAllocDefault) != cudaSuccess ||
        cudaEventCreateWithFlags(&s.free_again[k], cudaEventDisableTiming) != cudaSuccess) {
      cudaGetLastError();  // pinned memory refused (limits, containers): the driver's path still works
      return false;
    }
  }
  s.ready = true;
  return true;
}

// Staged copies under way in the process (one per device at most): the cores are shared among them.
std::atomic<int> active_copies{0};

// memcpy by the cores (all of them, shared among the devices uploading at once): one core copies about
// 8 GB/s, below what the DMA takes.
void parallel_copy(void* to, const void* from, size_t bytes) {
  const int share = resolve_thread_count(0) / std::max(1, active_copies.load(std::memory_order_relaxed));
  const int threads = std::max(1, std::min(share, static_cast<int>(bytes / kCopyGrain)));
  parallel_blocks(bytes, kCopyGrain, threads, [&](size_t begin, size_t end, int) {
    std::memcpy(static_cast<char*>(to) + begin, static_cast<const char*>(from) + begin, end - begin);
  });
}

}  // namespace

void copy_to_device(void* device, const void* host, size_t bytes, cudaStream_t stream) {
  int ordinal = 0;
  XHD_CUDA(cudaGetDevice(&ordinal));
  if (bytes < kDirectBelow || ordinal < 0 || ordinal >= kMaxDevices) {
    XHD_CUDA(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));
    return;
  }
  Stages& s = stages_of(ordinal);
  std::lock_guard<std::mutex> guard(s.lock);  // one staged copy at a time per device
  if (!prepare(s)) {
    XHD_CUDA(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));
    return;
  }
  struct Active {  // counted while this copy runs, also when it throws
    Active() { active_copies.fetch_add(1, std::memory_order_relaxed); }
    ~Active() { active_copies.fetch_sub(1, std::memory_order_relaxed); }
  } active;
  int k = 0;
  for (size_t offset = 0; offset < bytes; offset += kStageBytes, k = (k + 1) % kStages) {
    const size_t n = std::min(kStageBytes, bytes - offset);
    XHD_CUDA(cudaEventSynchronize(s.free_again[k]));  // the DMA that last read this buffer is done
    parallel_copy(s.buffer[k], static_cast<const char*>(host) + offset, n);
    XHD_CUDA(cudaMemcpyAsync(static_cast<char*>(device) + offset, s.buffer[k], n, cudaMemcpyHostToDevice, stream));
    XHD_CUDA(cudaEventRecord(s.free_again[k], stream));
  }
}

}  // namespace xhd
