#include "resident_loop.h"

#include <mutex>
#include <thread>
#include <unordered_map>

#include "cuda_check.h"

namespace xhd {
namespace {

using Clock = std::chrono::steady_clock;

// The pinned words the kernel reads and writes over the bus, in the orders the kernel's acquire and release need
// (C++17 has no atomic_ref).
template <class T>
void store_release(T& word, T value) {
  __atomic_store_n(&word, value, __ATOMIC_RELEASE);
}
template <class T>
T load_acquire(const T& word) {
  return __atomic_load_n(&word, __ATOMIC_ACQUIRE);
}

// Which context's kernel each device holds, by its eviction flag: a context starting its kernel asks the one
// before it to leave (it does once idle), so two contexts of a process take turns instead of one waiting for the
// other's idle time to run out.
std::mutex holders_mutex;
std::unordered_map<int, unsigned int*> holders;

void hold_device(int device, unsigned int* mine) {
  std::lock_guard<std::mutex> lock(holders_mutex);
  unsigned int*& holder = holders[device];
  if (holder != nullptr && holder != mine) store_release(*holder, 1u);
  holder = mine;
}

void release_device(int device, unsigned int* mine) {
  std::lock_guard<std::mutex> lock(holders_mutex);
  const auto it = holders.find(device);
  if (it != holders.end() && it->second == mine) holders.erase(it);
}

}  // namespace

ResidentLoop::ResidentLoop(int device, cudaStream_t stream, std::chrono::microseconds idle, Launch launch)
    : device_(device), stream_(stream), idle_(idle), launch_(std::move(launch)) {
  *box_.data() = ResidentMailbox{};
}

ResidentLoop::~ResidentLoop() {
  release_device(device_, &box_.data()->evict);
  if (!live_) return;
  ResidentCall leave{};
  leave.kind = kResidentLeave;
  leave.number = number_ = (number_ + 1) % kResidentNumbers;
  store_release(box_.data()->call, pack_call(leave));
  cudaStreamSynchronize(stream_);  // a destructor: an error here has nowhere to go, and the stream says it again
}

unsigned long long ResidentLoop::done() const {
  return load_acquire(box_.data()->done);
}

// Whether every answer word bears the call's number (then copied to answer_): a word the kernel is still writing
// bears the number the host left there before the call.
bool ResidentLoop::answer_words_came(unsigned long long number) {
  const unsigned long long* words = box_.data()->answer;
  if (!payload_of_call(__atomic_load_n(&words[0], __ATOMIC_ACQUIRE), number)) return false;
  for (unsigned int i = 0; i < kResidentAnswerWords; ++i) {
    const unsigned long long w = __atomic_load_n(&words[i], __ATOMIC_ACQUIRE);
    if (!payload_of_call(w, number)) return false;
    answer_[i] = payload_data(w);
  }
  return true;
}

bool ResidentLoop::start() {
  hold_device(device_, &box_.data()->evict);
  store_release(box_.data()->evict, 0u);
  const cudaError_t launched = launch_();
  if (launched == cudaErrorCooperativeLaunchTooLarge || launched == cudaErrorNotSupported) {
    cudaGetLastError();
    refused_ = true;
    return false;
  }
  XHD_CUDA(launched);
  live_ = true;
  return true;
}

bool ResidentLoop::call(ResidentCall c, const unsigned int* payload, unsigned int words,
                        const std::function<void()>& meanwhile) {
  if (refused_) return false;
  answered_by_words_ = false;
  // A kernel idle for long may have left: ask the stream before posting rather than after a wait.
  const Clock::time_point since = Clock::now();
  if (live_ && since - answered_at_ > idle_ / 2) {
    const cudaError_t state = cudaStreamQuery(stream_);
    if (state == cudaSuccess) live_ = false;
    else if (state != cudaErrorNotReady) XHD_CUDA(state);
  }
  if (!live_ && !start()) return false;
  // Numbers wrap: the kernel takes any number but the last it took, and each call waits for its answer.
  const unsigned long long number = c.number = number_ = (number_ + 1) % kResidentNumbers;
  // Each payload word whole (a relaxed atomic store: one 64-bit write), the answer's words marked as the call
  // before's, then the call's word.
  ResidentMailbox* box = box_.data();
  for (unsigned int i = 0; i < words; ++i)
    __atomic_store_n(&box->payload[i], payload_word(number, payload[i]), __ATOMIC_RELAXED);
  const unsigned long long before = (number + kResidentNumbers - 1) % kResidentNumbers;
  for (unsigned int i = 0; i < kResidentAnswerWords; ++i)
    __atomic_store_n(&box->answer[i], payload_word(before, 0), __ATOMIC_RELAXED);
  store_release(box->call, pack_call(c));
  if (meanwhile) meanwhile();
  for (unsigned int spins = 1; done() != number; ++spins) {
    if (answer_words_came(number)) {
      answered_by_words_ = true;
      break;
    }
    if (spins % 256 != 0) continue;
    // The kernel may have left before it took the call (its idle time ran out, or another context asked for the
    // device, just as the call was posted): it is started again and takes it. A fault ends the wait.
    const cudaError_t state = cudaStreamQuery(stream_);
    if (state == cudaSuccess) {
      live_ = false;
      if (done() == number) break;
      if (!start()) return false;
    } else if (state != cudaErrorNotReady) {
      XHD_CUDA(state);
    }
    // A long search: the thread gives its core to others between looks.
    if (Clock::now() - since > std::chrono::milliseconds(1)) std::this_thread::yield();
  }
  answered_at_ = Clock::now();
  return true;
}

}  // namespace xhd
