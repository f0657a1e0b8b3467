// xhd_join on the GPU: the shared filter (geometry/join.cpp) on host threads, then every kept object pair
// refined on the device by one thread block (join_refine.cuh; a pair of more than 64 group pairs by several),
// as the CPU refines it on one core: its group pairs nearest first, stopping once they pass the best found.
// Both collections go to the device once, as the caller gave them (vertices, triangles) with the grouping's
// order, group ranges and group boxes: about a fifth of the bytes of each triangle's corners in double, which
// at 91M triangles took 6 s to build and copy.
// The object pairs go in batches on two streams, each batch's group pairs and answers through pinned
// buffers kept for the call, so one batch's copies overlap the other's kernel and memory stays bounded
// whatever the number of pairs.
//
// Identical answers to the CPU (join_refine.cuh says why), with the same tie rule. k-NN: both leave pairs they
// proved too far empty, each by its own bound (refine_nearest); the k nearest are the same.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../abi/elapsed.h"
#include "../abi/host_phases.h"
#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "../geometry/join.h"
#include "cuda_check.h"
#include "device_session.h"
#include "join_refine.cuh"
#include "pinned_array.h"
#include "staged_upload.h"

namespace xhd {

namespace {

constexpr uint64_t kGroupPairsPerBatch = uint64_t(1) << 20;
// The most group pairs of one object pair a block refines (run_batches).
constexpr uint64_t kGroupPairsPerBlock = 64;

// A device allocation freed with its owner, counted toward the call's peak.
class DeviceArray {
 public:
  DeviceArray(size_t bytes, uint64_t& in_use, uint64_t& peak) : bytes_(bytes), in_use_(in_use) {
    if (bytes == 0) return;
    const cudaError_t status = cudaMalloc(&p_, bytes);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw DeviceMemoryShort("the join needs " + std::to_string(bytes) + " more bytes");
    }
    cuda_check(status, "cudaMalloc");
    in_use_ += bytes;
    peak = std::max(peak, in_use_);
  }
  ~DeviceArray() {
    if (p_ != nullptr) cudaFree(p_);
    in_use_ -= p_ != nullptr ? bytes_ : 0;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
  size_t bytes_;
  uint64_t& in_use_;
};

// Group pairs per batch; XHD_JOIN_CHUNK_ITEMS lowers it so that tests run many batches on small inputs.
uint64_t batch_group_pairs() {
  const char* v = std::getenv("XHD_JOIN_CHUNK_ITEMS");
  if (v == nullptr) return kGroupPairsPerBatch;
  const unsigned long long n = std::strtoull(v, nullptr, 10);
  return n == 0 ? kGroupPairsPerBatch : std::min<uint64_t>(n, uint64_t(1) << 30);  // blocks a launch stays below 2^31
}

// One collection's arrays on the device (join_refine.cuh, DeviceJoinSet).
struct DeviceSetArrays {
  std::unique_ptr<DeviceArray> vertices, triangles, order, group_begin, group_box;
  DeviceJoinSet view{};
};

// Two streams' worth of batch buffers, host (pinned) and device, sized for `pairs` object pairs and `groups`
// group pairs a batch.
struct BatchBuffers {
  BatchBuffers(uint64_t pairs, uint64_t groups, uint64_t& in_use, uint64_t& peak)
      : items(pairs), group_pairs(groups), results(pairs),
        d_items(pairs * sizeof(JoinPairItem), in_use, peak),
        d_groups(groups * sizeof(GroupPair), in_use, peak),
        d_results(pairs * sizeof(Candidate), in_use, peak) {}
  PinnedArray<JoinPairItem> items;
  PinnedArray<GroupPair> group_pairs;
  PinnedArray<Candidate> results;
  DeviceArray d_items, d_groups, d_results;
};

class GpuRefiner : public JoinRefiner {
 public:
  explicit GpuRefiner(int threads) : threads_(threads) {
    for (cudaStream_t& s : streams_) XHD_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  ~GpuRefiner() override {
    for (cudaStream_t s : streams_) cudaStreamDestroy(s);
  }

  double upload_ms = 0.0, download_ms = 0.0;
  uint64_t peak = 0;

  void refine(const GroupedSet& a, const GroupedSet& b, const std::vector<PairWork>& pairs,
              GroupPairList& groups, double slack, uint32_t knn, std::vector<Candidate>& best,
              JoinCounters& counters) override {
    HostPhases phases("join-gpu");
    if (!uploaded_) {
      const auto start = std::chrono::steady_clock::now();
      upload(a, set_a_);
      if (&a != &b) upload(b, set_b_);
      XHD_CUDA(cudaStreamSynchronize(streams_[0]));
      uploaded_ = true;
      upload_ms += elapsed_ms(start);
      phases.mark("sets uploaded");
    }
    for (Candidate& c : best) c = empty_candidate<false>();
    if (pairs.empty()) return;
    // Each pair's group pairs nearest first, as the CPU visits them (the block stops at the first too far).
    parallel_blocks(pairs.size(), 64, threads_, [&](size_t begin, size_t end, int) {
      for (size_t p = begin; p < end; ++p)
        std::sort(groups.begin() + pairs[p].first, groups.begin() + pairs[p].first + pairs[p].count,
                  [](const GroupPair& x, const GroupPair& y) {
                    return x.gap != y.gap ? x.gap < y.gap : (x.ga != y.ga ? x.ga < y.ga : x.gb < y.gb);
                  });
    });
    phases.mark("group pairs sorted");
    if (knn == 0) {
      run_batches(a, b, pairs, groups, slack, best.data());
    } else {
      refine_nearest(a, b, pairs, groups, slack, knn, best);
    }
    phases.mark("batches refined");
    unsigned long long tested = 0;
    const auto start = std::chrono::steady_clock::now();
    XHD_CUDA(cudaMemcpy(&tested, tested_->as<void>(), sizeof(tested), cudaMemcpyDeviceToHost));
    clear_tested();
    download_ms += elapsed_ms(start);
    counters.triangle_pairs += tested;
  }

 private:
  // k-NN in two rounds, as 3DPipe tightens its k-th bound: first each pair's nearest group pair alone, whose best
  // is an upper bound of the pair's distance; the k-th smallest of them over an object's pairs bounds its k-th
  // nearest distance (k pairs lie at most that far). Then the pairs whose lower bound passes it are left empty
  // (join.h allows it: they cannot be among the k nearest) and the others refined with their limit lowered to it,
  // which still finds every distance up to it exactly, the k nearest and their ties included.
  void refine_nearest(const GroupedSet& a, const GroupedSet& b, const std::vector<PairWork>& pairs,
                      const GroupPairList& groups, double slack, uint32_t knn, std::vector<Candidate>& best) {
    std::vector<PairWork> first(pairs);
    for (PairWork& w : first) w.count = 1;
    std::vector<Candidate> upper(pairs.size());
    run_batches(a, b, first, groups, slack, upper.data());
    std::vector<PairWork> rest;
    std::vector<size_t> rest_index;
    std::vector<double> bounds;
    for (size_t i = 0; i < pairs.size();) {
      size_t j = i;
      while (j < pairs.size() && pairs[j].a == pairs[i].a) ++j;
      bounds.clear();
      for (size_t p = i; p < j; ++p)
        if (upper[p].ta != 0xffffffffu) bounds.push_back(std::sqrt(upper[p].d2));
      double kth = INFINITY;
      if (bounds.size() >= knn) {
        std::nth_element(bounds.begin(), bounds.begin() + (knn - 1), bounds.end());
        kth = bounds[knn - 1];
      }
      for (size_t p = i; p < j; ++p) {
        if (pairs[p].lower > kth + slack) continue;
        PairWork w = pairs[p];
        w.limit = std::min(w.limit, kth);
        rest.push_back(w);
        rest_index.push_back(p);
      }
      i = j;
    }
    std::vector<Candidate> refined(rest.size());
    run_batches(a, b, rest, groups, slack, refined.data());
    for (size_t r = 0; r < rest.size(); ++r) best[rest_index[r]] = refined[r];
  }

  // Refines pairs (their group pairs sorted nearest first) on the device: out[i] is pairs[i]'s best. A block
  // refines up to kGroupPairsPerBlock of a pair's group pairs (a pair with more is spread over several blocks,
  // which few large objects need to fill the GPU); a pair's best is the best of its blocks', each of which is
  // the exact best over its group pairs within its reach, the pair's own best included (join_refine.cuh).
  void run_batches(const GroupedSet& a, const GroupedSet& b, const std::vector<PairWork>& pairs,
                   const GroupPairList& groups, double slack, Candidate* out) {
    if (pairs.empty()) return;
    const DeviceJoinSet& db = &a == &b ? set_a_.view : set_b_.view;
    struct Item {
      size_t pair;
      uint64_t first, count;  // group pairs [first, first + count) of groups
    };
    std::vector<Item> items;
    for (size_t p = 0; p < pairs.size(); ++p)
      for (uint64_t g = 0; g < pairs[p].count; g += kGroupPairsPerBlock)
        items.push_back({p, pairs[p].first + g, std::min(kGroupPairsPerBlock, pairs[p].count - g)});
    // Batches of items, each up to per_batch group pairs (and at least one item).
    const uint64_t per_batch = batch_group_pairs();
    std::vector<size_t> batch_start{0};
    uint64_t in_batch = 0, widest = 0, most_items = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      if (in_batch > 0 && in_batch + items[i].count > per_batch) {
        most_items = std::max<uint64_t>(most_items, i - batch_start.back());
        widest = std::max(widest, in_batch);
        batch_start.push_back(i);
        in_batch = 0;
      }
      in_batch += items[i].count;
    }
    most_items = std::max<uint64_t>(most_items, items.size() - batch_start.back());
    widest = std::max(widest, in_batch);
    batch_start.push_back(items.size());
    if (!buffers_[0] || pairs_capacity_ < most_items || groups_capacity_ < widest) {
      for (auto& buffer : buffers_) buffer.reset();
      pairs_capacity_ = std::max(pairs_capacity_, most_items);
      groups_capacity_ = std::max(groups_capacity_, widest);
      for (auto& buffer : buffers_)
        buffer = std::make_unique<BatchBuffers>(pairs_capacity_, groups_capacity_, in_use_, peak);
    }
    if (!tested_) {
      tested_ = std::make_unique<DeviceArray>(sizeof(unsigned long long), in_use_, peak);
      clear_tested();
    }

    for (size_t p = 0; p < pairs.size(); ++p) out[p] = empty_candidate<false>();
    const size_t batches = batch_start.size() - 1;
    auto harvest = [&](size_t k) {  // batch k's answers, once its stream is done
      BatchBuffers& buf = *buffers_[k % 2];
      XHD_CUDA(cudaStreamSynchronize(streams_[k % 2]));
      for (size_t i = batch_start[k]; i < batch_start[k + 1]; ++i) {
        const Candidate& c = buf.results.data()[i - batch_start[k]];
        if (better_candidate<false>(c, out[items[i].pair])) out[items[i].pair] = c;
      }
    };
    for (size_t k = 0; k < batches; ++k) {
      if (k >= 2) harvest(k - 2);
      BatchBuffers& buf = *buffers_[k % 2];
      const size_t i0 = batch_start[k], i1 = batch_start[k + 1];
      uint64_t placed = 0;
      for (size_t i = i0; i < i1; ++i) {
        const PairWork& w = pairs[items[i].pair];
        JoinPairItem& item = buf.items.data()[i - i0];
        item.first = placed;
        item.count = items[i].count;
        item.limit = w.limit;
        item.a_face0 = a.set.object_faces[w.a];
        item.b_face0 = b.set.object_faces[w.b];
        std::memcpy(buf.group_pairs.data() + placed, groups.data() + items[i].first,
                    items[i].count * sizeof(GroupPair));
        placed += items[i].count;
      }
      const cudaStream_t s = streams_[k % 2];
      XHD_CUDA(cudaMemcpyAsync(buf.d_items.as<JoinPairItem>(), buf.items.data(), (i1 - i0) * sizeof(JoinPairItem),
                               cudaMemcpyHostToDevice, s));
      XHD_CUDA(cudaMemcpyAsync(buf.d_groups.as<GroupPair>(), buf.group_pairs.data(), placed * sizeof(GroupPair),
                               cudaMemcpyHostToDevice, s));
      refine_object_pairs<<<static_cast<unsigned>(i1 - i0), kJoinThreads, 0, s>>>(
          buf.d_items.as<JoinPairItem>(), buf.d_groups.as<GroupPair>(), set_a_.view, db, slack,
          buf.d_results.as<Candidate>(), tested_->as<unsigned long long>());
      XHD_CUDA_LAUNCHED("refine_object_pairs");
      XHD_CUDA(cudaMemcpyAsync(buf.results.data(), buf.d_results.as<Candidate>(), (i1 - i0) * sizeof(Candidate),
                               cudaMemcpyDeviceToHost, s));
    }
    for (size_t k = batches >= 2 ? batches - 2 : 0; k < batches; ++k) harvest(k);
  }

