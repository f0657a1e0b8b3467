#include "optix_directed.h"

#include <optix.h>
#include <optix_stubs.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "../cuda/cuda_check.h"
#include "../cuda/launch.h"
#include "../cuda/search_radius.h"
#include "optix_check.h"
#include "optix_session.h"
#include "search_params.h"

namespace xhd {
namespace {

// The box of every target point at half side h, rounded outward so it holds [t - h, t + h] exactly.
__global__ void point_boxes_kernel(const float4* points, uint32_t count, float h, OptixAabb* boxes) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const float4 p = points[i];
  OptixAabb b;
  b.minX = __fsub_rd(p.x, h);
  b.minY = __fsub_rd(p.y, h);
  b.minZ = __fsub_rd(p.z, h);
  b.maxX = __fadd_ru(p.x, h);
  b.maxY = __fadd_ru(p.y, h);
  b.maxZ = __fadd_ru(p.z, h);
  boxes[i] = b;
}

// The build input of n point boxes at `boxes` (a device pointer; OptiX reads it only when building).
OptixBuildInput box_input(uint32_t n, const CUdeviceptr* boxes, const unsigned* flags) {
  OptixBuildInput input{};
  input.type = OPTIX_BUILD_INPUT_TYPE_CUSTOM_PRIMITIVES;
  input.customPrimitiveArray.aabbBuffers = boxes;
  input.customPrimitiveArray.numPrimitives = n;
  input.customPrimitiveArray.strideInBytes = sizeof(OptixAabb);
  input.customPrimitiveArray.flags = flags;
  input.customPrimitiveArray.numSbtRecords = 1;
  return input;
}

OptixAccelBuildOptions build_options() {
  OptixAccelBuildOptions options{};
  options.buildFlags = OPTIX_BUILD_FLAG_PREFER_FAST_TRACE;
  options.operation = OPTIX_BUILD_OPERATION_BUILD;
  return options;
}

constexpr unsigned kBoxFlags = OPTIX_GEOMETRY_FLAG_DISABLE_ANYHIT;

// The target points' boxes and the acceleration structure over them, rebuilt for each radius into
// buffers sized once (the primitive count does not change).
class PointBoxes {
 public:
  PointBoxes(DeviceMemory& memory, const OptixSession& session, const float4* points, uint32_t count,
             cudaStream_t stream)
      : session_(session), points_(points), count_(count), stream_(stream), boxes_(memory, count) {
    if (count_ == 0) return;
    box_buffer_ = reinterpret_cast<CUdeviceptr>(boxes_.get());
    input_ = box_input(count_, &box_buffer_, &flags_);
    options_ = build_options();
    OptixAccelBufferSizes sizes{};
    XHD_OPTIX(optixAccelComputeMemoryUsage(session_.context, &options_, &input_, 1, &sizes));
    temp_ = DeviceArray<unsigned char>(memory, sizes.tempSizeInBytes);
    output_ = DeviceArray<unsigned char>(memory, sizes.outputSizeInBytes);
  }

  // The traversable of the boxes at half side h (0 when there are no target points: every ray misses).
  OptixTraversableHandle build(float h) {
    if (count_ == 0) return 0;
    point_boxes_kernel<<<blocks_for(count_, 256), 256, 0, stream_>>>(points_, count_, h, boxes_.get());
    XHD_CUDA_LAUNCHED("point_boxes_kernel");
    OptixTraversableHandle handle = 0;
    XHD_OPTIX(optixAccelBuild(session_.context, stream_, &options_, &input_, 1,
                              reinterpret_cast<CUdeviceptr>(temp_.get()), temp_.size(),
                              reinterpret_cast<CUdeviceptr>(output_.get()), output_.size(), &handle, nullptr, 0));
    return handle;
  }

 private:
  const OptixSession& session_;
  const float4* points_;
  uint32_t count_;
  cudaStream_t stream_;
  DeviceArray<OptixAabb> boxes_;
  DeviceArray<unsigned char> temp_, output_;
  CUdeviceptr box_buffer_ = 0;
  unsigned flags_ = kBoxFlags;
  OptixBuildInput input_{};
  OptixAccelBuildOptions options_{};
};

}  // namespace

uint64_t optix_search_bytes(uint64_t n) {
  if (n == 0) return 0;
  int device = 0;
  XHD_CUDA(cudaGetDevice(&device));
  // The sizes depend on the count and the options only; the buffer address is not read (an aligned stand-in).
  const CUdeviceptr stand_in = OPTIX_AABB_BUFFER_BYTE_ALIGNMENT;
  const unsigned flags = kBoxFlags;
  const OptixBuildInput input = box_input(static_cast<uint32_t>(n), &stand_in, &flags);
  const OptixAccelBuildOptions options = build_options();
  OptixAccelBufferSizes sizes{};
  XHD_OPTIX(optixAccelComputeMemoryUsage(optix_session(device).context, &options, &input, 1, &sizes));
  // The boxes, the structure and its scratch, and the launch parameters and counters (well under 1 KiB).
  return n * sizeof(OptixAabb) + sizes.tempSizeInBytes + sizes.outputSizeInBytes + 1024;
}

