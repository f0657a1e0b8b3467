#include "device_session.h"

#include <cstdlib>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "placement.h"

namespace xhd {

namespace {

// Handles kept per device, at most kKeptHandles of each kind (more are destroyed on their return): as many as
// the calls running at once have needed. Never destroyed itself: the driver may be gone by the process's end.
constexpr size_t kKeptHandles = 64;

template <class Handle>
struct KeptHandles {
  std::mutex m;
  std::vector<std::vector<Handle>> per_device;

  // One kept for `device`, or null.
  Handle take(int device) {
    std::lock_guard<std::mutex> lock(m);
    if (device < 0 || static_cast<size_t>(device) >= per_device.size() || per_device[device].empty()) return nullptr;
    Handle h = per_device[device].back();
    per_device[device].pop_back();
    return h;
  }
  // Whether `h` was kept (else the caller destroys it).
  bool keep(int device, Handle h) {
    if (device < 0) return false;
    std::lock_guard<std::mutex> lock(m);
    if (static_cast<size_t>(device) >= per_device.size()) per_device.resize(device + 1);
    if (per_device[device].size() >= kKeptHandles) return false;
    per_device[device].push_back(h);
    return true;
  }
};

KeptHandles<cudaStream_t>& kept_streams() {
  static auto* kept = new KeptHandles<cudaStream_t>;
  return *kept;
}

KeptHandles<cudaEvent_t>& kept_events() {
  static auto* kept = new KeptHandles<cudaEvent_t>;
  return *kept;
}

}  // namespace

int current_device() {
  int device = 0;
  XHD_CUDA(cudaGetDevice(&device));
  return device;
}

cudaStream_t take_stream(int device) {
  if (cudaStream_t s = kept_streams().take(device)) return s;
  cudaStream_t s = nullptr;
  XHD_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return s;
}

void give_back_stream(int device, cudaStream_t stream) {
  if (stream != nullptr && !kept_streams().keep(device, stream)) cudaStreamDestroy(stream);
}

cudaEvent_t take_timing_event(int device) {
  if (cudaEvent_t e = kept_events().take(device)) return e;
  cudaEvent_t e = nullptr;
  XHD_CUDA(cudaEventCreate(&e));
  return e;
}

void give_back_timing_event(int device, cudaEvent_t event) {
  if (event != nullptr && !kept_events().keep(device, event)) cudaEventDestroy(event);
}

int usable_device_count() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess && count > 0) return count;
  cudaGetLastError();
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  const std::string built = std::to_string(runtime / 1000) + "." + std::to_string((runtime % 1000) / 10);
  switch (status) {
    case cudaSuccess:
    case cudaErrorNoDevice:
      throw DeviceUnavailable("no CUDA GPU found");
    case cudaErrorInsufficientDriver:
      throw DeviceUnavailable("the NVIDIA driver is missing or older than CUDA " + built +
                              ", which this library was built with");
    default:
      throw DeviceUnavailable(std::string("CUDA cannot start: ") + cudaGetErrorString(status));
  }
}

uint64_t device_memory_budget(int device) {
  // The default pool serves cudaMallocAsync. It keeps freed memory for the next call of this process
  // (as framework caching allocators do) instead of unmapping it at every synchronization.
  cudaMemPool_t pool = nullptr;
  XHD_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
  uint64_t keep = UINT64_MAX;
  XHD_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  uint64_t reserved = 0, used = 0;
  XHD_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  XHD_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  size_t free_bytes = 0, total_bytes = 0;
  XHD_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  free_bytes += reserved > used ? reserved - used : 0;
  const uint64_t reserve = 256ull << 20;  // cuBLAS-free, but the runtime and CUB scratch need some
  uint64_t budget = free_bytes > reserve ? free_bytes - reserve : 0;
  if (const char* limit = std::getenv("XHD_CUDA_MEMORY_LIMIT")) {
    const unsigned long long asked = std::strtoull(limit, nullptr, 10);
    if (asked > 0 && asked < budget) budget = asked;
  }
  return budget;
}

}  // namespace xhd

namespace xhd {

void check_devices(const Placement& placement) {
  const int count = usable_device_count();
  for (const int d : placement.devices)
    if (d < 0 || d >= count)
      throw InvalidArgument("device " + std::to_string(d) + " does not exist (" + std::to_string(count) +
                            " CUDA device" + (count == 1 ? "" : "s") + " found)");
}

std::vector<uint64_t> worker_budgets(const Placement& placement) {
  std::vector<uint64_t> budgets;
  for (const int d : placement.devices) {
    int sharing = 0;
    for (const int other : placement.devices) sharing += other == d ? 1 : 0;
    XHD_CUDA(cudaSetDevice(d));
    uint64_t budget = device_memory_budget(d) / static_cast<uint64_t>(sharing);
    if (placement.memory_limit > 0 && placement.memory_limit < budget) budget = placement.memory_limit;
    budgets.push_back(budget);
  }
  return budgets;
}

std::vector<std::string> worker_labels(const Placement& placement) {
  std::vector<std::string> labels;
  const int workers = static_cast<int>(placement.devices.size());
  for (int w = 0; w < workers; ++w) labels.push_back(worker_label(placement.devices[w], w, workers));
  return labels;
}

bool open_pools_to_each_other(const std::vector<int>& devices) {
  static std::mutex lock;
  static std::set<std::pair<int, int>> opened;
  std::lock_guard<std::mutex> guard(lock);
  for (const int owner : devices)
    for (const int reader : devices) {
      if (owner == reader || opened.count({owner, reader}) != 0) continue;
      int can = 0;
      XHD_CUDA(cudaDeviceCanAccessPeer(&can, reader, owner));
      if (can == 0) return false;
      cudaMemPool_t pool = nullptr;
      XHD_CUDA(cudaDeviceGetDefaultMemPool(&pool, owner));
      cudaMemAccessDesc access{};
      access.location.type = cudaMemLocationTypeDevice;
      access.location.id = reader;
      access.flags = cudaMemAccessFlagsProtReadWrite;
      XHD_CUDA(cudaMemPoolSetAccess(pool, &access, 1));
      opened.insert({owner, reader});
    }
  return true;
}

}  // namespace xhd
