// xhd_distance_stats of the device libraries (CUDA, OptiX): the distances go up once, each block adds its share into
// an exact accumulator in shared memory (kernels/geometry/exact_sum.h: order-free, so the sums are the CPU library's
// bits) and then into one in global memory, which comes back to be rounded once; the maxima by an atomic maximum
// on the values' bit patterns (nonnegative doubles order as their bits do); the order statistics of each percentile
// from CUB's radix sort of a copy; the distances within each tolerance by warp votes. The percentile's
// interpolation is the host's (kernels/geometry/distance_stats.cpp).
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "../abi/status_guard.h"
#include "../geometry/distance_stats.h"
#include "../geometry/exact_sum.h"
#include "cuda_check.h"
#include "device_memory.h"
#include "device_session.h"
#include "distance_stats_gpu.h"
#include "launch.h"
#include "xhd.h"

namespace xhd {

// One direction's device accumulators: sum and sum of squares (kSumDigits limbs each), the max's bits, and the
// smallest index of a distance that is negative or not finite (UINT64_MAX: none).
struct DeviceSums {
  unsigned long long sum[kSumDigits];
  unsigned long long sq[kSumDigits];
  unsigned long long max_bits;
  unsigned long long first_bad;
};

namespace {

constexpr int kThreads = 256;
constexpr unsigned kMaxBlocks = 1024;  // with the grid-stride loop, at most 2^31 additions a shared limb gets per call

__device__ void add_term(unsigned long long* limbs, double v) {
  SumTerm t;
  if (!exact_sum_term(v, t)) return;
  atomicAdd(&limbs[t.digit], static_cast<unsigned long long>(t.part[0]));
  atomicAdd(&limbs[t.digit + 1], static_cast<unsigned long long>(t.part[1]));
  if (t.part[2] != 0) atomicAdd(&limbs[t.digit + 2], static_cast<unsigned long long>(t.part[2]));
}

__global__ void sum_distances(const double* d, uint64_t n, DeviceSums* out) {
  __shared__ unsigned long long sum[kSumDigits], sq[kSumDigits];
  __shared__ unsigned long long block_max;
  for (int i = threadIdx.x; i < kSumDigits; i += blockDim.x) sum[i] = sq[i] = 0;
  if (threadIdx.x == 0) block_max = 0;
  __syncthreads();
  unsigned long long thread_max = 0;
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double v = d[i];
    if (!(v >= 0.0 && v <= 1.7976931348623157e308)) {
      atomicMin(&out->first_bad, static_cast<unsigned long long>(i));
      continue;
    }
    add_term(sum, v);
    add_term(sq, v * v);
    const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(v));
    if (bits > thread_max) thread_max = bits;
  }
  atomicMax(&block_max, thread_max);
  __syncthreads();
  // Carry each shared limb's high half on (one thread: 68 steps), then add the block's digits into the global ones.
  if (threadIdx.x == 0) {
    unsigned long long* both[2] = {sum, sq};
    for (unsigned long long* limbs : both) {
      unsigned long long carry = 0;
      for (int i = 0; i < kSumDigits; ++i) {
        const unsigned long long v = limbs[i] + carry;
        limbs[i] = v & kDigitMask;
        carry = v >> 32;
      }
    }
    atomicMax(&out->max_bits, block_max);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kSumDigits; i += blockDim.x) {
    if (sum[i] != 0) atomicAdd(&out->sum[i], sum[i]);
    if (sq[i] != 0) atomicAdd(&out->sq[i], sq[i]);
  }
}

// Tolerances counted in one launch at most: their block counters live in shared memory (8 bytes each).
constexpr uint32_t kTausPerLaunch = 4096;

