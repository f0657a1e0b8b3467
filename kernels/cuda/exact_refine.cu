#include "exact_refine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "../abi/env_switch.h"
#include "../geometry/box_math.h"
#include "../abi/parallel.h"
#include "cuda_check.h"
#include "exact_visit.cuh"
#include "launch.h"
#include "loose_refine.h"
#include "query_state.cuh"
#include "refine_on_host.h"

namespace xhd {
namespace {

constexpr int kThreads = 256;

// The pruning threshold a cmax word proves, on the host (threshold_of in query_state.cuh on the device).
float threshold_of_word(unsigned long long word, const FilterBounds& bounds) {
  return word == 0 ? -1.f : bounds.prune_threshold(distance2_of_word(word));
}
// Survivor x target pairs the candidate kernel scans; beyond this the survivors are settled on the host
// through a CPU grid of the target instead. XHD_CUDA_MAX_SCAN_PAIRS lowers it (tests reach that path so).
uint64_t max_scan_pairs() {
  const char* limit = std::getenv("XHD_CUDA_MAX_SCAN_PAIRS");
  return limit != nullptr ? std::strtoull(limit, nullptr, 10) : 1ull << 36;
}

// Whether survivors whose reach is too wide for grid stepping go down the grid's tree (the default), or
// straight to the scan and the host grid below; XHD_CUDA_REFINE_TREE=0 sends them there, so tests reach them.
bool refine_through_tree() { return switched_on("XHD_CUDA_REFINE_TREE"); }

// Every (survivor, target) pair whose computed squared distance is within the survivor's reach (in w):
// a superset of the targets truly within its float search's nearest distance, its true nearest among them.
__global__ void candidates_kernel(const float4* targets, uint32_t target_count, const float4* probes,
                                  uint32_t probe_count, uint2* out, uint32_t capacity, uint32_t* count) {
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

// Up to this many survivors with double inputs, candidate pairs are settled on the host; past it the
// targets' doubles are uploaded and the device settles them (a shifted copy makes every query one).
constexpr size_t kPairsOnHostUpTo = 1 << 16;

// The same pairs through the target's grid: each survivor (one thread) emits the points within its
// reach. A survivor the tree's descent could not finish (deeper than its stack) is listed in `wide` instead.
__global__ void range_candidates_kernel(GridView g, const float4* probes, uint32_t probe_count, uint2* out,
                                        uint32_t capacity, uint32_t* count, uint32_t* wide, uint32_t* wide_count,
                                        bool tree) {
  const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= probe_count) return;
  const float4 probe = probes[s];
  const float p[3] = {probe.x, probe.y, probe.z};
  float reach = probe.w;
  const auto emit = [&](const float4& t) {
    const uint32_t at = atomicAdd(count, 1u);
    if (at < capacity) out[at] = make_uint2(s, __float_as_uint(t.w));
  };
  // A reach wider than grid stepping's cells goes down the grid's tree (nodes beyond it skipped).
  const bool narrow = visit_within_reach(g, p, reach, emit) || (tree && visit_within_reach_tree(g, p, reach, emit));
  if (!narrow) wide[atomicAdd(wide_count, 1u)] = s;
}

// The truth of the points for the device's double evaluations: doubles (source per probe, target by
// original index), or null where the float copies are the truth (FilterBounds::copies_exact).
struct DeviceTruth {
  const double* source;
  const double* target;
};

// Through the grid as range_candidates_kernel, but each survivor keeps its nearest in double itself (the
// formula of exact_dist2: differences, squares, x + y + z, no fused multiply-add in this library), ties to
// the smaller index, its reach shrinking as it goes. A survivor the tree's descent could not finish gets
// index UINT32_MAX, as would one that found nothing within its reach (none should): the host settles both
// another way.
__global__ void range_best_kernel(GridView g, const float4* probes, uint32_t probe_count, DeviceTruth truth,
                                  FilterBounds bounds, double* best_d2, uint32_t* best_index, bool tree) {
  const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= probe_count) return;
  const float4 probe = probes[s];
  const float p[3] = {probe.x, probe.y, probe.z};
  float reach = probe.w;
  const double x = truth.source ? truth.source[3ull * s] : p[0];
  const double y = truth.source ? truth.source[3ull * s + 1] : p[1];
  const double z = truth.source ? truth.source[3ull * s + 2] : p[2];
  double best = INFINITY;
  uint32_t index = UINT32_MAX;
  const auto keep_nearest = [&](const float4& t) {
    const uint32_t id = __float_as_uint(t.w);
    const double* tt = truth.target ? truth.target + 3ull * id : nullptr;
    const double dx = x - (tt ? tt[0] : t.x), dy = y - (tt ? tt[1] : t.y), dz = z - (tt ? tt[2] : t.z);
    const double d2 = dx * dx + dy * dy + dz * dz;
    if (d2 < best || (d2 == best && id < index)) {
      best = d2;
      index = id;
      reach = bounds.reach(sqrt(best));
    }
  };
  // A reach wider than grid stepping's cells (sets far apart: every survivor's) goes down the grid's tree,
  // nearer nodes first, so the reach shrinks early; only a descent deeper than its stack is left wide.
  const bool narrow =
      visit_within_reach(g, p, reach, keep_nearest) || (tree && visit_within_reach_tree(g, p, reach, keep_nearest));
  best_d2[s] = best;
  best_index[s] = narrow ? index : UINT32_MAX;
}

struct Best {
  double dist2 = INFINITY;
  uint32_t target = UINT32_MAX;
};

// Every survivor's probe: its float point, and as w the reach of the distance its float search found
// (every target truly within that distance has a computed squared distance within it).
std::vector<float4> probes_of(const RefineInput& in, const std::vector<uint2>& open) {
  std::vector<float4> probes(open.size());
  parallel_blocks(open.size(), 1 << 14, in.threads, [&](size_t begin, size_t end, int) {
    for (size_t s = begin; s < end; ++s) {
      const float* p = &in.source->xyz[3ull * open[s].x];
      probes[s] = make_float4(p[0], p[1], p[2], in.bounds->reach(in.bounds->upper(float_of(open[s].y))));
    }
  });
  return probes;
}

// The (probe, target) pairs a launch emits, grown and launched again once if they did not fit. The launch
// counts its pairs in meta[0] and may use the rest of `meta` (zeroed before it) for its own outputs; the
// whole of meta comes back with the count, in one transfer, and is returned in `meta_host`.
template <class Launch>
std::vector<uint2> collect_pairs(DeviceMemory& memory, uint32_t first_capacity, DeviceArray<uint32_t>& meta,
                                 std::vector<uint32_t>& meta_host, cudaStream_t stream, Launch launch) {
  uint32_t capacity = first_capacity;
  meta_host.resize(meta.size());
  for (;;) {
    DeviceArray<uint2> out(memory, capacity);
    XHD_CUDA(cudaMemsetAsync(meta.get(), 0, meta.size() * sizeof(uint32_t), stream));
    launch(out.get(), capacity, meta.get());
    XHD_CUDA(
        cudaMemcpyAsync(meta_host.data(), meta.get(), meta.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost, stream));
    XHD_CUDA(cudaStreamSynchronize(stream));
    const uint32_t found = meta_host[0];
    if (found > capacity) {
      capacity = found;
      continue;
    }
    std::vector<uint2> pairs(found);
    if (found > 0) {
      XHD_CUDA(cudaMemcpyAsync(pairs.data(), out.get(), found * sizeof(uint2), cudaMemcpyDeviceToHost, stream));
      XHD_CUDA(cudaStreamSynchronize(stream));
    }
    return pairs;
  }
}

int multiprocessors() {
  int device = 0, sms = 0;
  XHD_CUDA(cudaGetDevice(&device));
  XHD_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// Candidate pairs for the probes listed in `which` (indices into probes) by a scan of every target.
std::vector<uint2> scan_pairs(DeviceMemory& memory, const RefineInput& in, const std::vector<float4>& probes,
                              const std::vector<uint32_t>& which, cudaStream_t stream) {
  std::vector<float4> chosen(which.size());
  for (size_t k = 0; k < which.size(); ++k) chosen[k] = probes[which[k]];
  DeviceArray<float4> device_probes(memory, chosen.size());
  XHD_CUDA(cudaMemcpyAsync(device_probes.get(), chosen.data(), chosen.size() * sizeof(float4), cudaMemcpyHostToDevice,
                           stream));
  const unsigned blocks = std::min<unsigned>(multiprocessors() * 8, blocks_for(in.target_count, kThreads));
  DeviceArray<uint32_t> meta(memory, 1);
  std::vector<uint32_t> meta_host;
  std::vector<uint2> pairs = collect_pairs(memory, std::max<uint32_t>(1u << 16, 8 * chosen.size()), meta, meta_host,
                                           stream, [&](uint2* out, uint32_t capacity, uint32_t* count) {
                                             candidates_kernel<<<blocks, kThreads, 0, stream>>>(
                                                 in.device_targets, in.target_count, device_probes.get(),
                                                 static_cast<uint32_t>(chosen.size()), out, capacity, count);
                                             XHD_CUDA_LAUNCHED("candidates_kernel");
                                           });
  for (uint2& pair : pairs) pair.x = which[pair.x];
  return pairs;
}

// Candidate pairs through the grid; the probes whose descent it could not finish are returned in `wide`.
// Their list comes back with the pairs' count (meta: count, wide count, the wide probes).
std::vector<uint2> range_pairs(DeviceMemory& memory, const RefineInput& in, const std::vector<float4>& probes,
                               cudaStream_t stream, std::vector<uint32_t>& wide) {
  const uint32_t k = static_cast<uint32_t>(probes.size());
  DeviceArray<float4> device_probes(memory, k);
  XHD_CUDA(cudaMemcpyAsync(device_probes.get(), probes.data(), k * sizeof(float4), cudaMemcpyHostToDevice, stream));
  DeviceArray<uint32_t> meta(memory, 2 + static_cast<size_t>(k));
  std::vector<uint32_t> meta_host;
  const GridView view = in.grid->view();
  std::vector<uint2> pairs =
      collect_pairs(memory, std::max<uint32_t>(1u << 16, 4 * k), meta, meta_host, stream,
                    [&](uint2* out, uint32_t capacity, uint32_t* counts) {
                      range_candidates_kernel<<<blocks_for(k, kThreads), kThreads, 0, stream>>>(
                          view, device_probes.get(), k, out, capacity, counts, counts + 2, counts + 1, refine_through_tree());
                      XHD_CUDA_LAUNCHED("range_candidates_kernel");
                    });
  wide.assign(meta_host.begin() + 2, meta_host.begin() + 2 + meta_host[1]);
  return pairs;
}

// Each probe's nearest target among its candidate pairs, in double (ties to the smaller index), on the
// host's threads: pairs are grouped by probe so each group is one thread's.
void best_of_pairs(const RefineInput& in, const std::vector<uint2>& open, std::vector<uint2>& pairs,
                   std::vector<Best>& best) {
  std::sort(pairs.begin(), pairs.end(),
            [](const uint2& a, const uint2& b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
  parallel_blocks(pairs.size(), 4096, in.threads, [&](size_t begin, size_t end, int) {
    // A block may start inside a probe's group: its first probe's pairs from before `begin` are another
    // block's; the block that holds a group's first pair owns the whole group.
    size_t k = begin;
    if (k > 0)
      while (k < end && pairs[k].x == pairs[k - 1].x) ++k;
    while (k < end) {
      const uint32_t probe = pairs[k].x;
      Best b;
      for (; k < pairs.size() && pairs[k].x == probe; ++k) {
        const double d2 = exact_dist2(in.source->truth, open[probe].x, in.target->truth, pairs[k].y);
        if (d2 < b.dist2 || (d2 == b.dist2 && pairs[k].y < b.target)) b = {d2, pairs[k].y};
      }
      best[probe] = b;
    }
  });
}

// Each survivor's nearest in double through the grid on the device (range_best_kernel), with the truth
// uploaded where the float copies are not it; survivors it could not settle are returned in `wide`.
// One allocation and one transfer each way (probes in; squared distances and targets back) with one
// synchronization: for the few survivors of data that needs no refinement, this round trip is the cost.
void range_best(DeviceMemory& memory, const RefineInput& in, const std::vector<uint2>& open,
                const std::vector<float4>& probes, cudaStream_t stream, std::vector<Best>& best,
                std::vector<uint32_t>& wide) {
  const uint32_t k = static_cast<uint32_t>(probes.size());
  constexpr size_t kBackBytes = sizeof(double) + sizeof(uint32_t);  // per probe: its squared distance, its target
  DeviceArray<unsigned char> block(memory, k * (sizeof(float4) + kBackBytes));
  float4* device_probes = reinterpret_cast<float4*>(block.get());
  double* device_d2 = reinterpret_cast<double*>(device_probes + k);
  uint32_t* device_index = reinterpret_cast<uint32_t*>(device_d2 + k);
  XHD_CUDA(cudaMemcpyAsync(device_probes, probes.data(), k * sizeof(float4), cudaMemcpyHostToDevice, stream));
  DeviceArray<double> source_truth, target_truth;
  std::vector<double> source_host, target_host;
  if (!in.bounds->copies_exact) {
    source_host.resize(3ull * k);
    parallel_blocks(k, 1 << 14, in.threads, [&](size_t begin, size_t end, int) {
      for (size_t s = begin; s < end; ++s)
        for (int c = 0; c < 3; ++c) source_host[3 * s + c] = in.source->truth.coord(open[s].x, c);
    });
    source_truth = DeviceArray<double>(memory, source_host.size());
    XHD_CUDA(cudaMemcpyAsync(source_truth.get(), source_host.data(), source_host.size() * sizeof(double),
                             cudaMemcpyHostToDevice, stream));
    const PointTruth& t = in.target->truth;
    const double* target_doubles = t.f64;
    if (target_doubles == nullptr) {  // a float32 target beside a double source: its floats as doubles
      target_host.resize(3 * t.count);
      for (size_t i = 0; i < 3 * t.count; ++i) target_host[i] = t.f32[i];
      target_doubles = target_host.data();
    }
    target_truth = DeviceArray<double>(memory, 3 * t.count);
    XHD_CUDA(cudaMemcpyAsync(target_truth.get(), target_doubles, 3 * t.count * sizeof(double), cudaMemcpyHostToDevice,
                             stream));
  }
  range_best_kernel<<<blocks_for(k, kThreads), kThreads, 0, stream>>>(
      in.grid->view(), device_probes, k, DeviceTruth{source_truth.get(), target_truth.get()}, *in.bounds, device_d2,
      device_index, refine_through_tree());
  XHD_CUDA_LAUNCHED("range_best_kernel");
  std::vector<unsigned char> back(k * kBackBytes);
  XHD_CUDA(cudaMemcpyAsync(back.data(), device_d2, back.size(), cudaMemcpyDeviceToHost, stream));
  XHD_CUDA(cudaStreamSynchronize(stream));  // also what the host copies uploaded above must outlive
  const unsigned char* d2 = back.data();
  const unsigned char* index = back.data() + k * sizeof(double);
  for (uint32_t s = 0; s < k; ++s) {
    Best b;
    std::memcpy(&b.target, index + s * sizeof(uint32_t), sizeof(uint32_t));
    std::memcpy(&b.dist2, d2 + s * sizeof(double), sizeof(double));
    if (b.target == UINT32_MAX) wide.push_back(s);
    else best[s] = b;
  }
}

// Each open survivor's nearest target in double over the target the float search saw.
void settle_in_grid(DeviceMemory& memory, const RefineInput& in, const std::vector<uint2>& open, cudaStream_t stream,
                    std::vector<Best>& best) {
  const std::vector<float4> probes = probes_of(in, open);
  std::vector<uint32_t> rest;
  std::vector<uint2> pairs;
  if (in.grid != nullptr && (in.bounds->copies_exact || open.size() > kPairsOnHostUpTo)) {
    range_best(memory, in, open, probes, stream, best, rest);
  } else if (in.grid != nullptr) {
    pairs = range_pairs(memory, in, probes, stream, rest);
  } else {
    rest.resize(open.size());
    for (uint32_t s = 0; s < rest.size(); ++s) rest[s] = s;
  }
  if (!rest.empty() && static_cast<uint64_t>(rest.size()) * in.target_count <= max_scan_pairs()) {
    std::vector<uint2> scanned = scan_pairs(memory, in, probes, rest, stream);
    pairs.insert(pairs.end(), scanned.begin(), scanned.end());
    rest.clear();
  }
  best_of_pairs(in, open, pairs, best);
  if (!rest.empty()) {
    std::vector<uint32_t> sources(rest.size());
    for (size_t k = 0; k < rest.size(); ++k) sources[k] = open[rest[k]].x;
    std::vector<double> dist2(rest.size());
    std::vector<uint32_t> target(rest.size());
    nearest_on_host(*in.frame, *in.source, *in.target, sources, in.threads, dist2, target);
    for (size_t k = 0; k < rest.size(); ++k) best[rest[k]] = {dist2[k], target[k]};
  }
  for (const Best& b : best)
    if (b.target == UINT32_MAX) throw std::logic_error("a survivor's search found no target within its reach");
}

}  // namespace

SurvivorSink::SurvivorSink(DeviceMemory& memory, uint32_t capacity, cudaStream_t stream)
    : entries_(memory, std::max<uint32_t>(capacity, 1)),
      count_(memory, 1),
      capacity_(std::max<uint32_t>(capacity, 1)),
      stream_(stream) {
  XHD_CUDA(cudaMemsetAsync(count_.get(), 0, sizeof(uint32_t), stream_));
}

double SurvivorSink::drain(const unsigned long long* device_cmax, const FilterBounds& bounds) {
  const auto start = std::chrono::steady_clock::now();
  // The count and the cmax word in one synchronization, the entries (if any) in a second.
  uint32_t n = 0;
  unsigned long long word = 0;
  XHD_CUDA(cudaMemcpyAsync(&n, count_.get(), sizeof(n), cudaMemcpyDeviceToHost, stream_));
  XHD_CUDA(cudaMemcpyAsync(&word, device_cmax, sizeof(word), cudaMemcpyDeviceToHost, stream_));
  XHD_CUDA(cudaStreamSynchronize(stream_));
  if (n > capacity_) throw std::logic_error("more survivors than queries");
  std::vector<uint2> fresh(n);
  if (n > 0)
    XHD_CUDA(cudaMemcpyAsync(fresh.data(), entries_.get(), n * sizeof(uint2), cudaMemcpyDeviceToHost, stream_));
  // Stream-ordered: after the entries' copy, before the next run appends.
  XHD_CUDA(cudaMemsetAsync(count_.get(), 0, sizeof(uint32_t), stream_));
  if (n > 0) XHD_CUDA(cudaStreamSynchronize(stream_));
  last_word_ = word;
  const float threshold = threshold_of_word(word, bounds);
  for (const uint2& s : fresh)
    if (float_of(s.y) > threshold) kept_.push_back(s);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void refine_in_double(DeviceMemory& memory, const RefineInput& in, std::vector<uint2>& survivors,
                      unsigned long long cmax_word, cudaStream_t stream, xhd_directed& out) {
  // cmax stays unset (threshold -1) only when every query was held back by loose targets (loose_gate.h).
  const float threshold = threshold_of_word(cmax_word, *in.bounds);
  std::vector<uint2> open;
  for (const uint2& s : survivors)
    if (float_of(s.y) > threshold) open.push_back(s);
  // Each query offers itself at most once, so no source index repeats; ties are broken below.
  const size_t loose_sources = in.loose_left_out && in.settle_loose_sources ? in.source->loose.size() : 0;
  if (open.empty() && loose_sources == 0) {
    if (!in.may_be_empty) throw std::logic_error("the float search left no survivor");
    out.from_index = out.to_index = XHD_NO_INDEX;
    out.distance = 0.0;
    out.exact_checks = 0;
    return;
  }
  out.exact_checks = open.size() + loose_sources;

  // Through the grid where there is one: on the device in double when the float copies are the truth or
  // there are many survivors (their doubles uploaded), else as candidate pairs settled on the host. Then a
  // scan of every target for the rest while the pairs scanned stay affordable; the CPU grid past that.
  std::vector<Best> best(open.size());
  if (!open.empty()) settle_in_grid(memory, in, open, stream, best);
  std::vector<SourceNearest> settled(open.size());
  for (size_t s = 0; s < open.size(); ++s) settled[s] = {open[s].x, best[s].dist2, best[s].target};
  if (in.loose_left_out) {
    offer_loose_targets(*in.frame, *in.source, *in.target, settled, in.threads);
    if (in.settle_loose_sources) {
      const std::vector<SourceNearest> loose = settle_loose_sources(*in.frame, *in.source, *in.target, in.threads);
      settled.insert(settled.end(), loose.begin(), loose.end());
    }
  }
  size_t winner = 0;  // the largest nearest distance; among ties, the smallest source index
  for (size_t s = 1; s < settled.size(); ++s)
    if (settled[s].dist2 > settled[winner].dist2 ||
        (settled[s].dist2 == settled[winner].dist2 && settled[s].source < settled[winner].source))
      winner = s;
  out.from_index = settled[winner].source;
  out.to_index = settled[winner].target;
  out.distance = std::sqrt(settled[winner].dist2);
}

}  // namespace xhd
