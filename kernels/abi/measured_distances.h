// xhd_points_compare_stats's per-point outputs: the caller's, with distance arrays of the call's own for each
// asked direction the caller gave none for, so that every point of it is measured; and the statistics' checks,
// made before the search so that a bad request costs no search. Every library's entry point uses it.
#pragma once

#include <cstdint>
#include <memory>

#include "../geometry/distance_stats.h"
#include "per_point.h"
#include "validate.h"
#include "xhd.h"

namespace xhd {

struct MeasuredDistances {
  xhd_per_point outputs{};
  uint64_t n_ab = 0, n_ba = 0;           // distances each direction measures (0 when it is not asked)
  bool returned_ab = false, returned_ba = false;  // whether the caller wants them back

  // After check_hausdorff_call (a, b and options are valid); per_point may be null.
  MeasuredDistances(const xhd_points& a, const xhd_points& b, const xhd_hausdorff_options& options,
                    const xhd_per_point* per_point, const xhd_distance_stats_options* stats_options,
                    xhd_distance_stats_result* stats) {
    if (per_point != nullptr) {
      check_per_point(*per_point, options.directions);
      outputs = *per_point;
    }
    if (options.directions & XHD_DIRECTION_AB) n_ab = a.count;
    if (options.directions & XHD_DIRECTION_BA) n_ba = b.count;
    check_stats_request(n_ab, n_ba, stats_options, stats);
    returned_ab = outputs.distance_ab != nullptr;
    returned_ba = outputs.distance_ba != nullptr;
    // Not zeroed: the search writes every entry (untouched pages are never faulted in when the device keeps them).
    if (n_ab > 0 && !returned_ab) outputs.distance_ab = (own_ab_ = std::unique_ptr<double[]>(new double[n_ab])).get();
    if (n_ba > 0 && !returned_ba) outputs.distance_ba = (own_ba_ = std::unique_ptr<double[]>(new double[n_ba])).get();
  }

 private:
  std::unique_ptr<double[]> own_ab_, own_ba_;
};

}  // namespace xhd