// within[t] += how many of d[0, n) are <= taus[t]: each warp votes, its first lane adds the votes to the block's
// counter, and each block's counters go into the global ones. Every lane makes the same trips (the bound rounded
// up to whole strides), so each ballot sees the full warp.
__global__ void count_within(const double* d, uint64_t n, const double* taus, uint32_t tau_count,
                             unsigned long long* within) {
  extern __shared__ unsigned long long block_counts[];
  for (uint32_t t = threadIdx.x; t < tau_count; t += blockDim.x) block_counts[t] = 0;
  __syncthreads();
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  const uint64_t trips = (n + stride - 1) / stride;
  for (uint64_t trip = 0; trip < trips; ++trip) {
    const uint64_t i = trip * stride + uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const bool live = i < n;
    const double v = live ? d[i] : 0.0;
    for (uint32_t t = 0; t < tau_count; ++t) {
      const unsigned votes = __ballot_sync(0xffffffffu, live && v <= taus[t]);
      if ((threadIdx.x & 31u) == 0 && votes != 0) atomicAdd(&block_counts[t], static_cast<unsigned long long>(__popc(votes)));
    }
  }
  __syncthreads();
  for (uint32_t t = threadIdx.x; t < tau_count; t += blockDim.x)
    if (block_counts[t] != 0) atomicAdd(&within[t], block_counts[t]);
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The two order statistics around rank k of a sorted array (the second only where k + 1 < n), gathered on the device
// so that every answer of the call comes back in one copy.
__global__ void gather_order_statistics(const double* sorted, uint64_t n, uint64_t k, double* out) {
  if (threadIdx.x == 0) {
    out[0] = sorted[k];
    out[1] = k + 1 < n ? sorted[k + 1] : sorted[k];
  }
}

// Scatters host-settled values over the reserved distances: d[first + index[k]] = value[k].
__global__ void scatter_values(double* d, const uint32_t* index, const double* value, uint64_t count) {
  const uint64_t k = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < count) d[index[k]] = value[k];
}

DeviceSums fresh_sums() {
  DeviceSums s;
  std::memset(&s, 0, sizeof s);
  s.first_bad = ~0ull;
  return s;
}

void finish_sums(const DeviceSums& host, xhd_directed_stats& out) {
  if (host.first_bad != ~0ull)
    throw InvalidArgument("distance " + std::to_string(host.first_bad) + " is negative or not finite");
  ExactSum sum, sq;
  for (int i = 0; i < kSumDigits; ++i) {
    sum.limb[i] = host.sum[i];
    sq.limb[i] = host.sq[i];
  }
  out.sum = exact_sum_round(sum);
  out.sq_sum = exact_sum_round(sq);
  double max = 0;
  static_assert(sizeof max == sizeof host.max_bits, "double and its bits");
  std::memcpy(&max, &host.max_bits, sizeof max);
  out.max = max;
}

}  // namespace

GpuStats::GpuStats(int device) : memory_(device_memory_budget(device), stream_.get()) {}

double* GpuStats::reserve(uint64_t n_ab, uint64_t n_ba) {
  const uint64_t n = n_ab + n_ba;
  if (n >= (uint64_t(1) << 40)) throw InvalidArgument("more than 2^40 distances; use the CPU library");
  n_ab_ = n_ab;
  n_ba_ = n_ba;
  all_ = DeviceArray<double>(memory_, std::max<uint64_t>(n, 1));
  // Stream-ordered: other streams may write it only once the allocation is done.
  XHD_CUDA(cudaStreamSynchronize(stream_.get()));
  return all_.get();
}

void GpuStats::patch(uint64_t first, const uint32_t* index, const double* value, uint64_t count) {
  if (count == 0) return;
  const auto started = std::chrono::steady_clock::now();
  DeviceArray<uint32_t> device_index(memory_, count);
  DeviceArray<double> device_value(memory_, count);
  XHD_CUDA(cudaMemcpyAsync(device_index.get(), index, count * sizeof(uint32_t), cudaMemcpyHostToDevice, stream_.get()));
  XHD_CUDA(cudaMemcpyAsync(device_value.get(), value, count * sizeof(double), cudaMemcpyHostToDevice, stream_.get()));
  scatter_values<<<blocks_for(count, kThreads), kThreads, 0, stream_.get()>>>(all_.get() + first, device_index.get(),
                                                                              device_value.get(), count);
  XHD_CUDA_LAUNCHED("scatter_values");
  XHD_CUDA(cudaStreamSynchronize(stream_.get()));  // the host arrays may go once this returns
  upload_ms_ += ms_since(started);
}