  // The triangle-pair counter zeroed on a stream of the call and waited for: the streams do not wait for the
  // legacy default stream (they are non-blocking), so a plain cudaMemset could land after a kernel had counted.
  void clear_tested() {
    XHD_CUDA(cudaMemsetAsync(tested_->as<void>(), 0, sizeof(unsigned long long), streams_[0]));
    XHD_CUDA(cudaStreamSynchronize(streams_[0]));
  }

  // A collection's arrays, straight from the caller's and the grouping's memory through the pinned stages.
  void upload(const GroupedSet& s, DeviceSetArrays& d) {
    const JoinSetView& v = s.set;
    const uint64_t triangles = v.object_faces[v.objects], groups = s.group_box.size();
    const size_t vertex_bytes = 3 * v.vertex_count * (v.f64 != nullptr ? sizeof(double) : sizeof(float));
    auto put = [&](std::unique_ptr<DeviceArray>& to, const void* from, size_t bytes) {
      to = std::make_unique<DeviceArray>(bytes, in_use_, peak);
      if (bytes > 0) copy_to_device(to->as<void>(), from, bytes, streams_[0]);
    };
    put(d.vertices, v.f64 != nullptr ? static_cast<const void*>(v.f64) : static_cast<const void*>(v.f32), vertex_bytes);
    put(d.triangles, v.triangles, 3 * triangles * sizeof(uint32_t));
    put(d.order, s.order.data(), triangles * sizeof(uint64_t));
    put(d.group_begin, s.group_begin.data(), (groups + 1) * sizeof(uint64_t));
    put(d.group_box, s.group_box.data(), groups * sizeof(DBox));
    d.view.v64 = v.f64 != nullptr ? d.vertices->as<double>() : nullptr;
    d.view.v32 = v.f64 != nullptr ? nullptr : d.vertices->as<float>();
    d.view.triangles = d.triangles->as<uint32_t>();
    d.view.order = d.order->as<uint64_t>();
    d.view.group_begin = d.group_begin->as<uint64_t>();
    d.view.group_box = d.group_box->as<DBox>();
  }

