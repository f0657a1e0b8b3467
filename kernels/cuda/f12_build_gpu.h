// The f12 hierarchy (geometry/f12_bvh.h) built on the GPU, for the cuda backend's mesh distance: the same
// triangle order and the same tight boxes as build_f12_mesh and f12_boxes give on the host (bit for bit), and
// oriented boxes (oriented_box.h) with the host's axes definitions (principal_axes.h) whose extents, and DOP
// reaches along their axes (oriented_dop.h), are scanned from every vertex of the node. The oriented boxes and
// reaches are valid bounds, not the host's bits: the GPU's searches read them only to prune, so its answers stay
// exact and equal to the CPU backend's.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "../geometry/f12_bvh.h"
#include "../geometry/oriented_box.h"
#include "../geometry/oriented_dop.h"
#include "device_memory.h"

namespace xhd {

struct DeviceF12 {
  F12Shape shape{1, 0};
  DeviceArray<uint32_t> triangle;     // the input's triangle index of each slot
  DeviceArray<float> corners;         // 9 floats a slot, from the float copy
  DeviceArray<Box> boxes;             // every node's tight box
  DeviceArray<OrientedBox> oriented;  // every node's, where asked for (else empty)
  DeviceArray<DopReaches> dops;       // every node's DOP reaches along its oriented box's axes, where asked for
};

// Builds from the float copy's vertices (xyz, 3 floats a vertex) and the triangles (3 checked indices each),
// both already on the device, on `stream`; returns with the work queued, not finished. with_dops: the oriented
// boxes' DOPs too (with_oriented only).
DeviceF12 build_f12_on_device(DeviceMemory& memory, cudaStream_t stream, const float* xyz, const uint32_t* triangles,
                              uint64_t triangle_count, bool with_oriented, bool with_dops);

// Every node's tight box from the slots' corners (f12_boxes' bits), queued on `stream`.
void fit_f12_boxes(cudaStream_t stream, const F12Shape& shape, const float* corners, Box* boxes);

// The input's double corners in the tree's slot order (9 a slot), from its double vertices on the device:
// what exact distances are measured over when the float copy is not the input (mesh_truth.h's truth_corners).
DeviceArray<double> device_truth_corners(DeviceMemory& memory, cudaStream_t stream, const DeviceF12& tree,
                                         const uint32_t* triangles, const double* xyz64);

// Tests' check of a tree built on the device against the host's build of the same vertices: the same slot order
// and tight boxes, bit for bit, and every corner of every node inside its oriented box and within its DOP's reaches
// (in double). Throws std::runtime_error naming the first difference. The host's build costs what it costs on the CPU backend, so
// this runs only where XHD_CHECK_GPU_BUILD=1 (the GPU test files set it).
void check_device_tree(cudaStream_t stream, const DeviceF12& tree, const float* xyz, const uint32_t* triangles,
                       int threads);

}  // namespace xhd
