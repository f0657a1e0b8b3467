// JavaScript's Math.hypot and Math.round, operation for operation, for host code that must give the
// TypeScript reference's numbers to the bit (the vertices+edges+faces sampler, the sample count by density).
// Compiled with -ffp-contract=off like every file here, so no product is fused into a sum.
#pragma once

#include <cmath>

namespace xhd {

// Math.hypot(x, y, z) as V8 computes it (src/builtins/math.tq): each magnitude divided by the largest,
// the squares added in argument order with Kahan compensation, then the square root times the largest.
// Not std::hypot, whose rounding differs in the last bit for some inputs.
inline double js_hypot3(double x, double y, double z) {
  const double abs[3] = {std::fabs(x), std::fabs(y), std::fabs(z)};
  bool nan = false;
  double largest = 0;
  for (int i = 0; i < 3; ++i) {
    if (std::isnan(abs[i])) nan = true;
    else if (abs[i] > largest) largest = abs[i];
  }
  if (largest == INFINITY) return INFINITY;
  if (nan) return NAN;
  if (largest == 0) return 0;
  double sum = 0, compensation = 0;
  for (int i = 0; i < 3; ++i) {
    const double n = abs[i] / largest;
    const double summand = n * n - compensation;
    const double preliminary = sum + summand;
    compensation = (preliminary - sum) - summand;
    sum = preliminary;
  }
  return std::sqrt(sum) * largest;
}

// Math.round(v): the nearest integer, halves towards +infinity. floor(v + 0.5) would round 0.49999999999999994
// up (the sum rounds to 1); v - floor(v) is exact for every double, so the comparison decides correctly.
inline double js_round(double v) {
  if (!std::isfinite(v)) return v;
  const double down = std::floor(v);
  return v - down >= 0.5 ? down + 1 : down;
}

}  // namespace xhd
