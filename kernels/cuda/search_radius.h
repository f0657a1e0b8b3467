// The search radius of one X-HD direction, shared by the grid search (xhd_directed.cu) and the OptiX search
// (kernels/optix/optix_directed.cu). It starts at the MBR lower bound of the directed HD, and at least one cell's
// smallest side so the first pass looks at a query's own and adjacent cells; after each pass it grows by the
// paper's Algorithm 6 (GetNextRadius): fast while few queries resolve, slowly while many do. At the MBR upper
// bound, or once its float square stops growing, it is unbounded.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "grid_frame.h"
#include "xhd_directed.h"

namespace xhd {

class SearchRadius {
 public:
  SearchRadius(const Box& source, const Box& target, const GridFrame& f)
      : upper_(directed_upper_bound(source, target)),
        diagonal_(std::sqrt(double(f.cell[0]) * f.cell[0] + double(f.cell[1]) * f.cell[1] +
                            double(f.cell[2]) * f.cell[2])) {
    double min_side = 0.0;
    for (int i = 0; i < 3; ++i)
      if (f.bits[i] > 0) min_side = min_side > 0.0 ? std::min<double>(min_side, f.cell[i]) : f.cell[i];
    r_ = std::max(directed_lower_bound(source, target), min_side);
  }

  double radius() const { return r_; }
  double upper() const { return upper_; }
  // The square the kernels compare against: +inf once unbounded.
  float r2() const { return square(r_); }
  // The previous pass's square (-1 before the first growth): the inner edge of the annulus still to search.
  float previous_r2() const { return prev2_; }
  bool unbounded() const { return std::isinf(r2()); }
  // Before the first pass: start no smaller than r (a nearest distance some query is known to have).
  void start_at_least(double r) { r_ = std::min(std::max(r_, r), upper_); }
  void make_unbounded() { r_ = upper_; }

  // After a pass that left `missed` of `asked` queries unresolved.
  void grow(uint32_t asked, uint32_t missed) {
    const double resolved = double(asked - missed) / double(asked);
    double factor = 1.0;
    for (double k : {8.0, 4.0, 2.0, 1.0})
      if (resolved < 1.0 / k) {
        factor = k;
        break;
      }
    prev2_ = r2();
    r_ = std::min(r_ + factor * std::max(diagonal_, 1e-30), upper_);
    if (!(square(r_) > prev2_)) r_ = upper_;  // float radius stopped growing: finish unbounded
  }

 private:
  float square(double radius) const {
    return radius >= upper_ ? std::numeric_limits<float>::infinity() : static_cast<float>(radius * radius);
  }

  double upper_;
  double diagonal_;
  double r_ = 0.0;
  float prev2_ = -1.f;
};

}  // namespace xhd
