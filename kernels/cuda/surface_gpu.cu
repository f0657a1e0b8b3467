#include "surface_gpu.h"

#include <chrono>
#include <cmath>
#include <vector>

#include "../common/triangle_bvh.h"
#include "device_memory.h"
#include "device_session.h"
#include "launch.h"

namespace xhd {
namespace {

constexpr int kThreads = 128;

// One thread per point, points taken in Morton order so a warp's searches follow similar paths.
__global__ void __launch_bounds__(kThreads) nearest_surface_kernel(BvhView bvh, const float* xyz, const uint32_t* order,
                                                                   uint32_t count, double* distance2, uint32_t* triangle,
                                                                   double* closest, unsigned long long* tests) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t evaluated = 0;
  if (k < count) {
    const uint32_t i = order[k];
    NearestTriangle best;
    nearest_triangle(bvh, dload(xyz + 3ull * i), best);
    distance2[i] = best.d2;
    triangle[i] = best.triangle;
    closest[3ull * i] = best.at.x;
    closest[3ull * i + 1] = best.at.y;
    closest[3ull * i + 2] = best.at.z;
    evaluated = best.tests;
  }
  for (int o = 16; o > 0; o >>= 1) evaluated += __shfl_down_sync(0xffffffffu, evaluated, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(tests, static_cast<unsigned long long>(evaluated));
}

template <typename T>
DeviceArray<T> upload_array(DeviceMemory& memory, const T* host, size_t count, cudaStream_t stream) {
  DeviceArray<T> out(memory, count);
  XHD_CUDA(cudaMemcpyAsync(out.get(), host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
  return out;
}

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

void gpu_point_surface_distance(const xhd_points& points, const xhd_mesh& mesh, const xhd_surface_options& options,
                                const Progress& progress, double* distance, uint32_t* nearest_triangle,
                                double* closest, xhd_surface_result& result) {
  Stream stream;
  DeviceMemory memory(device_memory_budget(options.device), stream.get());
  const uint32_t n = static_cast<uint32_t>(points.count);

  // The hierarchy and the query order are built on the host (the same code as the CPU backend).
  const auto build_start = std::chrono::steady_clock::now();
  const TriangleBvh bvh = build_triangle_bvh(mesh.xyz, mesh.triangles, mesh.triangle_count);
  const std::vector<uint32_t> order = morton_order(points.xyz, n);
  result.build_ms = elapsed_ms(build_start);
  progress.check_cancel();

  EventTimer timer(stream.get());
  timer.start();
  DeviceArray<BvhNode> nodes = upload_array(memory, bvh.nodes.data(), bvh.nodes.size(), stream.get());
  DeviceArray<float> corners = upload_array(memory, bvh.corners.data(), bvh.corners.size(), stream.get());
  DeviceArray<uint32_t> ids = upload_array(memory, bvh.triangle.data(), bvh.triangle.size(), stream.get());
  DeviceArray<float> xyz = upload_array(memory, points.xyz, 3ull * n, stream.get());
  DeviceArray<uint32_t> sorted = upload_array(memory, order.data(), n, stream.get());
  result.upload_ms = timer.stop();

  DeviceArray<double> d2(memory, n), at(memory, 3ull * n);
  DeviceArray<uint32_t> tri(memory, n);
  DeviceArray<unsigned long long> tests(memory, 1);
  XHD_CUDA(cudaMemsetAsync(tests.get(), 0, sizeof(unsigned long long), stream.get()));
  timer.start();
  const BvhView view{nodes.get(), corners.get(), ids.get()};
  nearest_surface_kernel<<<blocks_for(n, kThreads), kThreads, 0, stream.get()>>>(view, xyz.get(), sorted.get(), n,
                                                                                d2.get(), tri.get(), at.get(), tests.get());
  XHD_CUDA_LAUNCHED("nearest_surface_kernel");
  result.query_ms = timer.stop();
  progress.add(n);

  timer.start();
  std::vector<double> host_d2(n);
  XHD_CUDA(cudaMemcpyAsync(host_d2.data(), d2.get(), 8ull * n, cudaMemcpyDeviceToHost, stream.get()));
  if (nearest_triangle)
    XHD_CUDA(cudaMemcpyAsync(nearest_triangle, tri.get(), 4ull * n, cudaMemcpyDeviceToHost, stream.get()));
  if (closest) XHD_CUDA(cudaMemcpyAsync(closest, at.get(), 24ull * n, cudaMemcpyDeviceToHost, stream.get()));
  unsigned long long host_tests = 0;
  XHD_CUDA(cudaMemcpyAsync(&host_tests, tests.get(), sizeof(host_tests), cudaMemcpyDeviceToHost, stream.get()));
  result.download_ms = timer.stop();
  if (distance)
    for (uint32_t i = 0; i < n; ++i) distance[i] = std::sqrt(host_d2[i]);
  result.triangle_tests = host_tests;
  result.peak_device_bytes = memory.peak();
  result.device = options.device;
}

}  // namespace xhd
