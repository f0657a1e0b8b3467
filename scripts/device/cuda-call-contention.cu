// How the CUDA runtime's calls slow down as threads (and GPUs) make them at once: each kind of call's
// microseconds, averaged over the threads, for 1 to 16 threads on one or two devices. The batch's lanes make such
// calls for every pair, and the driver serialises many of them across the whole process, GPUs and all
// (docs/benchmarks.md, "Where the batch's lanes wait"): this is why a second GPU adds little to a batch of small
// masks, and why the library keeps its streams, events, helper threads and small allocations between calls.
// Build and run on a GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o /tmp/contention scripts/device/cuda-call-contention.cu && /tmp/contention
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "check-cuda.h"

namespace {

__global__ void nothing(int* never) {
  if (never != nullptr && threadIdx.x == 0) *never = 1;
}

// What a thread holds while it calls: its device, a stream, a device buffer and a pageable host one.
struct Caller {
  int device;
  cudaStream_t stream;
  void* device_buffer;
  std::vector<float> host;
};

void stream_work(int device) {
  CHECK_CUDA(cudaSetDevice(device));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  nothing<<<1, 32, 0, s>>>(nullptr);
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK_CUDA(cudaStreamDestroy(s));
}

// One call (or the few calls a mode stands for).
void one(const std::string& mode, Caller& c) {
  if (mode == "memgetinfo") {
    size_t free_bytes, total_bytes;
    CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  } else if (mode == "stream") {  // made and destroyed
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamDestroy(s));
  } else if (mode == "event") {  // made, recorded, waited for and destroyed
    cudaEvent_t e;
    CHECK_CUDA(cudaEventCreate(&e));
    CHECK_CUDA(cudaEventRecord(e, c.stream));
    CHECK_CUDA(cudaEventSynchronize(e));
    CHECK_CUDA(cudaEventDestroy(e));
  } else if (mode == "launch-sync") {
    nothing<<<1, 32, 0, c.stream>>>(nullptr);
    CHECK_CUDA(cudaStreamSynchronize(c.stream));
  } else if (mode == "launch10-sync") {
    for (int k = 0; k < 10; ++k) nothing<<<1, 32, 0, c.stream>>>(nullptr);
    CHECK_CUDA(cudaStreamSynchronize(c.stream));
  } else if (mode == "h2d-pageable") {  // 16 KiB from pageable memory, waited for
    CHECK_CUDA(cudaMemcpyAsync(c.device_buffer, c.host.data(), 16384, cudaMemcpyHostToDevice, c.stream));
    CHECK_CUDA(cudaStreamSynchronize(c.stream));
  } else if (mode == "d2h-pageable") {
    CHECK_CUDA(cudaMemcpyAsync(c.host.data(), c.device_buffer, 16384, cudaMemcpyDeviceToHost, c.stream));
    CHECK_CUDA(cudaStreamSynchronize(c.stream));
  } else if (mode == "mallocasync") {  // 64 KiB from the pool and back, waited for
    void* p;
    CHECK_CUDA(cudaMallocAsync(&p, 1 << 16, c.stream));
    CHECK_CUDA(cudaFreeAsync(p, c.stream));
    CHECK_CUDA(cudaStreamSynchronize(c.stream));
  } else if (mode == "same-thread") {  // a stream made, one launch waited for, on this thread
    stream_work(c.device);
  } else if (mode == "new-thread") {  // the same on a thread started for it (the CUDA runtime sets it up)
    std::thread t(stream_work, c.device);
    t.join();
  }
}

// Microseconds a call, averaged over `threads` threads spread over `devices` devices, all calling at once.
double microseconds_a_call(const std::string& mode, int threads, int devices, int calls) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<double> each(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      Caller c{t % devices, nullptr, nullptr, std::vector<float>(4096, 1.f)};
      CHECK_CUDA(cudaSetDevice(c.device));
      CHECK_CUDA(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
      CHECK_CUDA(cudaMalloc(&c.device_buffer, 1 << 20));
      ready.fetch_add(1);
      while (!go.load()) {
      }
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < calls; ++i) one(mode, c);
      each[t] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / calls;
      CHECK_CUDA(cudaFree(c.device_buffer));
      CHECK_CUDA(cudaStreamDestroy(c.stream));
    });
  }
  while (ready.load() < threads) {
  }
  go = true;
  for (std::thread& w : workers) w.join();
  double sum = 0;
  for (const double v : each) sum += v;
  return sum / threads;
}

}  // namespace

int main() {
  int devices = 0;
  CHECK_CUDA(cudaGetDeviceCount(&devices));
  for (int d = 0; d < devices; ++d) {  // every context started before anything is timed
    CHECK_CUDA(cudaSetDevice(d));
    CHECK_CUDA(cudaFree(nullptr));
    // As the library sets it (device_session.cu): the pool keeps freed memory rather than unmapping it at each
    // synchronisation, which would time the mapping, not the allocation.
    cudaMemPool_t pool = nullptr;
    CHECK_CUDA(cudaDeviceGetDefaultMemPool(&pool, d));
    uint64_t keep = UINT64_MAX;
    CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  }
  const std::vector<std::string> modes = {"memgetinfo",   "stream",       "event",       "launch-sync",
                                          "launch10-sync", "h2d-pageable", "d2h-pageable", "mallocasync",
                                          "same-thread",  "new-thread"};
  const int setups[][2] = {{1, 1}, {4, 1}, {8, 1}, {2, 2}, {8, 2}, {16, 2}};  // threads, devices
  std::printf("%-14s", "us a call");
  for (const auto& s : setups) std::printf("  T%-2d D%d", s[0], s[1]);
  std::printf("\n");
  for (const std::string& mode : modes) {
    std::printf("%-14s", mode.c_str());
    for (const auto& s : setups) {
      if (s[1] > devices) {
        std::printf("  %6s", "-");
        continue;
      }
      const int calls = mode == "new-thread" || mode == "same-thread" ? 300 : 2000;
      std::printf("  %6.1f", microseconds_a_call(mode, s[0], s[1], calls));
      std::fflush(stdout);
    }
    std::printf("\n");
  }
}
