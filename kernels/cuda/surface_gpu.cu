#include "surface_gpu.h"

#include <chrono>
#include <cmath>
#include <vector>

#include "../abi/elapsed.h"
#include "../geometry/surface_frame.h"
#include "../geometry/triangle_bvh.h"
#include "../geometry/triangle_grid.h"
#include "device_memory.h"
#include "device_session.h"
#include "launch.h"
#include "surface_grid_build.h"

namespace xhd {
namespace {

constexpr int kThreads = 128;
constexpr uint32_t kNone = 0xffffffffu;

// Where the kernels write each point's answer; triangle and closest may be null (not asked for).
struct SurfaceOutputs {
  double* distance2;
  uint32_t* triangle;
  double* closest;
  unsigned long long* tests;
};

__device__ void store_answer(const SurfaceOutputs& out, uint32_t i, const NearestTriangle& best) {
  out.distance2[i] = best.d2;
  if (out.triangle) out.triangle[i] = best.triangle;
  if (out.closest) {
    out.closest[3ull * i] = best.at.x;
    out.closest[3ull * i + 1] = best.at.y;
    out.closest[3ull * i + 2] = best.at.z;
  }
}

__device__ void count_tests(const SurfaceOutputs& out, uint32_t evaluated) {
  for (int o = 16; o > 0; o >>= 1) evaluated += __shfl_down_sync(0xffffffffu, evaluated, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out.tests, static_cast<unsigned long long>(evaluated));
}

__global__ void sqrt_in_place_kernel(double* values, uint32_t count) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) values[i] = __dsqrt_rn(values[i]);
}

// One thread per point, in Morton order so a warp searches neighbouring cells. Points the grid cannot
// settle are appended to `left` with the best triangle found so far, for the hierarchy.
// truth: the points as given (the grid is in the input's coordinates).
__global__ void __launch_bounds__(kThreads)
    grid_surface_kernel(TriangleGridView grid, PointTruth truth, const uint32_t* order, uint32_t count,
                        SurfaceOutputs out, uint32_t* left, uint32_t* left_seed, uint32_t* left_count) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t evaluated = 0;
  if (k < count) {
    const uint32_t i = order[k];
    NearestTriangle best;
    if (grid_nearest_triangle(grid, truth_point(truth, i), kNone, best)) {
      store_answer(out, i, best);
    } else {
      const uint32_t slot = atomicAdd(left_count, 1u);
      left[slot] = i;
      left_seed[slot] = best.triangle;
    }
    evaluated = best.tests;
  }
  count_tests(out, evaluated);
}

// One thread per point through the hierarchy, each optionally seeded with a triangle found before.
__global__ void __launch_bounds__(kThreads)
    bvh_surface_kernel(BvhView bvh, TriangleGridView seeds_from, PointTruth truth, const uint32_t* order,
                       const uint32_t* seed, uint32_t count, SurfaceOutputs out) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t evaluated = 0;
  if (k < count) {
    const uint32_t i = order[k];
    const Dvec3 p = truth_point(truth, i);
    NearestTriangle best;
    if (seed && seed[k] != kNone) offer_grid_triangle(seeds_from, seed[k], p, best);
    nearest_triangle(bvh, p, best);
    store_answer(out, i, best);
    evaluated = best.tests;
  }
  count_tests(out, evaluated);
}

