#include "staged_upload.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "../abi/validate.h"
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
constexpr size_t kStagedOnceReady = size_t(8) << 20;
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

// The cores a fill may use: all of them, shared among the devices uploading at once.
int fill_threads(size_t bytes) {
  const int share = resolve_thread_count(0) / std::max(1, active_copies.load(std::memory_order_relaxed));
  return std::max(1, std::min(share, static_cast<int>(std::max<size_t>(bytes / kCopyGrain, 1))));
}

// Pieces filled into one pageable buffer and copied by the driver: small copies, or pinned memory refused.
void copy_through_driver(void* device, const std::vector<size_t>& piece_bytes, const FillPiece& fill,
                         cudaStream_t stream) {
  size_t total = 0;
  for (const size_t bytes : piece_bytes) total += bytes;
  const std::unique_ptr<char[]> host(new char[std::max<size_t>(total, 1)]);
  size_t offset = 0;
  for (size_t k = 0; k < piece_bytes.size(); ++k) {
    fill(k, host.get() + offset, fill_threads(piece_bytes[k]));
    offset += piece_bytes[k];
  }
  XHD_CUDA(cudaMemcpyAsync(device, host.get(), total, cudaMemcpyHostToDevice, stream));
  XHD_CUDA(cudaStreamSynchronize(stream));  // `host` is freed on return
}

// This device's pinned buffers, or null where they are not used (a small copy; pinned memory refused). Once
// they are pinned, copies from kStagedOnceReady on use them too: the driver's path from pageable memory runs on
// one thread (a split's layout bits, 125 MB a slab and set at a billion points, went that way).
Stages* stages_for(size_t bytes) {
  int ordinal = 0;
  XHD_CUDA(cudaGetDevice(&ordinal));
  if (ordinal < 0 || ordinal >= kMaxDevices) return nullptr;
  Stages& s = stages_of(ordinal);
  std::lock_guard<std::mutex> guard(s.lock);
  if (bytes < kDirectBelow && !(s.ready && bytes >= kStagedOnceReady)) return nullptr;
  return prepare(s) ? &s : nullptr;
}

void copy_through_stages(Stages& s, void* device, const std::vector<size_t>& piece_bytes, const FillPiece& fill,
                         cudaStream_t stream) {
  std::lock_guard<std::mutex> guard(s.lock);  // one staged copy at a time per device
  struct Active {  // counted while this copy runs, also when it throws
    Active() { active_copies.fetch_add(1, std::memory_order_relaxed); }
    ~Active() { active_copies.fetch_sub(1, std::memory_order_relaxed); }
  } active;
  size_t offset = 0;
  for (size_t piece = 0; piece < piece_bytes.size(); ++piece) {
    const int k = static_cast<int>(piece % kStages);
    const size_t n = piece_bytes[piece];
    XHD_CUDA(cudaEventSynchronize(s.free_again[k]));  // the DMA that last read this buffer is done
    fill(piece, s.buffer[k], fill_threads(n));
    XHD_CUDA(cudaMemcpyAsync(static_cast<char*>(device) + offset, s.buffer[k], n, cudaMemcpyHostToDevice, stream));
    XHD_CUDA(cudaEventRecord(s.free_again[k], stream));
    offset += n;
  }
}

}  // namespace

size_t staged_piece_bytes() { return kStageBytes; }

void copy_pieces_to_device(void* device, const std::vector<size_t>& piece_bytes, const FillPiece& fill,
                           cudaStream_t stream) {
  size_t total = 0;
  for (const size_t bytes : piece_bytes) {
    if (bytes > kStageBytes) throw std::logic_error("copy_pieces_to_device: a piece larger than a stage");
    total += bytes;
  }
  Stages* s = stages_for(total);
  if (s == nullptr) return copy_through_driver(device, piece_bytes, fill, stream);
  copy_through_stages(*s, device, piece_bytes, fill, stream);
}

