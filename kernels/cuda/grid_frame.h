// Placement of a uniform grid on the device: 2^bits[i] cells along axis i over a bounding box, so that
// the Morton code of a cell (bits interleaved x, y, z from the lowest, an axis dropping out once its
// bits are used) indexes a dense table with no padding. Sorting points by that code orders them along a
// Morton curve, and every run of codes sharing a prefix is an axis-aligned block of cells: the implicit
// tree (fanout 2^fanout_bits) over the cells that queries descend when the nearby cells are not enough.
#pragma once

#include <cstdint>

#include "../geometry/box_math.h"

namespace xhd {

struct GridFrame {
  float origin[3];
  float cell[3];  // side of a cell along each axis (cells need not be cubes)
  float inv_cell[3];
  float pad[3];     // cell boxes are widened by this so float rounding in key assignment stays inside
  int bits[3];      // log2 of the cells along each axis
  int total_bits;   // bits[0] + bits[1] + bits[2]
  int fanout_bits;  // bits dropped per tree level (the number of axes with cells)
  int levels;       // tree levels above the cells; level `levels` is the root

  XHD_HD uint32_t cell_count() const { return 1u << total_bits; }
  XHD_HD uint32_t level_count(int level) const {
    const int shift = fanout_bits * level;
    return shift >= total_bits ? 1u : (cell_count() >> shift);
  }

  // Cell coordinate along axis i of a coordinate value, clamped into the grid.
  XHD_HD int cell_coord(float v, int i) const {
    const float t = (v - origin[i]) * inv_cell[i];
    const int top = (1 << bits[i]) - 1;
    if (!(t > 0.f)) return 0;
    if (t >= static_cast<float>(top)) return top;
    return static_cast<int>(t);
  }

  XHD_HD uint32_t key_of_cell(const int c[3]) const {
    // Common case first: every axis with the same number of bits (at most 10).
    if (bits[0] == bits[1] && bits[1] == bits[2] && bits[0] <= 10)
      return morton3_10(static_cast<unsigned>(c[2]), static_cast<unsigned>(c[1]), static_cast<unsigned>(c[0]));
    if (bits[2] == 0 && bits[0] == bits[1] && bits[0] <= 15)
      return (spread_bits_15(static_cast<unsigned>(c[1])) << 1) | spread_bits_15(static_cast<unsigned>(c[0]));
    uint32_t key = 0;
    int out = 0;
    for (int b = 0; out < total_bits; ++b)
      for (int i = 0; i < 3; ++i)
        if (b < bits[i]) key |= static_cast<uint32_t>((c[i] >> b) & 1) << out++;
    return key;
  }

  XHD_HD void cell_of_key(uint32_t key, int c[3]) const {
    c[0] = c[1] = c[2] = 0;
    int in = 0;
    for (int b = 0; in < total_bits; ++b)
      for (int i = 0; i < 3; ++i)
        if (b < bits[i]) c[i] |= static_cast<int>((key >> in++) & 1u) << b;
  }

  XHD_HD uint32_t key_of_point(float x, float y, float z) const {
    const int c[3] = {cell_coord(x, 0), cell_coord(y, 1), cell_coord(z, 2)};
    return key_of_cell(c);
  }

  // The region of a cell, widened by pad: it contains every point whose key is this cell's.
  XHD_HD Box cell_box(const int c[3]) const {
    Box b;
    for (int i = 0; i < 3; ++i) {
      b.min[i] = origin[i] + static_cast<float>(c[i]) * cell[i] - pad[i];
      b.max[i] = origin[i] + static_cast<float>(c[i] + 1) * cell[i] + pad[i];
    }
    return b;
  }
};

}  // namespace xhd
