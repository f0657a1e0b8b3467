// A kernel that stays on the GPU between a context's calls (resident), and the host side that hands it work. The
// host writes a call (its word and payload) into pinned memory, which the kernel's first warp reads over the bus,
// and waits for the call's number (or its answer words) to come back there: no launch and no copy a call. On an H200 a cooperative launch and its
// readback cost a small mesh-distance search 15-25 us of its 45-55 (docs/benchmarks.md, stop 59).
//
// The kernel leaves when told to (a call of kind kResidentLeave), when another context of the process asks for the
// GPU (ResidentMailbox::evict, read only between calls), or after `idle` with no call: a resident kernel holds every
// multiprocessor it runs on, so any other work on the device waits until it leaves.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <functional>

#include "pinned_array.h"
#include "resident_call.h"

namespace xhd {

struct alignas(64) ResidentMailbox {
  unsigned long long call;  // pack_call's word, written last
  // The call's payload (resident_call.h: payload_word), written before the word on every call but a leave.
  alignas(64) unsigned long long payload[kResidentPayloadWords];
  // A call's answer as payload words (resident_call.h), where the kernel gives one; the host rewrites them with the
  // number before each call's, so that no word left from an earlier call can pass as this one's.
  alignas(64) unsigned long long answer[kResidentAnswerWords];
  alignas(64) unsigned long long done;  // the number of the last call answered, written after its outputs
  alignas(64) unsigned int evict;       // another context wants the device: leave once idle
};

// The kernel's own record between calls and launches, in device memory (zeroed before the first launch).
struct ResidentState {
  unsigned long long taken;    // the number of the last call taken
  unsigned long long current;  // its word, for every thread after the barrier (kind kResidentLeave: leave)
};

#ifdef __CUDACC__
__device__ inline unsigned long long load_acquire_system(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ inline void store_release_system(unsigned long long* p, unsigned long long v) {
  asm volatile("st.release.sys.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ inline unsigned long long load_relaxed_system(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ inline unsigned int load_relaxed_system(const unsigned int* p) {
  unsigned int v;
  asm volatile("ld.relaxed.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
#endif

// The host side of one context's resident kernel, on one stream. Not thread-safe: a context's calls are one at a
// time (the ABI's contract).
class ResidentLoop {
 public:
  // launch: starts the kernel on the stream (cooperatively), or says why not.
  using Launch = std::function<cudaError_t()>;

  ResidentLoop(int device, cudaStream_t stream, std::chrono::microseconds idle, Launch launch);
  ~ResidentLoop();  // tells the kernel to leave and waits for it
  ResidentLoop(const ResidentLoop&) = delete;
  ResidentLoop& operator=(const ResidentLoop&) = delete;

  ResidentMailbox* mailbox() const { return box_.data(); }
  unsigned long long idle_ns() const { return static_cast<unsigned long long>(idle_.count()) * 1000ull; }

  // Posts the call (all but its number, which this loop gives it) with its payload (`words` 32-bit words, at most
  // kResidentPayloadWords), runs `meanwhile` (the host's own work that needs no answer, if any) and waits until the
  // kernel has answered it: by the done word after its outputs, or by answer words (then answer() holds them),
  // starting the kernel where it is not running. False where a launch is refused as too large for the device (e.g.
  // multiprocessors taken by MPS): the call is not answered, the caller answers it another way, and this loop is
  // not used again (no kernel of it runs to take the call later). Device errors throw.
  bool call(ResidentCall c, const unsigned int* payload, unsigned int words,
            const std::function<void()>& meanwhile = nullptr);

  // The last call's answer words (kResidentAnswerWords), where the kernel answered it so; else null.
  const unsigned int* answer() const { return answered_by_words_ ? answer_ : nullptr; }

  // The kernel has left by itself after the last call (a search that stopped part-way ends it).
  void left() { live_ = false; }

 private:
  bool start();
  unsigned long long done() const;
  bool answer_words_came(unsigned long long number);

  int device_;
  cudaStream_t stream_;
  std::chrono::microseconds idle_;
  Launch launch_;
  PinnedArray<ResidentMailbox> box_{1};
  unsigned long long number_ = 0;
  bool live_ = false;     // launched, and not known to have left
  bool refused_ = false;  // a launch was refused: the loop is not used again
  std::chrono::steady_clock::time_point answered_at_{};
  unsigned int answer_[kResidentAnswerWords] = {};
  bool answered_by_words_ = false;
};

}  // namespace xhd
