// The statistics of per-point distances on the GPU (xhd_distance_stats of the device libraries, and
// xhd_points_compare_stats, whose search writes its distances straight into this object's array): each
// direction's exact sums, maximum, order statistics and counts within tolerances, on one stream, with one wait.
#pragma once

#include <cstdint>

#include "device_memory.h"
#include "device_session.h"
#include "xhd.h"

namespace xhd {

struct DeviceSums;  // one direction's accumulators on the device (distance_stats_gpu.cu)

class GpuStats {
 public:
  explicit GpuStats(int device);

  // Room for n_ab + n_ba distances on the device, A -> B's first, allocated and ready for any stream of the device
  // to write when this returns.
  double* reserve(uint64_t n_ab, uint64_t n_ba);
  // count values written over the reserved distances at first + index[k] (host arrays; the copies are waited for).
  void patch(uint64_t first, const uint32_t* index, const double* value, uint64_t count);
  // n host values copied over the reserved distances from position first on.
  void upload(uint64_t first, const double* host, uint64_t n);
  // The statistics of the reserved distances (every one written by now) into result, whose counts, maxima and
  // NaN percentiles check_stats_request set; the counts within tolerances into options' arrays.
  void compute(const xhd_distance_stats_options& options, xhd_distance_stats_result& result);

  // xhd_distance_stats: host distances reserved, copied up and summed.
  void run(const double* ab, uint64_t n_ab, const double* ba, uint64_t n_ba, const xhd_distance_stats_options& options,
           xhd_distance_stats_result& result);


 private:
  DeviceArray<double> sorted_copy(const double* d, uint64_t n);
  void queue_sums(const double* d, uint64_t n, DeviceSums* out);
  void queue_counts(const double* d, uint64_t n, const double* taus, uint64_t tau_count, unsigned long long* out);

  Stream stream_;
  DeviceMemory memory_;
  DeviceArray<double> all_;  // the reserved distances
  uint64_t n_ab_ = 0, n_ba_ = 0;
  double upload_ms_ = 0;
};

}  // namespace xhd
