// Bounds of the points a reader keeps, found exactly as the TypeScript readers find them, so that the native
// readers' bounds are theirs to the bit: -0 and +0 compare equal, and which of them a bound holds depends on
// the order the points came in.
#pragma once

#include <cmath>

namespace xhd {

// Math.min and Math.max on two values neither of which is NaN: -0 is below +0.
inline double js_min(double a, double b) { return a < b ? a : b < a ? b : std::signbit(a) ? a : b; }
inline double js_max(double a, double b) { return a > b ? a : b > a ? b : std::signbit(a) ? b : a; }

// One kept point added to running bounds as the readers' loops do (`if (x < min) min = x`): of equal values
// (-0, +0) the first stays.
inline void widen_first_kept(double lo[3], double hi[3], double x, double y, double z) {
  if (x < lo[0]) lo[0] = x;
  if (x > hi[0]) hi[0] = x;
  if (y < lo[1]) lo[1] = y;
  if (y > hi[1]) hi[1] = y;
  if (z < lo[2]) lo[2] = z;
  if (z > hi[2]) hi[2] = z;
}

}  // namespace xhd
