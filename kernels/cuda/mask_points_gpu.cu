// xhd_mask_points of the device libraries (CUDA, OptiX): a voxel mask's points selected and placed on the GPU by
// the rules of kernels/geometry/voxel_select.h, the same points in the same order as the CPU library's, bit for
// bit. One thread per voxel flags the foreground, a second pass flags the points (foreground, and on the surface
// when asked) and counts both, CUB's DeviceSelect keeps the flagged voxels' indices in increasing order, and one
// thread per point computes its coordinates (--fmad=false: each product and sum rounded as on the host).
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include "../abi/owned_buffer.h"
#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "../geometry/voxel_mask_points.h"
#include "../geometry/voxel_select.h"
#include "cuda_check.h"
#include "device_memory.h"
#include "device_session.h"
#include "launch.h"
#include "xhd.h"

namespace xhd {
namespace {

constexpr int kThreads = 256;
// DeviceSelect's item count is an int on every CUB version: larger grids go through it in pieces of this size.
constexpr uint64_t kSelectPiece = uint64_t(1) << 30;

struct Affine {
  double a[12];
};

template <class T>
__global__ void flag_foreground(const T* values, uint64_t voxels, int use_label, double label, uint8_t* fg) {
  const uint64_t n = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n < voxels) fg[n] = is_foreground(values[n], use_label, label) ? 1 : 0;
}

// selected[n]: whether voxel n is a point. counts[0] += foreground voxels, counts[1] += points (each block once).
__global__ void flag_points(const uint8_t* fg, uint64_t nx, uint64_t ny, uint64_t nz, int surface, uint8_t* selected,
                            unsigned long long* counts) {
  const uint64_t voxels = nx * ny * nz;
  const uint64_t n = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  bool is_fg = false, is_point = false;
  if (n < voxels) {
    is_fg = fg[n] != 0;
    if (is_fg) {
      const uint64_t i = n % nx, j = (n / nx) % ny, k = n / (nx * ny);
      const auto foreground = [fg](uint64_t index) { return fg[index] != 0; };
      is_point = surface == 0 || on_surface(i, j, k, nx, ny, nz, n, foreground);
    }
    selected[n] = is_point ? 1 : 0;
  }
  const int block_fg = __syncthreads_count(is_fg);
  const int block_points = __syncthreads_count(is_point);
  if (threadIdx.x == 0) {
    if (block_fg > 0) atomicAdd(&counts[0], static_cast<unsigned long long>(block_fg));
    if (block_points > 0) atomicAdd(&counts[1], static_cast<unsigned long long>(block_points));
  }
}

__global__ void place_points(const uint64_t* index, uint64_t count, uint64_t nx, uint64_t ny, Affine affine,
                             double* xyz) {
  const uint64_t p = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= count) return;
  const uint64_t n = index[p];
  const double i = static_cast<double>(n % nx), j = static_cast<double>((n / nx) % ny),
               k = static_cast<double>(n / (nx * ny));
  for (int row = 0; row < 3; ++row) xyz[3 * p + row] = mask_coordinate(affine.a, row, i, j, k);
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

template <class T>
void launch_flag_foreground(const xhd_voxel_mask& mask, const void* values, uint64_t voxels, uint8_t* fg,
                            cudaStream_t stream) {
  flag_foreground<<<blocks_for(voxels, kThreads), kThreads, 0, stream>>>(static_cast<const T*>(values), voxels,
                                                                         mask.use_label, mask.label, fg);
}

// The calling thread's pinned buffer, kept for the thread's life and grown as needed. `xhd batch` lanes call in from
// libuv's threads, a BraTS-sized mask each time: the driver's copy from pageable memory ran at about 7 GB/s and one
// at a time per GPU (2.65 ms a pair of masks, the largest share of a pair's GPU time in a batch), while a copy into
// pinned memory on the calling thread and a DMA from there run beside the other lanes'. Portable: a thread may
// serve lanes of several GPUs.
class ThreadStage {
 public:
  ~ThreadStage() {
    if (p_ != nullptr) cudaFreeHost(p_);
  }
  void* at_least(size_t bytes) {
    if (bytes > size_) {
      if (p_ != nullptr) cudaFreeHost(p_);
      p_ = nullptr, size_ = 0;
      if (cudaHostAlloc(&p_, bytes, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();  // pinned memory refused (limits, containers): the driver's path still works
        p_ = nullptr;
        return nullptr;
      }
      size_ = bytes;
    }
    return p_;
  }

 private:
  void* p_ = nullptr;
  size_t size_ = 0;
};

// Up to this size a mask goes through the thread's pinned buffer (a larger one through the driver, which then
// costs less than holding its size pinned a thread).
constexpr size_t kThreadStageMost = size_t(64) << 20;

void upload_values(void* device, const void* host, size_t bytes, cudaStream_t stream) {
  thread_local ThreadStage stage;
  void* pinned = bytes <= kThreadStageMost ? stage.at_least(bytes) : nullptr;
  if (pinned != nullptr) {
    std::memcpy(pinned, host, bytes);
    XHD_CUDA(cudaMemcpyAsync(device, pinned, bytes, cudaMemcpyHostToDevice, stream));
  } else {
    XHD_CUDA(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));
  }
  XHD_CUDA(cudaStreamSynchronize(stream));  // the buffer is the thread's again, the caller's memory is read
}

void gpu_mask_points(const xhd_voxel_mask& mask, xhd_mask_points_result& result) {
  const uint64_t nx = mask.dims[0], ny = mask.dims[1], nz = mask.dims[2];
  const uint64_t voxels = voxel_count(mask);
  if (voxels > (uint64_t(1) << 30) * 64)
    throw InvalidArgument("the grid has more voxels than one launch covers (2^36); use the CPU library");
  Stream stream;
  DeviceMemory memory(device_memory_budget(mask.device), stream.get());
  const uint64_t value_bytes = voxels * voxel_value_bytes(mask.value_type);

  auto started = std::chrono::steady_clock::now();
  DeviceArray<uint8_t> values(memory, value_bytes);
  upload_values(values.get(), mask.values, value_bytes, stream.get());
  result.upload_ms = ms_since(started);

  started = std::chrono::steady_clock::now();
  DeviceArray<uint8_t> fg(memory, voxels);
  switch (mask.value_type) {
    case XHD_VOXEL_U8:
      launch_flag_foreground<uint8_t>(mask, values.get(), voxels, fg.get(), stream.get());
      break;
    case XHD_VOXEL_I8:
      launch_flag_foreground<int8_t>(mask, values.get(), voxels, fg.get(), stream.get());
      break;
    case XHD_VOXEL_U16:
      launch_flag_foreground<uint16_t>(mask, values.get(), voxels, fg.get(), stream.get());
      break;
    case XHD_VOXEL_I16:
      launch_flag_foreground<int16_t>(mask, values.get(), voxels, fg.get(), stream.get());
      break;
    case XHD_VOXEL_U32:
      launch_flag_foreground<uint32_t>(mask, values.get(), voxels, fg.get(), stream.get());
      break;
    case XHD_VOXEL_I32:
      launch_flag_foreground<int32_t>(mask, values.get(), voxels, fg.get(), stream.get());
      break;
    case XHD_VOXEL_F32:
      launch_flag_foreground<float>(mask, values.get(), voxels, fg.get(), stream.get());
      break;
    default:
      launch_flag_foreground<double>(mask, values.get(), voxels, fg.get(), stream.get());
      break;
  }
  XHD_CUDA_LAUNCHED("flag_foreground");
  values.reset();

  DeviceArray<uint8_t> selected(memory, voxels);
  DeviceArray<unsigned long long> counts(memory, 2);
  XHD_CUDA(cudaMemsetAsync(counts.get(), 0, 2 * sizeof(unsigned long long), stream.get()));
  flag_points<<<blocks_for(voxels, kThreads), kThreads, 0, stream.get()>>>(fg.get(), nx, ny, nz, mask.surface,
                                                                           selected.get(), counts.get());
  XHD_CUDA_LAUNCHED("flag_points");
  unsigned long long host_counts[2] = {0, 0};
  XHD_CUDA(cudaMemcpyAsync(host_counts, counts.get(), sizeof(host_counts), cudaMemcpyDeviceToHost, stream.get()));
  XHD_CUDA(cudaStreamSynchronize(stream.get()));
  fg.reset();
  result.foreground = host_counts[0];
  result.count = host_counts[1];
  if (result.count == 0) {
    result.compute_ms = ms_since(started);
    result.peak_device_bytes = memory.peak();
    return;
  }

  // The flagged voxels' indices in increasing order, a piece of the grid at a time.
  DeviceArray<uint64_t> index(memory, result.count);
  DeviceArray<int> piece_count(memory, 1);
  size_t scratch_bytes = 0;
  const int largest_piece = static_cast<int>(std::min(voxels, kSelectPiece));
  XHD_CUDA(cub::DeviceSelect::Flagged(nullptr, scratch_bytes, thrust::counting_iterator<uint64_t>(0), selected.get(),
                                      index.get(), piece_count.get(), largest_piece, stream.get()));
  DeviceArray<uint8_t> scratch(memory, std::max<size_t>(scratch_bytes, 1));
  uint64_t written = 0;
  for (uint64_t begin = 0; begin < voxels; begin += kSelectPiece) {
    const int items = static_cast<int>(std::min(kSelectPiece, voxels - begin));
    XHD_CUDA(cub::DeviceSelect::Flagged(scratch.get(), scratch_bytes, thrust::counting_iterator<uint64_t>(begin),
                                        selected.get() + begin, index.get() + written, piece_count.get(), items,
                                        stream.get()));
    int got = 0;
    XHD_CUDA(cudaMemcpyAsync(&got, piece_count.get(), sizeof(int), cudaMemcpyDeviceToHost, stream.get()));
    XHD_CUDA(cudaStreamSynchronize(stream.get()));
    written += static_cast<uint64_t>(got);
  }
  if (written != result.count) throw std::runtime_error("mask points: the selection disagrees with the count");
  scratch.reset();
  selected.reset();

  DeviceArray<double> xyz(memory, 3 * result.count);
  Affine affine;
  std::copy(mask.affine, mask.affine + 12, affine.a);
  place_points<<<blocks_for(result.count, kThreads), kThreads, 0, stream.get()>>>(index.get(), result.count, nx, ny,
                                                                                  affine, xyz.get());
  XHD_CUDA_LAUNCHED("place_points");
  XHD_CUDA(cudaStreamSynchronize(stream.get()));
  result.compute_ms = ms_since(started);

  started = std::chrono::steady_clock::now();
  OwnedBuffer out(3 * result.count * sizeof(double));
  XHD_CUDA(cudaMemcpyAsync(out.as<double>(), xyz.get(), 3 * result.count * sizeof(double), cudaMemcpyDeviceToHost,
                           stream.get()));
  XHD_CUDA(cudaStreamSynchronize(stream.get()));
  result.download_ms = ms_since(started);
  result.peak_device_bytes = memory.peak();
  result.xyz = static_cast<double*>(out.release());
}

}  // namespace
}  // namespace xhd

extern "C" XHD_API int32_t xhd_mask_points(const xhd_voxel_mask* mask, xhd_mask_points_result* result,
                                           xhd_progress* progress) {
  return xhd::guarded(progress, [&] {
    xhd::check_voxel_mask(mask, result);
    const int count = xhd::usable_device_count();
    if (mask->device < 0 || mask->device >= count)
      throw xhd::InvalidArgument("device " + std::to_string(mask->device) + " does not exist (" +
                                 std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") + " found)");
    XHD_CUDA(cudaSetDevice(mask->device));
    result->device = mask->device;
    result->threads = 1;
    xhd::gpu_mask_points(*mask, *result);
    xhd::fill_point_bounds(*result, xhd::resolve_thread_count(mask->threads));
    return int32_t(XHD_OK);
  });
}
