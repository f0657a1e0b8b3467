#include "slab_exchange.h"

#include <algorithm>
#include <chrono>

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "../abi/env_switch.h"
#include "../abi/host_phases.h"
#include "../abi/work_split.h"
#include "cuda_check.h"
#include "device_session.h"
#include "launch.h"
#include "staged_upload.h"

namespace xhd {
namespace {

constexpr int kThreads = 256;
// DeviceSelect's item count is an int: a share goes through it in pieces of this size.
constexpr uint64_t kSelectPiece = uint64_t(1) << 30;

// 1 where the point lies within the part's halo (lower <= x <= upper, slab_layout's compare).
__global__ void mark_held_kernel(const float* xyz, uint64_t n, int axis, float lower, float upper, uint8_t* held) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    const float x = xyz[3 * i + axis];
    held[i] = static_cast<uint8_t>((x >= lower) & (x <= upper));
  }
}

// The picked points' coordinates from the share (whose first point is the set's `first`) and their in-slab
// flags (lo <= x < hi), and the count of those flags.
__global__ void gather_contribution_kernel(const float* share, uint32_t first, const uint32_t* picked, uint64_t n,
                                           int axis, float lo, float hi, float* raw, uint8_t* in_slab,
                                           unsigned long long* slab_count) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  // Every thread of the block runs the same number of rounds (the block's count needs all of them).
  for (uint64_t base = blockIdx.x * uint64_t(blockDim.x); base < n; base += stride) {
    const uint64_t k = base + threadIdx.x;
    int own = 0;
    if (k < n) {
      const float* p = share + 3 * uint64_t(picked[k] - first);
      raw[3 * k] = p[0];
      raw[3 * k + 1] = p[1];
      raw[3 * k + 2] = p[2];
      own = (p[axis] >= lo) & (p[axis] < hi);
      in_slab[k] = static_cast<uint8_t>(own);
    }
    const int block_own = __syncthreads_count(own);
    if (threadIdx.x == 0 && block_own > 0) atomicAdd(slab_count, static_cast<unsigned long long>(block_own));
  }
}

