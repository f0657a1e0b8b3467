// What a billion-point compare on two GPUs could take at best (issue 24): the transfers the design of
// docs/benchmarks.md ("Why a billion points on two GPUs is still not faster than on one") would be made of,
// each measured alone on the GPU host. The design: the host reads the input once, each GPU receives a contiguous
// part of both sets, checks and frames it on the device, and sends the other slab's points over NVLink.
// Measured here, for two float32 sets of N points each (12 N bytes a set, in pageable memory as a caller has it):
//   1. staged uploads (the library's way now: every core copies into pinned buffers, each buffer's DMA starting
//      when full) of both sets to one GPU, then of half of each to each of two GPUs at once;
//   2. the same from the caller's memory pinned in place (cudaHostRegister, its own cost timed), no host copy;
//   3. a GPU scan of its half (finite check, box), the part of the framing the device could take;
//   4. peer copies of a quarter of the points each way at once, the exchange of the slabs' points.
// Build and run on a GPU machine (two GPUs for the two-GPU rows; N in millions, default 1,000):
//   nvcc -O2 -std=c++17 -arch=sm_90 -Xcompiler -fopenmp -lgomp -o /tmp/probe scripts/device/transfer-probe.cu && /tmp/probe 1000
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "check-cuda.h"

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void row(const char* what, double bytes, double ms) {
  std::printf("| %s | %.1f | %.0f | %.1f |\n", what, bytes / 1e9, ms, bytes / 1e6 / ms);
}

constexpr size_t kStage = size_t(128) << 20;  // bytes a pinned buffer holds, as the library's stages
constexpr int kStages = 4;

// One device's staged upload of `bytes` from `host` into `device` on `threads` threads: each stage filled by
// every thread, then its DMA queued; a stage is refilled once its previous DMA is done.
void staged_upload(int gpu, char* device, const char* host, size_t bytes, int threads) {
  CHECK_CUDA(cudaSetDevice(gpu));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  char* stage[kStages];
  cudaEvent_t done[kStages];
  for (int s = 0; s < kStages; ++s) {
    CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&stage[s]), kStage, cudaHostAllocDefault));
    CHECK_CUDA(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
  }
  for (size_t at = 0, k = 0; at < bytes; at += kStage, ++k) {
    const int s = static_cast<int>(k % kStages);
    const size_t n = std::min(kStage, bytes - at);
    CHECK_CUDA(cudaEventSynchronize(done[s]));
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t) {
      const size_t lo = n * t / threads, hi = n * (t + 1) / threads;
      std::memcpy(stage[s] + lo, host + at + lo, hi - lo);
    }
    CHECK_CUDA(cudaMemcpyAsync(device + at, stage[s], n, cudaMemcpyHostToDevice, stream));
    CHECK_CUDA(cudaEventRecord(done[s], stream));
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));
  for (int s = 0; s < kStages; ++s) {
    CHECK_CUDA(cudaFreeHost(stage[s]));
    CHECK_CUDA(cudaEventDestroy(done[s]));
  }
  CHECK_CUDA(cudaStreamDestroy(stream));
}

