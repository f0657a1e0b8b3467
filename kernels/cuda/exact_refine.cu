#include "exact_refine.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "../common/box_math.h"
#include "cuda_check.h"
#include "launch.h"
#include "refine_on_host.h"

namespace xhd {
namespace {

constexpr int kThreads = 256;

// The float a cmax word or survivor entry holds (host side of __uint_as_float).
float float_of(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
// Survivor x target pairs the candidate kernel scans; beyond this the survivors are settled on the host
// through a CPU grid of the target instead (a shifted copy makes every query a survivor).
constexpr uint64_t kMaxScanPairs = 1ull << 36;

// Every (survivor, target) pair whose computed squared distance is within the survivor's reach (in w):
// a superset of the targets truly within its float search's nearest distance, its true nearest among them.
__global__ void candidates_kernel(const float4* targets, uint32_t target_count, const float4* probes, uint32_t probe_count,
                                  uint2* out, uint32_t capacity, uint32_t* count) {
  __shared__ float4 tile[kThreads];
  for (uint32_t first = 0; first < probe_count; first += kThreads) {
    __syncthreads();
    if (first + threadIdx.x < probe_count) tile[threadIdx.x] = probes[first + threadIdx.x];
    __syncthreads();
    const uint32_t in_tile = min(static_cast<uint32_t>(kThreads), probe_count - first);
    for (uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < target_count; j += gridDim.x * blockDim.x) {
      const float4 t = targets[j];
      for (uint32_t s = 0; s < in_tile; ++s) {
        const float4 p = tile[s];
        if (dist2(p.x, p.y, p.z, t.x, t.y, t.z) <= p.w) {
          const uint32_t at = atomicAdd(count, 1u);
          if (at < capacity) out[at] = make_uint2(first + s, __float_as_uint(t.w));
        }
      }
    }
  }
}

struct Best {
  double dist2 = INFINITY;
  uint32_t target = UINT32_MAX;
};

// The survivors' nearest targets through the candidate kernel, or false when there were more candidates
// than room twice over (then the host path settles them).
bool nearest_by_scan(DeviceMemory& memory, const RefineInput& in, const std::vector<uint2>& open, cudaStream_t stream,
                     std::vector<Best>& best) {
  const uint32_t k = static_cast<uint32_t>(open.size());
  std::vector<float4> probes(k);
  for (uint32_t s = 0; s < k; ++s) {
    const float* p = &in.source->xyz[3ull * open[s].x];
    const float reach = in.bounds->reach(in.bounds->upper(float_of(open[s].y)));
    probes[s] = make_float4(p[0], p[1], p[2], reach);
  }
  DeviceArray<float4> device_probes(memory, k);
  XHD_CUDA(cudaMemcpyAsync(device_probes.get(), probes.data(), k * sizeof(float4), cudaMemcpyHostToDevice, stream));
  DeviceArray<uint32_t> count(memory, 1);
  std::vector<uint2> pairs;
  uint32_t capacity = std::max<uint32_t>(1u << 16, 8 * k);
  for (int attempt = 0; attempt < 2; ++attempt) {
    DeviceArray<uint2> out(memory, capacity);
    XHD_CUDA(cudaMemsetAsync(count.get(), 0, sizeof(uint32_t), stream));
    int device = 0, sms = 0;
    XHD_CUDA(cudaGetDevice(&device));
    XHD_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const unsigned blocks = std::min<unsigned>(sms * 8, blocks_for(in.target_count, kThreads));
    candidates_kernel<<<blocks, kThreads, 0, stream>>>(in.device_targets, in.target_count, device_probes.get(), k,
                                                      out.get(), capacity, count.get());
    XHD_CUDA_LAUNCHED("candidates_kernel");
    uint32_t found = 0;
    XHD_CUDA(cudaMemcpyAsync(&found, count.get(), sizeof(found), cudaMemcpyDeviceToHost, stream));
    XHD_CUDA(cudaStreamSynchronize(stream));
    if (found > capacity) {
      capacity = found;
      continue;
    }
    pairs.resize(found);
    XHD_CUDA(cudaMemcpyAsync(pairs.data(), out.get(), found * sizeof(uint2), cudaMemcpyDeviceToHost, stream));
    XHD_CUDA(cudaStreamSynchronize(stream));
    best.assign(k, Best{});
    for (const uint2& pair : pairs) {
      const double d2 = exact_dist2(in.source->truth, open[pair.x].x, in.target->truth, pair.y);
      Best& b = best[pair.x];
      if (d2 < b.dist2 || (d2 == b.dist2 && pair.y < b.target)) b = {d2, pair.y};
    }
    for (const Best& b : best)
      if (b.target == UINT32_MAX) throw std::logic_error("a survivor's scan found no target within its reach");
    return true;
  }
  return false;
}

}  // namespace

SurvivorSink::SurvivorSink(DeviceMemory& memory, uint32_t capacity, cudaStream_t stream)
    : entries_(memory, std::max<uint32_t>(capacity, 1)), count_(memory, 1), capacity_(std::max<uint32_t>(capacity, 1)),
      stream_(stream) {
  XHD_CUDA(cudaMemsetAsync(count_.get(), 0, sizeof(uint32_t), stream_));
}

double SurvivorSink::drain(unsigned long long cmax_word, const FilterBounds& bounds) {
  cudaEvent_t start, stop;
  XHD_CUDA(cudaEventCreate(&start));
  XHD_CUDA(cudaEventCreate(&stop));
  XHD_CUDA(cudaEventRecord(start, stream_));
  uint32_t n = 0;
  XHD_CUDA(cudaMemcpyAsync(&n, count_.get(), sizeof(n), cudaMemcpyDeviceToHost, stream_));
  XHD_CUDA(cudaStreamSynchronize(stream_));
  if (n > capacity_) throw std::logic_error("more survivors than queries");
  std::vector<uint2> fresh(n);
  if (n > 0)
    XHD_CUDA(cudaMemcpyAsync(fresh.data(), entries_.get(), n * sizeof(uint2), cudaMemcpyDeviceToHost, stream_));
  XHD_CUDA(cudaMemsetAsync(count_.get(), 0, sizeof(uint32_t), stream_));
  XHD_CUDA(cudaEventRecord(stop, stream_));
  XHD_CUDA(cudaEventSynchronize(stop));
  float ms = 0.f;
  XHD_CUDA(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  const float threshold = cmax_word == 0 ? -1.f : bounds.prune_threshold(float_of(static_cast<uint32_t>(cmax_word >> 32)));
  for (const uint2& s : fresh)
    if (float_of(s.y) > threshold) kept_.push_back(s);
  return ms;
}

void refine_in_double(DeviceMemory& memory, const RefineInput& in, std::vector<uint2>& survivors,
                      unsigned long long cmax_word, cudaStream_t stream, xhd_directed& out) {
  if (cmax_word == 0) throw std::runtime_error("no query reached the result");
  const float threshold = in.bounds->prune_threshold(float_of(static_cast<uint32_t>(cmax_word >> 32)));
  std::vector<uint2> open;
  for (const uint2& s : survivors)
    if (float_of(s.y) > threshold) open.push_back(s);
  std::sort(open.begin(), open.end(), [](const uint2& a, const uint2& b) { return a.x < b.x; });
  open.erase(std::unique(open.begin(), open.end(), [](const uint2& a, const uint2& b) { return a.x == b.x; }), open.end());
  if (open.empty()) throw std::logic_error("the float search left no survivor");
  out.exact_checks = open.size();

  std::vector<Best> best;
  const bool scanned = static_cast<uint64_t>(open.size()) * in.target_count <= kMaxScanPairs &&
                       nearest_by_scan(memory, in, open, stream, best);
  if (!scanned) {
    std::vector<uint32_t> sources(open.size());
    for (size_t s = 0; s < open.size(); ++s) sources[s] = open[s].x;
    std::vector<double> dist2(open.size());
    std::vector<uint32_t> target(open.size());
    nearest_on_host(*in.source, *in.target, *in.bounds, sources, in.threads, dist2, target);
    best.resize(open.size());
    for (size_t s = 0; s < open.size(); ++s) best[s] = {dist2[s], target[s]};
  }
  size_t winner = 0;  // open is sorted by source index: strict > keeps the smallest among ties
  for (size_t s = 1; s < open.size(); ++s)
    if (best[s].dist2 > best[winner].dist2) winner = s;
  out.from_index = open[winner].x;
  out.to_index = best[winner].target;
  out.distance = std::sqrt(best[winner].dist2);
}

}  // namespace xhd