// What a worker offers the others for one set: per slab, its contribution's arrays (kept until every worker
// has copied from them).
struct Offered {
  DeviceArray<float> raw;
  DeviceArray<uint32_t> set_index;
  DeviceArray<uint8_t> in_slab;
};

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Set s's share of worker w uploaded, and for each slab the points its part holds picked out in order.
void offer_share(DeviceMemory& memory, SlabExchange& ex, int s, int w, cudaStream_t stream, std::vector<Offered>& out,
                 HostPhases& phases) {
  const int workers = ex.workers();
  const FramedSet& set = ex.set(s);
  const uint64_t first = set.count * w / workers, end = set.count * (w + 1) / workers, n = end - first;
  out.resize(workers);
  for (int v = 0; v < workers; ++v) ex.contribution(s, w, v) = Contribution{};
  if (n == 0) return;
  // The share's points: sent early, or uploaded now.
  EarlyUpload* early = ex.early(s, w);
  if (early != nullptr && !early->holds(set.xyz, first, n)) early = nullptr;
  DeviceArray<float> uploaded;
  const float* share = nullptr;
  if (early != nullptr) {
    share = early->take(stream);
  } else {
    uploaded = DeviceArray<float>(memory, 3 * n);
    copy_to_device(uploaded.get(), set.xyz + 3 * first, 12 * n, stream);
    share = uploaded.get();
  }
  phases.mark(early != nullptr ? (s == 0 ? "A's share taken" : "B's share taken")
                               : (s == 0 ? "A's share uploaded" : "B's share uploaded"));
  DeviceArray<uint8_t> held(memory, n);
  DeviceArray<uint32_t> picked(memory, n);
  DeviceArray<int> piece_count(memory, 1);
  DeviceArray<unsigned long long> slab_count(memory, 1);
  size_t scratch_bytes = 0;
  const int largest_piece = static_cast<int>(std::min(n, kSelectPiece));
  XHD_CUDA(cub::DeviceSelect::Flagged(nullptr, scratch_bytes, thrust::counting_iterator<uint32_t>(0), held.get(),
                                      picked.get(), piece_count.get(), largest_piece, stream));
  DeviceArray<uint8_t> scratch(memory, std::max<size_t>(scratch_bytes, 1));
  const FloatSlabEdges& e = ex.edges(s);
  for (int v = 0; v < workers; ++v) {
    mark_held_kernel<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(share, n, ex.axis(), e.lower[v],
                                                                       e.upper[v], held.get());
    XHD_CUDA_LAUNCHED("mark_held_kernel");
    uint64_t count = 0;
    for (uint64_t begin = 0; begin < n; begin += kSelectPiece) {
      const int items = static_cast<int>(std::min(kSelectPiece, n - begin));
      XHD_CUDA(cub::DeviceSelect::Flagged(scratch.get(), scratch_bytes,
                                          thrust::counting_iterator<uint32_t>(static_cast<uint32_t>(first + begin)),
                                          held.get() + begin, picked.get() + count, piece_count.get(), items, stream));
      int got = 0;
      XHD_CUDA(cudaMemcpyAsync(&got, piece_count.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
      XHD_CUDA(cudaStreamSynchronize(stream));
      count += static_cast<uint64_t>(got);
    }
    if (count == 0) continue;
    Offered& o = out[v];
    o.raw = DeviceArray<float>(memory, 3 * count);
    o.set_index = DeviceArray<uint32_t>(memory, count);
    o.in_slab = DeviceArray<uint8_t>(memory, count);
    XHD_CUDA(cudaMemcpyAsync(o.set_index.get(), picked.get(), 4 * count, cudaMemcpyDeviceToDevice, stream));
    XHD_CUDA(cudaMemsetAsync(slab_count.get(), 0, sizeof(unsigned long long), stream));
    gather_contribution_kernel<<<blocks_for(count, kThreads), kThreads, 0, stream>>>(
        share, static_cast<uint32_t>(first), picked.get(), count, ex.axis(), e.lo[v], e.hi[v], o.raw.get(),
        o.in_slab.get(), slab_count.get());
    XHD_CUDA_LAUNCHED("gather_contribution_kernel");
    unsigned long long own = 0;
    XHD_CUDA(cudaMemcpyAsync(&own, slab_count.get(), sizeof(own), cudaMemcpyDeviceToHost, stream));
    XHD_CUDA(cudaStreamSynchronize(stream));
    ex.contribution(s, w, v) = Contribution{o.raw.get(), o.set_index.get(), o.in_slab.get(), count, own};
  }
  if (early != nullptr) early->release_after(stream);
  phases.mark(s == 0 ? "A's contributions picked" : "B's contributions picked");
}

// Worker w's part of set s: every worker's contribution to it, in worker order, copied to w's device (over the
// peer link from another device).
DevicePart collect_part(DeviceMemory& memory, SlabExchange& ex, int s, int w, cudaStream_t stream) {
  DevicePart part;
  for (int u = 0; u < ex.workers(); ++u) {
    part.count += ex.contribution(s, u, w).count;
    part.slab_count += ex.contribution(s, u, w).slab_count;
  }
  if (part.count == 0) return part;
  part.raw = DeviceArray<float>(memory, 3 * part.count);
  part.set_index = DeviceArray<uint32_t>(memory, part.count);
  part.in_slab = DeviceArray<uint8_t>(memory, part.count);
  uint64_t at = 0;
  for (int u = 0; u < ex.workers(); ++u) {
    const Contribution& c = ex.contribution(s, u, w);
    if (c.count == 0) continue;
    XHD_CUDA(cudaMemcpyAsync(part.raw.get() + 3 * at, c.raw, 12 * c.count, cudaMemcpyDefault, stream));
    XHD_CUDA(cudaMemcpyAsync(part.set_index.get() + at, c.set_index, 4 * c.count, cudaMemcpyDefault, stream));
    XHD_CUDA(cudaMemcpyAsync(part.in_slab.get() + at, c.in_slab, c.count, cudaMemcpyDefault, stream));
    at += c.count;
  }
  return part;
}

}  // namespace

void Rendezvous::arrive() {
  std::unique_lock<std::mutex> guard(lock_);
  if (abandoned_) throw PartnerFailed();
  const uint64_t step = step_;
  if (++arrived_ == parties_) {
    arrived_ = 0;
    ++step_;
    changed_.notify_all();
    return;
  }
  changed_.wait(guard, [&] { return step_ != step || abandoned_; });
  if (step_ == step) throw PartnerFailed();
}

void Rendezvous::abandon() {
  std::lock_guard<std::mutex> guard(lock_);
  abandoned_ = true;
  changed_.notify_all();
}

SlabExchange::SlabExchange(const PointFrame& frame, const SlabPlan& plan, double halo_a, double halo_b, int workers,
                           std::vector<EarlyUpload>* early)
    : a_(&frame.a),
      b_(&frame.b),
      axis_(plan.axis),
      workers_(workers),
      edges_{float_slab_edges(plan, halo_a), float_slab_edges(plan, halo_b)},
      offered_(size_t(2) * workers * workers),
      rendezvous_(workers),
      early_(early != nullptr && early->size() == size_t(2) * workers ? early : nullptr) {}

std::vector<EarlyUpload> start_share_uploads(const xhd_points& a, const xhd_points& b, const std::vector<int>& devices) {
  std::vector<EarlyUpload> early;
  if (a.xyz == nullptr || b.xyz == nullptr || !switched_on("XHD_EXCHANGED_SLABS") || !switched_on("XHD_GATHERED_SLABS"))
    return early;
  if (!is_pinned(a.xyz, 12 * a.count) || !is_pinned(b.xyz, 12 * b.count)) return early;
  const uint64_t workers = devices.size();
  for (const xhd_points* set : {&a, &b})
    for (uint64_t w = 0; w < workers; ++w) {
      const uint64_t first = set->count * w / workers, end = set->count * (w + 1) / workers;
      early.push_back(EarlyUpload::start(set->xyz, first, end - first, devices[w]));
    }
  return early;
}

bool gpus_exchange_parts(const PointFrame& frame, const std::vector<int>& devices) {
  if (!switched_on("XHD_EXCHANGED_SLABS")) return false;
  const auto in_place_floats = [](const FramedSet& s) {
    return s.truth.f32 != nullptr && s.truth.f64 == nullptr && s.xyz == s.truth.f32;
  };
  if (!in_place_floats(frame.a) || !in_place_floats(frame.b) || frame.has_loose()) return false;
  return open_pools_to_each_other(devices);
}

std::array<DevicePart, 2> exchange_parts(DeviceMemory& memory, SlabExchange& ex, int w, cudaStream_t stream,
                                         double& upload_ms) {
  const auto start = std::chrono::steady_clock::now();
  HostPhases phases("exchange " + std::to_string(w));
  try {
    std::vector<Offered> offered_a, offered_b;
    offer_share(memory, ex, 0, w, stream, offered_a, phases);
    offer_share(memory, ex, 1, w, stream, offered_b, phases);
    XHD_CUDA(cudaStreamSynchronize(stream));
    injected_fault(w);  // tests: a worker lost while the others wait for its contributions
    ex.rendezvous().arrive();  // every worker's contributions are on its device
    phases.mark("others' contributions ready");
    std::array<DevicePart, 2> parts{collect_part(memory, ex, 0, w, stream), collect_part(memory, ex, 1, w, stream)};
    XHD_CUDA(cudaStreamSynchronize(stream));
    phases.mark("parts collected");
    ex.rendezvous().arrive();  // every copy from the contributions is done: each worker may free its own
    phases.mark("others' copies done");
    upload_ms += ms_since(start);
    return parts;
  } catch (const PartnerFailed&) {
    throw;
  } catch (...) {
    ex.rendezvous().abandon();
    throw;
  }
}

}  // namespace xhd