void GpuStats::upload(uint64_t first, const double* host, uint64_t n) {
  if (n == 0) return;
  const auto started = std::chrono::steady_clock::now();
  XHD_CUDA(cudaMemcpyAsync(all_.get() + first, host, n * sizeof(double), cudaMemcpyHostToDevice, stream_.get()));
  XHD_CUDA(cudaStreamSynchronize(stream_.get()));
  upload_ms_ += ms_since(started);
}

void GpuStats::run(const double* ab, uint64_t n_ab, const double* ba, uint64_t n_ba,
                   const xhd_distance_stats_options& options, xhd_distance_stats_result& result) {
  reserve(n_ab, n_ba);
  upload(0, ab, n_ab);
  upload(n_ab, ba, n_ba);
  compute(options, result);
}

// Everything is queued on one stream (the sums, the counts, the sorts and the gathering of their order statistics)
// and comes back in one copy at the end: a one-off compare pays one wait, not one per answer.
void GpuStats::compute(const xhd_distance_stats_options& options, xhd_distance_stats_result& result) {
  const uint64_t n_ab = n_ab_, n_ba = n_ba_, n = n_ab + n_ba;
  result.upload_ms = upload_ms_;
  const auto started = std::chrono::steady_clock::now();
  const double* d_ab = all_.get();
  const double* d_ba = all_.get() + n_ab;
  // One block of answers on the device: the two directions' sums, then three pairs of order statistics.
  DeviceArray<DeviceSums> sums(memory_, 2);
  DeviceArray<double> order(memory_, 6);
  const DeviceSums fresh = fresh_sums();
  const DeviceSums both[2] = {fresh, fresh};
  XHD_CUDA(cudaMemcpyAsync(sums.get(), both, sizeof both, cudaMemcpyHostToDevice, stream_.get()));
  queue_sums(d_ab, n_ab, sums.get());
  queue_sums(d_ba, n_ba, sums.get() + 1);

  const uint64_t taus = options.tolerance_count;
  DeviceArray<double> device_taus(memory_, taus);
  DeviceArray<unsigned long long> counts(memory_, 2 * taus);
  if (taus > 0) {
    XHD_CUDA(cudaMemcpyAsync(device_taus.get(), options.tolerances, taus * sizeof(double), cudaMemcpyHostToDevice,
                             stream_.get()));
    XHD_CUDA(cudaMemsetAsync(counts.get(), 0, 2 * taus * sizeof(unsigned long long), stream_.get()));
    queue_counts(d_ab, n_ab, device_taus.get(), taus, counts.get());
    queue_counts(d_ba, n_ba, device_taus.get(), taus, counts.get() + taus);
  }

  // The sorted copies live until the copy back below (their order statistics are gathered on the stream).
  std::vector<DeviceArray<double>> sorted;
  PercentileRank ranks[3] = {};
  const bool asked[3] = {options.has_percentile != 0 && n_ab > 0, options.has_percentile != 0 && n_ba > 0,
                         options.has_percentile != 0 && options.pooled != 0 && n > 0};
  const double* sources[3] = {d_ab, d_ba, all_.get()};
  const uint64_t sizes[3] = {n_ab, n_ba, n};
  for (int which = 0; which < 3; ++which) {
    if (!asked[which]) continue;
    ranks[which] = percentile_rank(sizes[which], options.percentile);
    sorted.push_back(sorted_copy(sources[which], sizes[which]));
    gather_order_statistics<<<1, 32, 0, stream_.get()>>>(sorted.back().get(), sizes[which], ranks[which].k,
                                                         order.get() + 2 * which);
    XHD_CUDA_LAUNCHED("gather_order_statistics");
  }

  // Back in one go: the first pageable copy waits for everything queued above, the others find it done.
  DeviceSums host[2];
  double host_order[6] = {0, 0, 0, 0, 0, 0};
  XHD_CUDA(cudaMemcpyAsync(host, sums.get(), sizeof host, cudaMemcpyDeviceToHost, stream_.get()));
  XHD_CUDA(cudaMemcpyAsync(host_order, order.get(), sizeof host_order, cudaMemcpyDeviceToHost, stream_.get()));
  static_assert(sizeof(unsigned long long) == sizeof(uint64_t), "counts are 64-bit");
  if (taus > 0) {
    XHD_CUDA(cudaMemcpyAsync(options.within_ab, counts.get(), taus * sizeof(uint64_t), cudaMemcpyDeviceToHost,
                             stream_.get()));
    if (options.within_ba != nullptr)
      XHD_CUDA(cudaMemcpyAsync(options.within_ba, counts.get() + taus, taus * sizeof(uint64_t),
                               cudaMemcpyDeviceToHost, stream_.get()));
  }
  XHD_CUDA(cudaStreamSynchronize(stream_.get()));

  // A bad distance of A's is named before one of B's, each by its index in its own array.
  if (n_ab > 0) finish_sums(host[0], result.ab);
  if (n_ba > 0) finish_sums(host[1], result.ba);
  double* percentiles[3] = {&result.ab.percentile, &result.ba.percentile, &result.pooled_percentile};
  for (int which = 0; which < 3; ++which)
    if (asked[which])
      *percentiles[which] = interpolate_percentile(ranks[which], sizes[which], host_order[2 * which],
                                                   host_order[2 * which + 1]);
  result.compute_ms = ms_since(started);
}

