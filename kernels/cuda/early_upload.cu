#include "early_upload.h"

#include <utility>

#include "cuda_check.h"
#include "device_session.h"
#include "staged_upload.h"

namespace xhd {
namespace {

// Makes `device` current for the scope and puts back the thread's device after it.
class OnDevice {
 public:
  explicit OnDevice(int device) : before_(current_device()) { XHD_CUDA(cudaSetDevice(device)); }
  ~OnDevice() { cudaSetDevice(before_); }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;

 private:
  int before_;
};

}  // namespace

EarlyUpload EarlyUpload::start(const float* xyz, uint64_t first, uint64_t count, int device) {
  EarlyUpload u;
  if (xyz == nullptr || count == 0 || !is_pinned(xyz + 3 * first, 12 * count)) return u;
  OnDevice on(device);
  u.source_ = xyz;
  u.first_ = first;
  u.count_ = count;
  u.device_ = device;
  u.stream_ = take_stream(device);
  void* copy = nullptr;
  if (cudaMallocAsync(&copy, 12 * count, u.stream_) != cudaSuccess) {
    cudaGetLastError();  // no room: the run uploads when it needs the points, as without this
    return u;
  }
  u.copy_ = static_cast<float*>(copy);
  XHD_CUDA(cudaMemcpyAsync(u.copy_, xyz + 3 * first, 12 * count, cudaMemcpyHostToDevice, u.stream_));
  XHD_CUDA(cudaEventCreateWithFlags(&u.arrived_, cudaEventDisableTiming));
  XHD_CUDA(cudaEventRecord(u.arrived_, u.stream_));
  return u;
}

ScannedExtent EarlyUpload::scan() const {
  OnDevice on(device_);
  return scan_extent(copy_, count_, stream_);
}

// The extent of every set these copies hold, when all of them were started and none holds a coordinate that
// check_coordinates refuses: the frame then needs no pass of the host's over the input. False otherwise (the
// host's pass then checks and measures, and names a bad coordinate as ever).
bool extent_of_copies(const std::vector<EarlyUpload*>& copies, Extent3& extent) {
  if (copies.empty()) return false;
  for (const EarlyUpload* c : copies)
    if (c == nullptr || !c->started()) return false;
  Extent3 all;
  for (const EarlyUpload* c : copies) {
    const ScannedExtent s = c->scan();
    if (s.bad) return false;
    all.merge(s.extent);
  }
  extent = all;
  return true;
}

const float* EarlyUpload::take(cudaStream_t stream) {
  XHD_CUDA(cudaStreamWaitEvent(stream, arrived_, 0));
  taker_ = stream;
  return copy_;
}

void EarlyUpload::release_after(cudaStream_t stream) {
  if (copy_ == nullptr) return;
  XHD_CUDA(cudaFreeAsync(copy_, stream));
  copy_ = nullptr;
}

void EarlyUpload::drop() {
  if (device_ < 0) return;
  OnDevice on(device_);
  // After the copy, and after whatever the stream that took it has queued (a run that failed before releasing it).
  if (copy_ != nullptr) cudaFreeAsync(copy_, taker_ != nullptr ? taker_ : stream_);
  if (arrived_ != nullptr) cudaEventDestroy(arrived_);
  give_back_stream(device_, stream_);
  copy_ = nullptr;
  arrived_ = nullptr;
  stream_ = nullptr;
  taker_ = nullptr;
  device_ = -1;
}

void EarlyUpload::swap(EarlyUpload& o) noexcept {
  std::swap(source_, o.source_);
  std::swap(first_, o.first_);
  std::swap(count_, o.count_);
  std::swap(device_, o.device_);
  std::swap(copy_, o.copy_);
  std::swap(stream_, o.stream_);
  std::swap(arrived_, o.arrived_);
  std::swap(taker_, o.taker_);
}

}  // namespace xhd
