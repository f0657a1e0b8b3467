// The input's own coordinates, the truth every exact distance is evaluated over: float32 or double,
// exactly one set (xhd.h). Host or device memory; the accessors run on both.
#pragma once

#include <cstddef>
#include <cstdint>

#include "box_math.h"  // XHD_HD
#include "xhd.h"

namespace xhd {

struct PointTruth {
  const float* f32 = nullptr;
  const double* f64 = nullptr;
  size_t count = 0;

  XHD_HD double coord(size_t i, int k) const {
    return f64 != nullptr ? f64[3 * i + k] : static_cast<double>(f32[3 * i + k]);
  }
};

// A point set's truth: its doubles when it has them, else its floats.
inline PointTruth truth_of(const xhd_points& p) {
  return PointTruth{p.xyz64 == nullptr ? p.xyz : nullptr, p.xyz64, p.count};
}

}  // namespace xhd
