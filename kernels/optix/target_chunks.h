// The target points as OptiX primitives: runs of `chunk` consecutive points of the grid's sorted copy (Morton
// order, so a run is a compact cluster), each an AABB of the run's exact MBR widened by the search reach. The
// paper's X-HD makes a primitive of each grid cell; a run of fixed length is the same grouping without its
// load imbalance (a crowded cell is many runs, each a bounded piece of work for one intersection program), and
// chunk = 1 is the one-box-per-point search. The structure is built once and refitted as the radius grows.
#pragma once

#include <optix.h>

#include <cstdint>

#include "../cuda/device_memory.h"
#include "../geometry/box_math.h"
#include "refitted_structure.h"

namespace xhd {

struct OptixSession;

class TargetChunks {
 public:
  TargetChunks(DeviceMemory& memory, const OptixSession& session, const float4* points, uint32_t count,
               uint32_t chunk, cudaStream_t stream);

  // The traversable of the chunks' boxes at half side h beyond their MBRs (0 when there are no targets).
  OptixTraversableHandle at_half_side(float h);

  const Box* mbrs() const { return mbrs_.get(); }
  uint32_t chunk() const { return chunk_; }

 private:
  const OptixSession& session_;
  uint32_t count_, chunk_, chunks_;
  cudaStream_t stream_;
  DeviceArray<Box> mbrs_;
  DeviceArray<OptixAabb> boxes_;
  CUdeviceptr box_buffer_ = 0;
  unsigned flags_;
  OptixBuildInput input_{};
  RefittedStructure structure_;
};

// Device bytes a TargetChunks over n points holds (the MBRs, the boxes, the structure and its scratch).
uint64_t target_chunks_bytes(uint64_t n, uint32_t chunk, OptixDeviceContext context);

}  // namespace xhd