template <typename T>
DeviceArray<T> upload_array(DeviceMemory& memory, const T* host, size_t count, cudaStream_t stream) {
  DeviceArray<T> out(memory, count);
  if (count > 0) XHD_CUDA(cudaMemcpyAsync(out.get(), host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
  return out;
}

// The points on the device, as given (the searches read nothing else).
struct DevicePoints {
  PointTruth truth;
};

// The hierarchy, built on the host and uploaded, searched by the points in `order` (device memory).
void run_bvh(DeviceMemory& memory, cudaStream_t stream, const SurfaceFrame& frame, const xhd_mesh& mesh,
             DevicePoints points, const uint32_t* order, const uint32_t* seed, TriangleGridView seeds_from,
             uint32_t count, const SurfaceOutputs& out, xhd_surface_result& result) {
  const auto build_start = std::chrono::steady_clock::now();
  const TriangleBvh bvh =
      build_triangle_bvh(frame.vertices(), frame.vertex_truth(), mesh.triangles, mesh.triangle_count, frame.origin(),
                         false);
  result.build_ms += elapsed_ms(build_start);
  EventTimer timer(stream);
  timer.start();
  DeviceArray<BvhNode> nodes = upload_array(memory, bvh.nodes.data(), bvh.nodes.size(), stream);
  DeviceArray<float> corners = upload_array(memory, bvh.corners.data(), bvh.corners.size(), stream);
  DeviceArray<double> corners64 = upload_array(memory, bvh.corners64.data(), bvh.corners64.size(), stream);
  DeviceArray<uint32_t> ids = upload_array(memory, bvh.triangle.data(), bvh.triangle.size(), stream);
  result.upload_ms += timer.stop();
  timer.start();
  const BvhView view{{bvh.origin[0], bvh.origin[1], bvh.origin[2]},
                     nodes.get(),
                     bvh.corners.empty() ? nullptr : corners.get(),
                     bvh.corners64.empty() ? nullptr : corners64.get(),
                     ids.get(),
                     nullptr};  // no tie boxes on the device: the margins' pruning alone, the same answers
  bvh_surface_kernel<<<blocks_for(count, kThreads), kThreads, 0, stream>>>(view, seeds_from, points.truth, order, seed,
                                                                           count, out);
  XHD_CUDA_LAUNCHED("bvh_surface_kernel");
  result.query_ms += timer.stop();
}

// Every point through the grid, in `order`; the points it cannot settle cheaply (far from the surface) then
// through the hierarchy, seeded with the best triangle the grid found.
void query_grid(DeviceMemory& memory, cudaStream_t stream, const SurfaceFrame& frame, const xhd_mesh& mesh,
                DevicePoints points, const TriangleGridView& grid, const uint32_t* order, uint32_t n,
                const SurfaceOutputs& out, xhd_surface_result& result) {
  DeviceArray<uint32_t> left(memory, n), left_seed(memory, n), left_count(memory, 1);
  XHD_CUDA(cudaMemsetAsync(left_count.get(), 0, sizeof(uint32_t), stream));
  EventTimer timer(stream);
  timer.start();
  grid_surface_kernel<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(grid, points.truth, order, n, out, left.get(),
                                                                        left_seed.get(), left_count.get());
  XHD_CUDA_LAUNCHED("grid_surface_kernel");
  result.query_ms = timer.stop();
  uint32_t leftover = 0;
  XHD_CUDA(cudaMemcpyAsync(&leftover, left_count.get(), sizeof(leftover), cudaMemcpyDeviceToHost, stream));
  XHD_CUDA(cudaStreamSynchronize(stream));
  if (leftover > 0)
    run_bvh(memory, stream, frame, mesh, points, left.get(), left_seed.get(), grid, leftover, out, result);
}

}  // namespace

void gpu_point_surface_distance(const xhd_points& points, const xhd_mesh& mesh, const xhd_surface_options& options,
                                const Progress& progress, double* distance, uint32_t* nearest_triangle, double* closest,
                                xhd_surface_result& result) {
  const auto frame_start = std::chrono::steady_clock::now();
  SurfaceFrame frame;
  frame_surface(points, mesh, 0, frame);
  for (int k = 0; k < 3; ++k) result.origin[k] = frame.frame.origin[k];
  const double frame_ms = elapsed_ms(frame_start);
  Stream stream;
  DeviceMemory memory(device_memory_budget(options.device), stream.get());
  const uint32_t n = static_cast<uint32_t>(points.count);
  const bool use_grid = options.method == XHD_SURFACE_GRID;
  EventTimer timer(stream.get());
  DeviceArray<double> d2(memory, n), at(memory, closest ? 3ull * n : 0);
  DeviceArray<uint32_t> tri(memory, nearest_triangle ? n : 0);
  DeviceArray<unsigned long long> tests(memory, 1);
  XHD_CUDA(cudaMemsetAsync(tests.get(), 0, sizeof(unsigned long long), stream.get()));
  const SurfaceOutputs out{d2.get(), nearest_triangle ? tri.get() : nullptr, closest ? at.get() : nullptr, tests.get()};

  timer.start();
  // The points as given: floats or doubles (the float copies in the frame only order the queries, on the host).
  const PointTruth& point_truth = frame.point_truth();
  DeviceArray<float> xyz = upload_array(memory, point_truth.f32, point_truth.f32 ? 3ull * n : 0, stream.get());
  DeviceArray<double> xyz64 = upload_array(memory, point_truth.f64, point_truth.f64 ? 3ull * n : 0, stream.get());
  // (Chosen by if, not ?: between braced PointTruth values: that expression crashes nvcc 13's device front end.)
  DevicePoints on_device{PointTruth{xyz.get(), nullptr}};
  if (point_truth.f64) on_device.truth = PointTruth{nullptr, xyz64.get()};
  if (!use_grid) {
    // The hierarchy alone: the host builds it and the query order.
    const auto order_start = std::chrono::steady_clock::now();
    const std::vector<uint32_t> order = morton_order(frame.points(), n);
    result.build_ms += frame_ms + elapsed_ms(order_start);
    DeviceArray<uint32_t> sorted = upload_array(memory, order.data(), n, stream.get());
    result.upload_ms = timer.stop();
    run_bvh(memory, stream.get(), frame, mesh, on_device, sorted.get(), nullptr, TriangleGridView{}, n, out, result);
  } else {
    // The vertices as given: the grid is built from and placed in the input's coordinates.
    const uint64_t vertex_values = 3 * mesh.vertex_count;
    const PointTruth& host_vertices = frame.vertex_truth();
    DeviceArray<float> vertices =
        upload_array(memory, host_vertices.f32, host_vertices.f32 ? vertex_values : 0, stream.get());
    DeviceArray<double> vertices64 =
        upload_array(memory, host_vertices.f64, host_vertices.f64 ? vertex_values : 0, stream.get());
    DeviceArray<uint32_t> triangles = upload_array(memory, mesh.triangles, 3 * mesh.triangle_count, stream.get());
    result.upload_ms = timer.stop();
    progress.check_cancel();

    // The grid and the query order, built on the device.
    timer.start();
    PointTruth vertex_truth{vertices.get(), nullptr};
    if (host_vertices.f64) vertex_truth = PointTruth{nullptr, vertices64.get()};
    const DeviceTriangleGrid grid = build_device_triangle_grid(
        memory, vertex_truth, triangles.get(), static_cast<uint32_t>(mesh.triangle_count), frame.bulk, stream.get());
    const DeviceArray<uint32_t> sorted = device_query_order(memory, grid.view, on_device.truth, n, stream.get());
    result.build_ms = frame_ms + timer.stop();
    if (grid.usable) {
      query_grid(memory, stream.get(), frame, mesh, on_device, grid.view, sorted.get(), n, out, result);
    } else {
      // A mesh the grid would serve badly (long slivers, degenerate triangles): the hierarchy alone.
      run_bvh(memory, stream.get(), frame, mesh, on_device, sorted.get(), nullptr, TriangleGridView{}, n, out, result);
    }
  }
  progress.add(n);
  if (distance) {
    // Correctly rounded on the device as on the host, so both backends return the same bits.
    sqrt_in_place_kernel<<<blocks_for(n, kThreads), kThreads, 0, stream.get()>>>(d2.get(), n);
    XHD_CUDA_LAUNCHED("sqrt_in_place_kernel");
  }

  timer.start();
  if (distance) XHD_CUDA(cudaMemcpyAsync(distance, d2.get(), 8ull * n, cudaMemcpyDeviceToHost, stream.get()));
  if (nearest_triangle)
    XHD_CUDA(cudaMemcpyAsync(nearest_triangle, tri.get(), 4ull * n, cudaMemcpyDeviceToHost, stream.get()));
  if (closest) XHD_CUDA(cudaMemcpyAsync(closest, at.get(), 24ull * n, cudaMemcpyDeviceToHost, stream.get()));
  unsigned long long host_tests = 0;
  XHD_CUDA(cudaMemcpyAsync(&host_tests, tests.get(), sizeof(host_tests), cudaMemcpyDeviceToHost, stream.get()));
  result.download_ms = timer.stop();
  result.triangle_tests = host_tests;
  result.peak_device_bytes = memory.peak();
  result.device = options.device;
}

}  // namespace xhd