float search_box_half_side(float r2, double upper) {
  // A computed squared distance c of an exact X has c >= X (1 - K) - A (filter_bounds.h), so c <= r2 means
  // X <= (r2 + A) / (1 - K); each axis' difference is at most sqrt(X). The 2^-10 on top covers the double
  // arithmetic here and any slack of the traversal's box test.
  const double reach =
      std::isinf(r2) ? upper
                     : std::sqrt((static_cast<double>(r2) + FilterBounds::kAbsolute) / (1.0 - FilterBounds::kRelative));
  const double h = reach * (1.0 + 1.0 / 1024.0) + 1e-30;
  float f = static_cast<float>(h);
  if (static_cast<double>(f) < h) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  if (!std::isfinite(f)) throw std::runtime_error("OptiX search radius beyond the float range");
  return f;
}

DirectedStats run_directed_optix(DeviceMemory& memory, const DirectedRun& run, cudaStream_t stream) {
  DirectedStats stats;
  const uint32_t n = run.query_count;
  if (n == 0) return stats;
  int device = 0;
  XHD_CUDA(cudaGetDevice(&device));
  const OptixSession& session = optix_session(device);
  const GridView g = run.target->view();
  const GridFrame& f = g.frame;

  DeviceArray<float> cmin(memory, n);
  DeviceArray<uint32_t> list_a(memory, n), list_b(memory, n);
  DeviceArray<unsigned long long> counters(memory, kSearchCounterSlots);
  DeviceArray<SearchParams> device_params(memory, 1);
  PointBoxes boxes(memory, session, g.points, g.count, stream);

  SearchParams p{};
  p.targets = g.points;
  p.queries = run.queries;
  p.query_count = n;
  p.cmin = cmin.get();
  p.counters = counters.get();
  p.cmax = run.cmax;
  p.bounds = *run.bounds;
  p.survivors = run.survivors;
  p.loose = run.loose;

  // The hybrid of the paper: the grid (built anyway, for the queries' Morton order and the double-precision
  // refinement) seeds cmax with exact nearest distances of a spread sample of the queries, so early break
  // works from the first rays. Without it the first rays of sets far apart meet every target's box.
  seed_cmax_on_grid(run, stream);

  auto launch = [&](SearchLaunch kind, uint32_t count) {
    p.launch = kind;
    p.launch_count = count;
    XHD_CUDA(cudaMemsetAsync(counters.get(), 0, kSearchCounterSlots * sizeof(unsigned long long), stream));
    // OptiX launches at most 2^30 rays at once: larger sets go in pieces, each with its parameters.
    constexpr uint64_t kMaxRays = 1u << 30;
    for (uint64_t first = 0; first < count; first += kMaxRays) {
      p.first = static_cast<uint32_t>(first);
      // From pageable memory the copy has taken p's bytes when it returns, so p may change for the next piece.
      XHD_CUDA(cudaMemcpyAsync(device_params.get(), &p, sizeof(p), cudaMemcpyHostToDevice, stream));
      XHD_OPTIX(optixLaunch(session.pipeline, stream, reinterpret_cast<CUdeviceptr>(device_params.get()), sizeof(p),
                            &session.sbt, static_cast<unsigned>(std::min<uint64_t>(kMaxRays, count - first)), 1, 1));
    }
    unsigned long long c[kSearchCounterSlots];
    XHD_CUDA(cudaMemcpyAsync(c, counters.get(), sizeof(c), cudaMemcpyDeviceToHost, stream));
    XHD_CUDA(cudaStreamSynchronize(stream));
    stats.distance_evals += c[kSearchEvals];
    stats.pruned_queries += c[kSearchPruned];
    return static_cast<uint32_t>(c[kSearchMisses]);
  };

  // The first radius and its growth are the grid search's (search_radius.h).
  SearchRadius radius(run.source_bounds, run.target->bounds, f);
  if (g.count == 0) radius.make_unbounded();  // nothing to find: one unbounded pass offers every query

  uint32_t* in = list_a.get();
  uint32_t* out = list_b.get();
  uint32_t in_count = n;
  for (int iteration = 0;; ++iteration) {
    run.progress->check_cancel();
    const float r2 = radius.r2();
    p.handle = boxes.build(search_box_half_side(r2, radius.upper()));
    p.r2 = r2;
    p.misses = out;
    uint32_t missed = 0;
    if (iteration == 0) {
      missed = launch(SearchLaunch::kFirst, n);
    } else {
      p.worklist = in;
      missed = launch(SearchLaunch::kAgain, in_count);
      stats.radius_queries += in_count;
    }
    stats.iterations = iteration + 1;
    run.progress->add(in_count - missed);
    if (missed == 0) break;
    if (std::isinf(r2)) throw std::runtime_error("OptiX X-HD search left queries unresolved at an unbounded radius");
    radius.grow(in_count, missed);
    std::swap(in, out);
    in_count = missed;
  }
  return stats;
}

}  // namespace xhd
