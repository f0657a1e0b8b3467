// Which voxels of a label volume are points, and where they lie: the rules every backend's xhd_mask_points applies
// (CPU, CUDA, OptiX), host and device alike, so that each gives the TypeScript reference's points bit for bit.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define XHD_HOST_DEVICE __host__ __device__
#else
#define XHD_HOST_DEVICE
#endif

namespace xhd {

// A value as the TypeScript reader holds it (a JavaScript number): every xhd_voxel_type converts to double exactly.
template <class T>
XHD_HOST_DEVICE inline bool is_foreground(T value, int use_label, double label) {
  const double v = static_cast<double>(value);
  return use_label != 0 ? v == label : v != 0.0;
}

// Coordinate `row` (0 x, 1 y, 2 z) of voxel centre (i, j, k) through a row-major 3x4 affine: the linear part
// summed first (j and k, then i), the translation added last, each product and sum rounded (builds pass
// -ffp-contract=off and --fmad=false), as src/io/voxel-mask.ts computes it.
XHD_HOST_DEVICE inline double mask_coordinate(const double* a, int row, double i, double j, double k) {
  const double* r = a + 4 * row;
  const double jk = r[1] * j + r[2] * k;
  return (r[0] * i + jk) + r[3];
}

// Whether a foreground voxel lies on the mask's surface: it has a 6-connected neighbour that is background or
// outside the grid. fg(index) reads the foreground flag of another voxel.
template <class Foreground>
XHD_HOST_DEVICE inline bool on_surface(uint64_t i, uint64_t j, uint64_t k, uint64_t nx, uint64_t ny, uint64_t nz,
                                       uint64_t index, const Foreground& fg) {
  if (i == 0 || j == 0 || k == 0 || i + 1 == nx || j + 1 == ny || k + 1 == nz) return true;
  const uint64_t row = nx, slice = nx * ny;
  return !(fg(index - 1) && fg(index + 1) && fg(index - row) && fg(index + row) && fg(index - slice) &&
           fg(index + slice));
}

}  // namespace xhd
