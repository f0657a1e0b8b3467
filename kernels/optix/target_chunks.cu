#include "target_chunks.h"

#include <optix.h>
#include <optix_stubs.h>

#include "../cuda/cuda_check.h"
#include "../cuda/launch.h"
#include "optix_check.h"
#include "optix_session.h"
#include "refitted_structure.h"

namespace xhd {
namespace {

uint32_t chunk_count(uint64_t n, uint32_t chunk) { return static_cast<uint32_t>((n + chunk - 1) / chunk); }

// The exact MBR of each run of `chunk` sorted points (min and max of floats need no rounding).
__global__ void chunk_mbrs_kernel(const float4* points, uint32_t count, uint32_t chunk, uint32_t chunks, Box* mbrs) {
  const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= chunks) return;
  const uint32_t begin = c * chunk, end = min(count, begin + chunk);
  Box b;
  box_make_empty(b);
  for (uint32_t i = begin; i < end; ++i) {
    const float4 p = points[i];
    const float q[3] = {p.x, p.y, p.z};
    box_grow(b, q);
  }
  mbrs[c] = b;
}

// Each MBR widened by h, rounded outward so the box holds [min - h, max + h] exactly.
__global__ void widened_boxes_kernel(const Box* mbrs, uint32_t chunks, float h, OptixAabb* boxes) {
  const uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= chunks) return;
  const Box m = mbrs[c];
  OptixAabb b;
  b.minX = __fsub_rd(m.min[0], h);
  b.minY = __fsub_rd(m.min[1], h);
  b.minZ = __fsub_rd(m.min[2], h);
  b.maxX = __fadd_ru(m.max[0], h);
  b.maxY = __fadd_ru(m.max[1], h);
  b.maxZ = __fadd_ru(m.max[2], h);
  boxes[c] = b;
}

// The build input of n boxes at `boxes` (a device pointer; OptiX reads it only when building or refitting).
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

constexpr unsigned kBoxFlags = OPTIX_GEOMETRY_FLAG_DISABLE_ANYHIT;

}  // namespace

uint64_t target_chunks_bytes(uint64_t n, uint32_t chunk, OptixDeviceContext context) {
  if (n == 0) return 0;
  const uint32_t chunks = chunk_count(n, chunk);
  const CUdeviceptr stand_in = OPTIX_AABB_BUFFER_BYTE_ALIGNMENT;
  const unsigned flags = kBoxFlags;
  return uint64_t{chunks} * (sizeof(Box) + sizeof(OptixAabb)) +
         RefittedStructure::bytes(context, box_input(chunks, &stand_in, &flags));
}

TargetChunks::TargetChunks(DeviceMemory& memory, const OptixSession& session, const float4* points, uint32_t count,
                           uint32_t chunk, cudaStream_t stream)
    : session_(session),
      count_(count),
      chunk_(chunk),
      chunks_(chunk_count(count, chunk)),
      stream_(stream),
      mbrs_(memory, chunks_),
      boxes_(memory, chunks_),
      flags_(kBoxFlags) {
  if (count_ == 0) return;
  chunk_mbrs_kernel<<<blocks_for(chunks_, 256), 256, 0, stream_>>>(points, count_, chunk_, chunks_, mbrs_.get());
  XHD_CUDA_LAUNCHED("chunk_mbrs_kernel");
  box_buffer_ = reinterpret_cast<CUdeviceptr>(boxes_.get());
  input_ = box_input(chunks_, &box_buffer_, &flags_);
  structure_ = RefittedStructure(memory, session_.context, input_);
}

OptixTraversableHandle TargetChunks::at_half_side(float h) {
  if (count_ == 0) return 0;
  widened_boxes_kernel<<<blocks_for(chunks_, 256), 256, 0, stream_>>>(mbrs_.get(), chunks_, h, boxes_.get());
  XHD_CUDA_LAUNCHED("widened_boxes_kernel");
  return structure_.update(session_.context, stream_, input_);
}

}  // namespace xhd
