// xhd_mask_points on the host: the argument checks every backend shares, and the selection on every core that the
// CPU library runs (the CUDA library runs the same rules on the device: kernels/cuda/mask_points_gpu.cu).
#pragma once

#include <cstdint>

#include "xhd.h"

namespace xhd {

// Refuses a mask the selection cannot read: null pointers, an unknown value type, a zero or overflowing grid, a
// non-finite affine or label. Sets *result to zeros.
void check_voxel_mask(const xhd_voxel_mask* mask, xhd_mask_points_result* result);

// Voxels of the grid (checked by check_voxel_mask not to overflow).
uint64_t voxel_count(const xhd_voxel_mask& mask);

// The points on `threads` host threads (0 = every hardware thread), into result (xyz owned by the caller after).
void host_mask_points(const xhd_voxel_mask& mask, int threads, xhd_mask_points_result& result);

// result.bounds from result.xyz (result.count points), on `threads` threads: what src/core/coordinates.ts's
// computeBounds gives for them, bit for bit, so the reader need not walk the points again on the main thread.
void fill_point_bounds(xhd_mask_points_result& result, int threads);

// Calls body(values) with values typed as the mask's value_type (a const T*).
template <class Body>
void with_voxel_values(const xhd_voxel_mask& mask, Body&& body) {
  switch (mask.value_type) {
    case XHD_VOXEL_U8:
      return body(static_cast<const uint8_t*>(mask.values));
    case XHD_VOXEL_I8:
      return body(static_cast<const int8_t*>(mask.values));
    case XHD_VOXEL_U16:
      return body(static_cast<const uint16_t*>(mask.values));
    case XHD_VOXEL_I16:
      return body(static_cast<const int16_t*>(mask.values));
    case XHD_VOXEL_U32:
      return body(static_cast<const uint32_t*>(mask.values));
    case XHD_VOXEL_I32:
      return body(static_cast<const int32_t*>(mask.values));
    case XHD_VOXEL_F32:
      return body(static_cast<const float*>(mask.values));
    default:
      return body(static_cast<const double*>(mask.values));
  }
}

// Bytes of one value of the mask's value_type.
uint64_t voxel_value_bytes(int32_t value_type);

}  // namespace xhd
