#include "slab_queries.h"

#include <algorithm>
#include <stdexcept>

#include <cub/device/device_select.cuh>

#include "cuda_check.h"

namespace xhd {
namespace {

// CUB counts items in int: the grid's points are selected in pieces below that.
constexpr uint64_t kSelectPiece = uint64_t(1) << 30;

// A grid point's w holds its index in the part (device_grid.h).
struct InSlab {
  const uint8_t* flags;
  __device__ bool operator()(const float4& p) const { return flags[__float_as_uint(p.w)] != 0; }
};

}  // namespace

DeviceArray<float4> slab_queries(DeviceMemory& memory, const DeviceGrid& grid, const uint8_t* in_slab,
                                 uint64_t slab_count, cudaStream_t stream) {
  const uint64_t n = grid.count;
  DeviceArray<float4> queries(memory, std::max<uint64_t>(slab_count, 1));
  if (n == 0 || slab_count == 0) return queries;
  DeviceArray<int> piece_count(memory, 1);
  const InSlab select{in_slab};
  size_t scratch_bytes = 0;
  XHD_CUDA(cub::DeviceSelect::If(nullptr, scratch_bytes, grid.points.get(), queries.get(), piece_count.get(),
                                 static_cast<int>(std::min(n, kSelectPiece)), select, stream));
  DeviceArray<uint8_t> scratch(memory, std::max<size_t>(scratch_bytes, 1));
  uint64_t written = 0;
  for (uint64_t begin = 0; begin < n; begin += kSelectPiece) {
    const int items = static_cast<int>(std::min(kSelectPiece, n - begin));
    XHD_CUDA(cub::DeviceSelect::If(scratch.get(), scratch_bytes, grid.points.get() + begin, queries.get() + written,
                                   piece_count.get(), items, select, stream));
    int got = 0;
    XHD_CUDA(cudaMemcpyAsync(&got, piece_count.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
    XHD_CUDA(cudaStreamSynchronize(stream));
    written += static_cast<uint64_t>(got);
    if (written > slab_count) break;
  }
  if (written != slab_count) throw std::runtime_error("slab queries: the selection disagrees with the count");
  return queries;
}

}  // namespace xhd
