// A target searched in tiles (out-of-core, points_gpu.cu): each query's nearest over the tiles, kept as it
// comes. Each tile gives every query its exact nearest among that tile's points (squared distance in double,
// ties to the smallest index there); the nearest over the whole target is the smallest of those, ties to the
// smaller input index, because the tiles partition the target and the unique targets keep the input's order.
// The rule is a total order, so the answer does not depend on the order of the tiles.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace xhd {

// Offers one tile's answer for a query: NaN (not measured in this tile: a loose source, or a query left to the
// host) changes nothing. Returns whether it was taken.
inline bool offer_tile_nearest(double d2, int64_t to, double& running_d2, int64_t& running_to) {
  if (std::isnan(d2)) return false;
  if (d2 < running_d2 || (d2 == running_d2 && to < running_to)) {
    running_d2 = d2;
    running_to = to;
    return true;
  }
  return false;
}

// The same for `count` consecutive queries: one tile's answers beside the running ones.
inline void merge_tile(size_t count, const double* tile_d2, const int64_t* tile_to, double* running_d2,
                       int64_t* running_to) {
  for (size_t k = 0; k < count; ++k) offer_tile_nearest(tile_d2[k], tile_to[k], running_d2[k], running_to[k]);
}

}  // namespace xhd
