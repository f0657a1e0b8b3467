// The triangle grid built on the GPU from the uploaded mesh, with the same cells and the same lists
// (in another order within a cell, which no answer depends on) as the host build.
#pragma once

#include <cuda_runtime.h>

#include "../geometry/triangle_grid.h"
#include "device_memory.h"

namespace xhd {

struct DeviceTriangleGrid {
  bool usable = true;  // false: too costly for this mesh (triangle_grid.h); the view's cells are sized, not filled
  DeviceArray<uint32_t> cell_start;
  DeviceArray<uint32_t> entries;
  TriangleGridView view;  // device pointers
};

// truth (the vertices as given) and triangles are the mesh in device memory; bulk is the mesh's, from the
// host (mesh_bulk.h). Vertex indices must already be checked.
DeviceTriangleGrid build_device_triangle_grid(DeviceMemory& memory, PointTruth truth, const uint32_t* triangles,
                                              uint32_t triangle_count, const MeshBulk& bulk, cudaStream_t stream);

// Indices of the points (device memory) in Morton order of their cells in `grid`: neighbouring
// queries in neighbouring threads.
DeviceArray<uint32_t> device_query_order(DeviceMemory& memory, const TriangleGridView& grid, PointTruth points,
                                         uint32_t count, cudaStream_t stream);

}  // namespace xhd
