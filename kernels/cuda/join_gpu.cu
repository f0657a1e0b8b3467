// xhd_join on the GPU: the shared filter (geometry/join.cpp) on host threads, then every kept group pair's
// triangle pairs on the device, after 3DPipe's refinement: one thread block per group pair, one thread per
// triangle pair (flattened, round robin), the block's best candidate reduced in shared memory with the same
// order as the CPU (smallest distance, then triangle of a, then of b), and each object pair's best taken on
// the host over its group pairs. Both collections' corners are uploaded once, in group order (doubles: the
// exact routine runs over the input's coordinates); the group pairs go in chunks on two streams, so one
// chunk's copies overlap the other's kernel and memory stays bounded whatever the number of pairs.
//
// Identical answers to the CPU: the CPU refines a pair's group pairs nearest first and stops early, the GPU
// refines all of them; both take the minimum over a set that holds every triangle pair at the pair's exact
// distance whenever that distance is within the threshold (join.h), with the same tie rule, and
// triangle_pair_min is compiled without fused multiply-adds (--fmad=false), so the distances and points are
// the same bits. k-NN: the CPU may leave pairs it proved too far empty; the k nearest are the same.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../abi/elapsed.h"
#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "../geometry/join.h"
#include "cuda_check.h"
#include "device_session.h"

namespace xhd {

namespace {

constexpr int kJoinThreads = 128;
constexpr uint64_t kItemsPerChunk = uint64_t(1) << 18;

// One group pair to refine: its triangles' slots in the uploaded arrays, and how far a triangle pair may be.
struct JoinItem {
  uint64_t a_first, b_first;
  uint32_t a_count, b_count;
  double reach;  // limit + slack: triangle pairs whose plane bound passes it cannot be the answer
};

__device__ Corners3 load_corners(const double* c, uint64_t slot) {
  Corners3 t;
  const double* p = c + 9 * slot;
  for (int k = 0; k < 3; ++k) t.v[k] = {p[3 * k], p[3 * k + 1], p[3 * k + 2]};
  return t;
}

// The squared gap between the boxes of two triangles' corners (0 when they overlap).
__device__ double corner_box_gap2(const Corners3& x, const Corners3& y) {
  double s = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double xl = fmin(dget(x.v[0], k), fmin(dget(x.v[1], k), dget(x.v[2], k)));
    const double xh = fmax(dget(x.v[0], k), fmax(dget(x.v[1], k), dget(x.v[2], k)));
    const double yl = fmin(dget(y.v[0], k), fmin(dget(y.v[1], k), dget(y.v[2], k)));
    const double yh = fmax(dget(y.v[0], k), fmax(dget(y.v[1], k), dget(y.v[2], k)));
    const double d = xl > yh ? xl - yh : (yl > xh ? yl - xh : 0.0);
    s += d * d;
  }
  return s;
}

__global__ void refine_group_pairs(const JoinItem* items, const double* corners_a, const uint32_t* local_a,
                                   const double* corners_b, const uint32_t* local_b, Candidate* out,
                                   unsigned long long* tested) {
  __shared__ Candidate best[kJoinThreads];
  const JoinItem it = items[blockIdx.x];
  Candidate mine = empty_candidate<false>();
  unsigned long long count = 0;
  const uint64_t total = static_cast<uint64_t>(it.a_count) * it.b_count;
  const double reach2 = it.reach * it.reach;
  for (uint64_t k = threadIdx.x; k < total; k += blockDim.x) {
    const uint64_t i = it.a_first + k / it.b_count, j = it.b_first + k % it.b_count;
    const Corners3 x = load_corners(corners_a, i), y = load_corners(corners_b, j);
    if (corner_box_gap2(x, y) > reach2) continue;  // as the CPU's triangle boxes: a few operations
    if (triangle_pair_lower2(x, y) > reach2) continue;
    ++count;
    Candidate c;
    c.at = triangle_pair_min(x, y);
    c.d2 = c.at.d2;
    c.ta = local_a[i];
    c.tb = local_b[j];
    if (better_candidate<false>(c, mine)) mine = c;
  }
  best[threadIdx.x] = mine;
  if (count > 0) atomicAdd(tested, count);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && better_candidate<false>(best[threadIdx.x + s], best[threadIdx.x]))
      best[threadIdx.x] = best[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = best[0];
}

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

// Pinned host memory, so the copies on the streams are truly asynchronous.
template <class T>
class PinnedArray {
 public:
  explicit PinnedArray(size_t n) {
    if (n > 0) XHD_CUDA(cudaMallocHost(&p_, n * sizeof(T)));
  }
  ~PinnedArray() {
    if (p_ != nullptr) cudaFreeHost(p_);
  }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  T* data() const { return p_; }

