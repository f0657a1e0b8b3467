// A point set on the device sorted into a uniform grid (the X-HD index), with the implicit tree of
// tight MBRs over blocks of cells. The same structure puts a set's points in Morton order when the set
// is the query side.
#pragma once

#include <cstdint>
#include <vector>

#include "../geometry/box_math.h"
#include "device_memory.h"
#include "grid_frame.h"

namespace xhd {

// What the kernels read: plain pointers, passed by value.
struct GridView {
  GridFrame frame;
  const float4* points;        // sorted by cell key; w holds the original index (as bits)
  const uint32_t* cell_start;  // points of cell k: [cell_start[k], cell_start[k + 1])
  const Box* nodes;            // MBRs of tree nodes, level 1 first; empty boxes where no points
  uint32_t level_offset[28];   // first node of level j (j >= 1) in nodes
  uint32_t count;
};

struct DeviceGrid {
  GridFrame frame{};
  Box bounds{};  // bounding box of the points (exact floats)
  DeviceArray<float4> points;
  DeviceArray<uint32_t> cell_start;
  DeviceArray<Box> nodes;
  std::vector<uint32_t> level_offset;  // index 0 unused
  uint32_t count = 0;

  GridView view() const;
};

// Bytes a grid over n points with at most max_cells cells needs while it is being built.
uint64_t grid_build_bytes(uint64_t n, uint64_t max_cells);

struct GridPlan {
  double cost_ratio;  // c_hit / c_dist from the profiling kernel
  double radius;      // lower bound of the directed HD this grid serves as index for (0 if unknown)
  double cell_size;   // caller's cell side, 0 for the cost model
};

// What sizing a grid needs to know of n raw interleaved points on the device: their exact bounds and a
// spread sample, fetched in one round trip.
struct GridInput {
  const float* xyz = nullptr;
  uint32_t count = 0;
  uint32_t index_base = 0;  // added to a point's position in xyz to give its original index
  Box bounds{};
  std::vector<float> sample;  // interleaved x,y,z
};

GridInput survey_points(DeviceMemory& memory, const float* xyz, uint32_t n, uint32_t index_base, cudaStream_t stream);

// Sorts surveyed points into a grid sized by the plan. Only queues device work: the host is free to size
// the next grid while this one is sorted. The points in input.xyz must stay until the queued work is
// done (stream-ordered frees on the same stream are safe).
DeviceGrid build_device_grid(DeviceMemory& memory, const GridInput& input, const GridPlan& plan, cudaStream_t stream);

// n raw points sorted into the cells of an existing frame (another set's grid; points beyond its box fall into its
// edge cells): cell_start and points, no tree. No survey and no sizing, so no host round trip: queries put in the
// cell order of the grid they search, neighbouring threads reading neighbouring cells. Needs the frame's cell
// count plus one, twice, in 32-bit words beside the points.
DeviceGrid order_in_frame(DeviceMemory& memory, const float* xyz, uint32_t n, uint32_t index_base, const GridFrame& frame,
                          cudaStream_t stream);

}  // namespace xhd
