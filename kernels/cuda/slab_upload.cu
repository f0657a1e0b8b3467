#include "slab_upload.h"

#include <chrono>
#include <stdexcept>
#include <vector>

#include <cub/device/device_scan.cuh>

#include "../abi/parallel.h"
#include "cuda_check.h"
#include "launch.h"
#include "staged_upload.h"

namespace xhd {
namespace {

constexpr int kThreads = 256;

__global__ void count_words_kernel(const unsigned long long* held, uint64_t words, uint32_t* counts) {
  for (uint64_t j = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; j < words; j += uint64_t(gridDim.x) * blockDim.x)
    counts[j] = static_cast<uint32_t>(__popcll(held[j]));
}

// Each held point's set index and in-slab flag at its position in the part: the held points before its word
// (first[j], the scan of the words' counts) plus those before it in the word.
__global__ void place_part_kernel(const unsigned long long* held, const unsigned long long* own, uint64_t words,
                                  const uint32_t* first, uint32_t* set_index, uint8_t* in_slab) {
  for (uint64_t j = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; j < words; j += uint64_t(gridDim.x) * blockDim.x) {
    uint32_t at = first[j];
    const unsigned long long mine = own[j];
    for (unsigned long long bits = held[j]; bits != 0; bits &= bits - 1) {
      const int t = __ffsll(static_cast<long long>(bits)) - 1;
      set_index[at] = static_cast<uint32_t>(64 * j + t);
      in_slab[at] = static_cast<uint8_t>((mine >> t) & 1);
      ++at;
    }
  }
}

__global__ void rename_kernel(float4* points, uint64_t n, const uint32_t* set_index) {
  for (uint64_t k = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; k < n; k += uint64_t(gridDim.x) * blockDim.x)
    points[k].w = __uint_as_float(set_index[__float_as_uint(points[k].w)]);
}

// Runs of whole blocks whose part points fill at most a stage each: the pieces of the gathered upload.
struct Pieces {
  std::vector<size_t> first_block;  // one more than pieces: the last is the layout's block count
  std::vector<size_t> bytes;
};

Pieces pieces_of(const SlabLayout& layout, int w) {
  constexpr size_t kPointBytes = 3 * sizeof(float);
  const size_t most = staged_piece_bytes() / kPointBytes;
  const size_t blocks = layout.blocks();
  const auto end_of = [&](size_t b) { return b + 1 < blocks ? layout.first_of(b + 1, w) : layout.size[w]; };
  Pieces p;
  p.first_block.push_back(0);
  size_t from = 0;
  for (size_t b = 0; b < blocks; ++b) {
    if (end_of(b) - layout.first_of(from, w) > most) {  // block b starts the next piece (a block alone fits)
      p.bytes.push_back(kPointBytes * (layout.first_of(b, w) - layout.first_of(from, w)));
      p.first_block.push_back(from = b);
    }
  }
  if (blocks > 0) {
    p.bytes.push_back(kPointBytes * (layout.size[w] - layout.first_of(from, w)));
    p.first_block.push_back(blocks);
  }
  return p;
}

}  // namespace

DevicePart upload_part(DeviceMemory& memory, const FramedSet& set, const SlabLayout& layout, int w,
                       cudaStream_t stream, double& upload_ms) {
  const auto start = std::chrono::steady_clock::now();
  DevicePart part;
  part.count = layout.size[w];
  part.slab_count = layout.slab_count[w];
  if (part.count == 0) return part;
  part.raw = DeviceArray<float>(memory, 3 * part.count);
  const Pieces pieces = pieces_of(layout, w);
  copy_pieces_to_device(part.raw.get(), pieces.bytes, [&](size_t k, void* to, int threads) {
    gather_part(set, layout, w, pieces.first_block[k], pieces.first_block[k + 1], static_cast<float*>(to), threads);
  }, stream);

  const uint64_t words = layout.words();
  DeviceArray<unsigned long long> held(memory, words), own(memory, words);
  copy_to_device(held.get(), layout.held[w].data(), words * sizeof(uint64_t), stream);
  copy_to_device(own.get(), layout.own[w].data(), words * sizeof(uint64_t), stream);
  DeviceArray<uint32_t> counts(memory, words), first(memory, words);
  count_words_kernel<<<blocks_for(words, kThreads), kThreads, 0, stream>>>(held.get(), words, counts.get());
  XHD_CUDA_LAUNCHED("count_words_kernel");
  // Positions in a part are 32-bit (as every grid's indices are), so its set's words fit CUB's int count.
  if (words > uint64_t(1) << 31) throw std::logic_error("upload_part: a set beyond 32-bit indices");
  size_t scratch_bytes = 0;
  XHD_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scratch_bytes, counts.get(), first.get(), static_cast<int>(words),
                                         stream));
  DeviceArray<uint8_t> scratch(memory, std::max<size_t>(scratch_bytes, 1));
  XHD_CUDA(cub::DeviceScan::ExclusiveSum(scratch.get(), scratch_bytes, counts.get(), first.get(), static_cast<int>(words),
                                         stream));
  part.set_index = DeviceArray<uint32_t>(memory, part.count);
  part.in_slab = DeviceArray<uint8_t>(memory, part.count);
  place_part_kernel<<<blocks_for(words, kThreads), kThreads, 0, stream>>>(held.get(), own.get(), words, first.get(),
                                                                         part.set_index.get(), part.in_slab.get());
  XHD_CUDA_LAUNCHED("place_part_kernel");
  // copy_to_device returns with the bits read (pageable copies below its staging size are synchronous to the
  // host, staged ones wait for their buffers): the layout may go; the device arrays are freed in stream order.
  upload_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return part;
}

void rename_to_set(float4* points, uint64_t n, const uint32_t* set_index, cudaStream_t stream) {
  if (n == 0) return;
  rename_kernel<<<blocks_for(n, kThreads), kThreads, 0, stream>>>(points, n, set_index);
  XHD_CUDA_LAUNCHED("rename_kernel");
}

}  // namespace xhd