 private:
  T* p_ = nullptr;
};

// A collection's triangles on the device: corners (9 doubles a slot) and each slot's index in its object.
struct DeviceSet {
  std::unique_ptr<DeviceArray> corners, local;
};

// Group pairs per chunk; XHD_JOIN_CHUNK_ITEMS lowers it so that tests run many chunks on small inputs.
uint64_t chunk_items() {
  const char* v = std::getenv("XHD_JOIN_CHUNK_ITEMS");
  if (v == nullptr) return kItemsPerChunk;
  const unsigned long long n = std::strtoull(v, nullptr, 10);
  return n == 0 ? kItemsPerChunk : static_cast<uint64_t>(n);
}

class GpuRefiner : public JoinRefiner {
 public:
  GpuRefiner(int threads) : threads_(threads) {
    for (cudaStream_t& s : streams_) XHD_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  ~GpuRefiner() override {
    for (cudaStream_t s : streams_) cudaStreamDestroy(s);
  }

  double upload_ms = 0.0, download_ms = 0.0;
  uint64_t peak = 0;

  void refine(const GroupedSet& a, const GroupedSet& b, const std::vector<PairWork>& pairs,
              std::vector<GroupPair>& groups, double slack, uint32_t, std::vector<Candidate>& best,
              JoinCounters& counters) override {
    if (!uploaded_) {
      const auto start = std::chrono::steady_clock::now();
      upload(a, set_a_);
      if (&a != &b) upload(b, set_b_);
      uploaded_ = true;
      upload_ms += elapsed_ms(start);
    }
    const DeviceSet& db = &a == &b ? set_a_ : set_b_;
    // Every kept group pair as an item, in the order of the pairs.
    const uint64_t n = groups.size();
    for (Candidate& c : best) c = empty_candidate<false>();
    if (n == 0) return;
    PinnedArray<JoinItem> items(n);
    PinnedArray<Candidate> results(n);
    std::vector<uint32_t> owner(n);
    parallel_blocks(pairs.size(), 64, threads_, [&](size_t begin, size_t end, int) {
      for (size_t p = begin; p < end; ++p) {
        const PairWork& w = pairs[p];
        for (uint64_t g = w.first; g < w.first + w.count; ++g) {
          const GroupPair& gp = groups[g];
          JoinItem it;
          it.a_first = a.group_begin[gp.ga];
          it.a_count = static_cast<uint32_t>(a.group_begin[gp.ga + 1] - it.a_first);
          it.b_first = b.group_begin[gp.gb];
          it.b_count = static_cast<uint32_t>(b.group_begin[gp.gb + 1] - it.b_first);
          it.reach = w.limit + slack;
          items.data()[g] = it;
          owner[g] = static_cast<uint32_t>(p);
        }
      }
    });
    const uint64_t per_chunk = std::min(n, chunk_items());
    DeviceArray d_items0(per_chunk * sizeof(JoinItem), in_use_, peak),
        d_items1(per_chunk * sizeof(JoinItem), in_use_, peak);
    DeviceArray d_out0(per_chunk * sizeof(Candidate), in_use_, peak),
        d_out1(per_chunk * sizeof(Candidate), in_use_, peak);
    DeviceArray d_tested(sizeof(unsigned long long), in_use_, peak);
    XHD_CUDA(cudaMemset(d_tested.as<void>(), 0, sizeof(unsigned long long)));
    const DeviceArray* d_items[2] = {&d_items0, &d_items1};
    const DeviceArray* d_out[2] = {&d_out0, &d_out1};
    for (uint64_t first = 0, chunk = 0; first < n; first += per_chunk, ++chunk) {
      const uint64_t count = std::min(per_chunk, n - first);
      const int s = static_cast<int>(chunk % 2);
      XHD_CUDA(cudaMemcpyAsync(d_items[s]->as<JoinItem>(), items.data() + first, count * sizeof(JoinItem),
                               cudaMemcpyHostToDevice, streams_[s]));
      refine_group_pairs<<<static_cast<unsigned>(count), kJoinThreads, 0, streams_[s]>>>(
          d_items[s]->as<JoinItem>(), set_a_.corners->as<double>(), set_a_.local->as<uint32_t>(),
          db.corners->as<double>(), db.local->as<uint32_t>(), d_out[s]->as<Candidate>(),
          d_tested.as<unsigned long long>());
      XHD_CUDA_LAUNCHED("refine_group_pairs");
      XHD_CUDA(cudaMemcpyAsync(results.data() + first, d_out[s]->as<Candidate>(), count * sizeof(Candidate),
                               cudaMemcpyDeviceToHost, streams_[s]));
    }
    for (cudaStream_t st : streams_) XHD_CUDA(cudaStreamSynchronize(st));
    unsigned long long tested = 0;
    const auto start = std::chrono::steady_clock::now();
    XHD_CUDA(cudaMemcpy(&tested, d_tested.as<void>(), sizeof(tested), cudaMemcpyDeviceToHost));
    download_ms += elapsed_ms(start);
    counters.triangle_pairs += tested;
    // Each object pair's best over its group pairs, in the CPU's order.
    for (uint64_t g = 0; g < n; ++g)
      if (better_candidate<false>(results.data()[g], best[owner[g]])) best[owner[g]] = results.data()[g];
  }

 private:
  void upload(const GroupedSet& s, DeviceSet& d) {
    const uint64_t n = s.order.size();
    std::vector<double> corners(9 * n);
    std::vector<uint32_t> local(n);
    parallel_blocks(s.set.objects, 64, threads_, [&](size_t begin, size_t end, int) {
      for (size_t o = begin; o < end; ++o)
        for (uint64_t slot = s.set.object_faces[o]; slot < s.set.object_faces[o + 1]; ++slot) {
          const uint64_t t = s.order[slot];
          const Corners3 c = s.set.corners(t);
          for (int k = 0; k < 3; ++k) {
            corners[9 * slot + 3 * k] = c.v[k].x;
            corners[9 * slot + 3 * k + 1] = c.v[k].y;
            corners[9 * slot + 3 * k + 2] = c.v[k].z;
          }
          local[slot] = static_cast<uint32_t>(t - s.set.object_faces[o]);
        }
    });
    d.corners = std::make_unique<DeviceArray>(corners.size() * sizeof(double), in_use_, peak);
    d.local = std::make_unique<DeviceArray>(local.size() * sizeof(uint32_t), in_use_, peak);
    XHD_CUDA(
        cudaMemcpy(d.corners->as<void>(), corners.data(), corners.size() * sizeof(double), cudaMemcpyHostToDevice));
    XHD_CUDA(cudaMemcpy(d.local->as<void>(), local.data(), local.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
  }

  int threads_;
  cudaStream_t streams_[2] = {nullptr, nullptr};
  bool uploaded_ = false;
  uint64_t in_use_ = 0;
  DeviceSet set_a_, set_b_;
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