void direct_upload(int gpu, char* device, const char* host, size_t bytes) {
  CHECK_CUDA(cudaSetDevice(gpu));
  CHECK_CUDA(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
}

struct ScanOut {
  float lo[3], hi[3];
  unsigned long long bad;
};

__device__ void atomic_min_float(float* at, float v) {
  if (v >= 0.f) atomicMin(reinterpret_cast<int*>(at), __float_as_int(v));
  else atomicMax(reinterpret_cast<unsigned*>(at), __float_as_uint(v));
}
__device__ void atomic_max_float(float* at, float v) {
  if (v >= 0.f) atomicMax(reinterpret_cast<int*>(at), __float_as_int(v));
  else atomicMin(reinterpret_cast<unsigned*>(at), __float_as_uint(v));
}

// Each point's coordinates finite or counted, and the box of the finite ones: one read of the part.
__global__ void scan_points(const float* xyz, size_t n, ScanOut* out) {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  unsigned long long bad = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const float p[3] = {xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]};
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
      ++bad;
      continue;
    }
    for (int k = 0; k < 3; ++k) {
      lo[k] = fminf(lo[k], p[k]);
      hi[k] = fmaxf(hi[k], p[k]);
    }
  }
  for (int s = 16; s > 0; s >>= 1) {
    for (int k = 0; k < 3; ++k) {
      lo[k] = fminf(lo[k], __shfl_down_sync(0xffffffffu, lo[k], s));
      hi[k] = fmaxf(hi[k], __shfl_down_sync(0xffffffffu, hi[k], s));
    }
    bad += __shfl_down_sync(0xffffffffu, bad, s);
  }
  if ((threadIdx.x & 31) == 0) {
    for (int k = 0; k < 3; ++k) {
      atomic_min_float(&out->lo[k], lo[k]);
      atomic_max_float(&out->hi[k], hi[k]);
    }
    atomicAdd(&out->bad, bad);
  }
}