void GpuStats::queue_sums(const double* d, uint64_t n, DeviceSums* out) {
  if (n == 0) return;
  const unsigned blocks = std::min<unsigned>(blocks_for(n, kThreads), kMaxBlocks);
  sum_distances<<<blocks, kThreads, 0, stream_.get()>>>(d, n, out);
  XHD_CUDA_LAUNCHED("sum_distances");
}

// out[t] += how many of d[0, n) are <= taus[t], counted on the device (out already zeroed).
void GpuStats::queue_counts(const double* d, uint64_t n, const double* taus, uint64_t tau_count,
                            unsigned long long* out) {
  if (n == 0) return;
  const unsigned blocks = std::min<unsigned>(blocks_for(n, kThreads), kMaxBlocks);
  for (uint64_t first = 0; first < tau_count; first += kTausPerLaunch) {
    const uint32_t batch = static_cast<uint32_t>(std::min<uint64_t>(kTausPerLaunch, tau_count - first));
    count_within<<<blocks, kThreads, batch * sizeof(unsigned long long), stream_.get()>>>(d, n, taus + first, batch,
                                                                                          out + first);
    XHD_CUDA_LAUNCHED("count_within");
  }
}

// A sorted copy of d[0, n), queued on the stream (CUB's radix sort; its scratch is freed in stream order).
DeviceArray<double> GpuStats::sorted_copy(const double* d, uint64_t n) {
  if (n > static_cast<uint64_t>(std::numeric_limits<int>::max()))
    throw InvalidArgument("more than 2^31 - 1 distances in one percentile; use the CPU library");
  DeviceArray<double> sorted(memory_, n);
  size_t scratch_bytes = 0;
  const int items = static_cast<int>(n);
  XHD_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, scratch_bytes, d, sorted.get(), items, 0, 64, stream_.get()));
  DeviceArray<uint8_t> scratch(memory_, std::max<size_t>(scratch_bytes, 1));
  XHD_CUDA(cub::DeviceRadixSort::SortKeys(scratch.get(), scratch_bytes, d, sorted.get(), items, 0, 64, stream_.get()));
  return sorted;
}

}  // namespace xhd

extern "C" XHD_API int32_t xhd_distance_stats(const double* ab, uint64_t n_ab, const double* ba, uint64_t n_ba,
                                              const xhd_distance_stats_options* options,
                                              xhd_distance_stats_result* result, xhd_progress* progress) {
  return xhd::guarded(progress, [&] {
    xhd::check_distance_stats(ab, n_ab, ba, n_ba, options, result);
    const int count = xhd::usable_device_count();
    if (options->device < 0 || options->device >= count)
      throw xhd::InvalidArgument("device " + std::to_string(options->device) + " does not exist (" +
                                 std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") + " found)");
    XHD_CUDA(cudaSetDevice(options->device));
    result->device = options->device;
    result->threads = 1;
    xhd::GpuStats(options->device).run(ab, n_ab, ba, n_ba, *options, *result);
    return int32_t(XHD_OK);
  });
}