  int threads_;
  cudaStream_t streams_[2] = {nullptr, nullptr};
  bool uploaded_ = false;
  uint64_t in_use_ = 0;
  DeviceSetArrays set_a_, set_b_;
  std::unique_ptr<BatchBuffers> buffers_[2];
  uint64_t pairs_capacity_ = 0, groups_capacity_ = 0;
  std::unique_ptr<DeviceArray> tested_;
};

}  // namespace

}  // namespace xhd

extern "C" {

XHD_API int32_t xhd_join(const xhd_join_set* a, const xhd_join_set* b, const xhd_join_options* options,
                         xhd_join_result* result, xhd_progress* progress) {
  return xhd::guarded(progress, [&]() -> int32_t {
    if (result == nullptr) throw xhd::InvalidArgument("result must not be null");
    std::memset(result, 0, sizeof(*result));
    result->device = -1;
    if (options == nullptr) throw xhd::InvalidArgument("options must not be null");
    if (options->method == XHD_JOIN_BRUTE)
      throw xhd::InvalidArgument("the brute method is the CPU reference implementation; use the CPU backend");
    const int count = xhd::usable_device_count();
    if (options->device < 0 || options->device >= count)
      throw xhd::InvalidArgument("device " + std::to_string(options->device) + " does not exist (" +
                                 std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") + " found)");
    XHD_CUDA(cudaSetDevice(options->device));
    const int threads = xhd::resolve_thread_count(options->threads);
    std::vector<xhd::JoinFound> found;
    xhd::JoinCounters counters;
    xhd::JoinTimes times;
    xhd::GpuRefiner refiner(threads);
    xhd::run_join(a, b, options, refiner, xhd::Progress(progress), found, counters, times);
    xhd::fill_join_result(std::move(found), counters, times, *result);
    result->upload_ms = refiner.upload_ms;
    result->download_ms = refiner.download_ms;
    result->peak_device_bytes = refiner.peak;
    result->device = options->device;
    result->threads = threads;
    return XHD_OK;
  });
}

}  // extern "C"