namespace {

// The ranges xhd_host_pin registered, [memory, memory + bytes), by their start. is_pinned trusts these, not the
// driver's answer for one address (cudaPointerGetAttributes): a range that starts in a registration and runs past
// it is page-locked only in part, and the driver refuses a copy of it ("invalid argument").
struct PinnedRanges {
  std::mutex lock;
  std::map<uintptr_t, uintptr_t> ends;
};

PinnedRanges& pinned_ranges() {
  static PinnedRanges ranges;
  return ranges;
}

}  // namespace

// Whether [host, host + bytes) lies in one range xhd_host_pin page-locked: its DMA then runs at the link's full
// speed with no copy on the host (55 GB/s to one H200, and two GPUs' links add up, where staging is held at the
// host's copy rate: docs/benchmarks.md, stop 50). Memory page-locked otherwise takes the staged copy.
bool is_pinned(const void* host, size_t bytes) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(host), end = begin + bytes;
  PinnedRanges& pinned = pinned_ranges();
  std::lock_guard<std::mutex> guard(pinned.lock);
  auto range = pinned.ends.upper_bound(begin);
  if (range == pinned.ends.begin()) return false;
  --range;
  return begin >= range->first && end <= range->second;
}

// The range registered is the caller's own, not widened to whole pages: the driver keeps registrations by their
// bytes, so that memory beside it on the same page (another array) stays unregistered. Widened, the range took in
// such a neighbour's first bytes, the driver then took the neighbour for page-locked memory, and every copy of
// it failed ("invalid argument" on an H200, docs/benchmarks.md, stop 55); nor could the neighbour be pinned.
void pin_host_memory(const void* memory, uint64_t bytes) {
  if (memory == nullptr) throw InvalidArgument("memory must not be null");
  if (bytes == 0) return;
  const cudaError_t status = cudaHostRegister(const_cast<void*>(memory), bytes, cudaHostRegisterPortable);
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw OutOfMemory(std::string("the driver did not page-lock ") + std::to_string(bytes) + " bytes (" +
                      cudaGetErrorString(status) + ")");
  }
  const uintptr_t begin = reinterpret_cast<uintptr_t>(memory);
  PinnedRanges& pinned = pinned_ranges();
  std::lock_guard<std::mutex> guard(pinned.lock);
  pinned.ends[begin] = begin + bytes;
}

void unpin_host_memory(const void* memory) {
  if (memory == nullptr) return;
  if (cudaHostUnregister(const_cast<void*>(memory)) != cudaSuccess) cudaGetLastError();
  PinnedRanges& pinned = pinned_ranges();
  std::lock_guard<std::mutex> guard(pinned.lock);
  pinned.ends.erase(reinterpret_cast<uintptr_t>(memory));
}

void copy_to_device(void* device, const void* host, size_t bytes, cudaStream_t stream) {
  if (bytes >= kStagedOnceReady && is_pinned(host, bytes)) {
    XHD_CUDA(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));
    // Returns with host read in full, as every copy here does: a caller may reuse its buffer at once.
    XHD_CUDA(cudaStreamSynchronize(stream));
    return;
  }
  Stages* s = stages_for(bytes);
  if (s == nullptr) {
    XHD_CUDA(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));
    return;
  }
  // Pieces of a stage each, copied into the pinned buffers by the cores (one core copies about 8 GB/s, below
  // what the DMA takes).
  std::vector<size_t> pieces((bytes + kStageBytes - 1) / kStageBytes, kStageBytes);
  pieces.back() = bytes - (pieces.size() - 1) * kStageBytes;
  const auto copy = [&](size_t piece, void* to, int threads) {
    const char* from = static_cast<const char*>(host) + piece * kStageBytes;
    parallel_blocks(pieces[piece], kCopyGrain, threads, [&](size_t begin, size_t end, int) {
      std::memcpy(static_cast<char*>(to) + begin, from + begin, end - begin);
    });
  };
  copy_through_stages(*s, device, pieces, copy, stream);
}

}  // namespace xhd
