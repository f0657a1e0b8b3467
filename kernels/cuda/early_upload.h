// Inputs in page-locked memory (xhd_host_pin) sent to a GPU before the host frames them. A copy from such memory
// is the DMA engine's alone, so it runs while the host's framing pass reads the same points: at a billion float
// points a side on the H200 host that pass took 0.17 s beside 0.22 s (two GPUs, half each) to 0.44 s (one GPU)
// of copies (docs/benchmarks.md, stop 54). The run takes the copy once its frame is known, where the frame kept
// the input as it is (float sets, no duplicate dropped, no loose point); otherwise it is dropped unused. From
// pageable memory nothing starts early: its staged copy needs the host's cores, which the framing pass is using.
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include "device_extent.h"

namespace xhd {

class EarlyUpload {
 public:
  EarlyUpload() = default;
  EarlyUpload(const EarlyUpload&) = delete;
  EarlyUpload& operator=(const EarlyUpload&) = delete;
  EarlyUpload(EarlyUpload&& o) noexcept { swap(o); }
  EarlyUpload& operator=(EarlyUpload&& o) noexcept {
    drop();
    swap(o);
    return *this;
  }
  ~EarlyUpload() { drop(); }

  // Points [first, first + count) of xyz on their way to `device`, when xyz is page-locked and the device has
  // the memory; else nothing (held() false). Leaves the calling thread's current device as it found it.
  static EarlyUpload start(const float* xyz, uint64_t first, uint64_t count, int device);

  // Whether this is the copy of points [first, first + count) of xyz (on its device).
  bool holds(const float* xyz, uint64_t first, uint64_t count) const {
    return copy_ != nullptr && xyz == source_ && first == first_ && count == count_;
  }
  uint64_t bytes() const { return copy_ != nullptr ? 12 * count_ : 0; }
  bool started() const { return copy_ != nullptr; }

  // The copy's extent and coordinate check (device_extent.h), once it has arrived. Only when started().
  ScannedExtent scan() const;

  // The device copy for work queued on `stream` (of its device), which is made to wait for its arrival. The
  // copy is then that stream's: it is freed in the stream's order after the work queued so far (release_after).
  const float* take(cudaStream_t stream);
  void release_after(cudaStream_t stream);

 private:
  void drop();
  void swap(EarlyUpload& o) noexcept;

  const float* source_ = nullptr;
  uint64_t first_ = 0, count_ = 0;
  int device_ = -1;
  float* copy_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t arrived_ = nullptr;
  cudaStream_t taker_ = nullptr;  // the stream that took the copy, if one did
};

// The extent of every point the copies hold together, found on their GPUs, when every one of them was started
// and none holds a coordinate that check_coordinates refuses; false otherwise, and the host's framing pass then
// checks and measures the input itself (naming a bad coordinate as ever).
bool extent_of_copies(const std::vector<EarlyUpload*>& copies, Extent3& extent);

}  // namespace xhd