double scan_ms(int gpu, const float* xyz, size_t n, ScanOut& result) {
  CHECK_CUDA(cudaSetDevice(gpu));
  ScanOut* out;
  CHECK_CUDA(cudaMalloc(&out, sizeof(ScanOut)));
  const ScanOut start{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0};
  CHECK_CUDA(cudaMemcpy(out, &start, sizeof(start), cudaMemcpyHostToDevice));
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  CHECK_CUDA(cudaEventRecord(a));
  scan_points<<<132 * 16, 256>>>(xyz, n, out);
  CHECK_CUDA(cudaEventRecord(b));
  CHECK_CUDA(cudaEventSynchronize(b));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
  CHECK_CUDA(cudaMemcpy(&result, out, sizeof(result), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaFree(out));
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t millions = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000;
  const size_t n = millions * 1000000;  // points a set
  const size_t set_bytes = 12 * n, bytes = 2 * set_bytes;
  int gpus = 0;
  CHECK_CUDA(cudaGetDeviceCount(&gpus));
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  std::printf("%d GPUs, %d cores, two sets of %zu float32 points (%.1f GB)\n\n", gpus, cores, n, bytes / 1e9);

  // The input as a caller holds it: pageable, first written by every core.
  double t = now_ms();
  char* host = static_cast<char*>(std::malloc(bytes));
  float* f = reinterpret_cast<float*>(host);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < bytes / 4; ++i) f[i] = static_cast<float>((i * 2654435761u) % 1000003u) * 1e-6f;
  std::printf("input written in %.0f ms\n\n", now_ms() - t);

  std::vector<char*> device(gpus);
  for (int g = 0; g < gpus; ++g) {
    CHECK_CUDA(cudaSetDevice(g));
    CHECK_CUDA(cudaMalloc(&device[g], g == 0 ? bytes : bytes / 2));
    CHECK_CUDA(cudaMemset(device[g], 0, g == 0 ? bytes : bytes / 2));
  }
  CHECK_CUDA(cudaSetDevice(0));
  CHECK_CUDA(cudaDeviceSynchronize());

  // A contiguous half of each set to each of GPUs 0 and 1 at once (A's first half and B's first half to GPU 0),
  // each GPU's two uploads on a thread of its own.
  auto halves_to_two = [&](auto upload) {
    std::vector<std::thread> uploads;
    for (int g = 0; g < 2; ++g)
      uploads.emplace_back([&, g] {
        for (int set = 0; set < 2; ++set)
          upload(g, device[g] + set * (set_bytes / 2), host + set * set_bytes + g * (set_bytes / 2), set_bytes / 2);
      });
    for (std::thread& u : uploads) u.join();
  };

  std::printf("| what | GB | ms | GB/s |\n| --- | ---: | ---: | ---: |\n");
  for (int round = 0; round < 2; ++round) {
    t = now_ms();
    staged_upload(0, device[0], host, bytes, cores);
    row("staged upload, both sets to GPU 0", bytes, now_ms() - t);
    if (gpus >= 2) {
      t = now_ms();
      halves_to_two([&](int g, char* to, const char* from, size_t n) { staged_upload(g, to, from, n, cores / 2); });
      row("staged upload, half of each set to each of GPUs 0 and 1 at once", bytes, now_ms() - t);
    }
  }

  t = now_ms();
  CHECK_CUDA(cudaHostRegister(host, bytes, cudaHostRegisterDefault));
  row("cudaHostRegister of the input (pinning it in place)", bytes, now_ms() - t);
  for (int round = 0; round < 2; ++round) {
    t = now_ms();
    direct_upload(0, device[0], host, bytes);
    row("registered upload, both sets to GPU 0", bytes, now_ms() - t);
    if (gpus >= 2) {
      t = now_ms();
      halves_to_two([&](int g, char* to, const char* from, size_t n) { direct_upload(g, to, from, n); });
      row("registered upload, half of each set to each of GPUs 0 and 1 at once", bytes, now_ms() - t);
    }
  }
  t = now_ms();
  CHECK_CUDA(cudaHostUnregister(host));
  row("cudaHostUnregister", bytes, now_ms() - t);

  // The device's share of the framing: its half of both sets scanned once (GPU 0 alone, then both at once).
  for (int round = 0; round < 2; ++round) {
    ScanOut r{};
    const double ms = scan_ms(0, reinterpret_cast<const float*>(device[0]), bytes / 12, r);
    row("GPU scan (finite, box) of both sets on GPU 0", bytes, ms);
    if (round == 1)
      std::printf("(box x %.3f..%.3f, non-finite %llu)\n", r.lo[0], r.hi[0], static_cast<unsigned long long>(r.bad));
  }

  if (gpus >= 2) {
    int can = 0;
    CHECK_CUDA(cudaDeviceCanAccessPeer(&can, 0, 1));
    std::printf("\npeer access 0 <-> 1: %s\n", can ? "yes" : "no");
    if (can) {
      for (int g = 0; g < 2; ++g) {
        CHECK_CUDA(cudaSetDevice(g));
        CHECK_CUDA(cudaDeviceEnablePeerAccess(1 - g, 0));
      }
      // A quarter of the points each way: what a slab split of overlapping halves sends the other GPU.
      const size_t quarter = bytes / 4;
      for (int round = 0; round < 2; ++round) {
        t = now_ms();
        CHECK_CUDA(cudaSetDevice(0));
        CHECK_CUDA(cudaMemcpyPeer(device[1], 1, device[0] + quarter, 0, quarter));
        row("peer copy, a quarter of the points, GPU 0 to 1", quarter, now_ms() - t);
        t = now_ms();
        std::vector<std::thread> copies;
        for (int g = 0; g < 2; ++g)
          copies.emplace_back([&, g] {
            CHECK_CUDA(cudaSetDevice(g));
            cudaStream_t s;
            CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
            // Sources and destinations apart: GPU 0's second quarter into GPU 1's first, GPU 1's second into
            // GPU 0's third.
            CHECK_CUDA(cudaMemcpyPeerAsync(device[1 - g] + (g == 0 ? 0 : 2 * quarter), 1 - g, device[g] + quarter, g,
                                           quarter, s));
            CHECK_CUDA(cudaStreamSynchronize(s));
            CHECK_CUDA(cudaStreamDestroy(s));
          });
        for (std::thread& c : copies) c.join();
        row("peer copies, a quarter of the points each way at once", 2 * quarter, now_ms() - t);
      }
    }
  }
  for (int g = 0; g < gpus; ++g) {
    CHECK_CUDA(cudaSetDevice(g));
    CHECK_CUDA(cudaFree(device[g]));
  }
  std::free(host);
  return 0;
}
