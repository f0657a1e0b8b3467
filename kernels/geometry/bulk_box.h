// The box that holds the bulk of the points, so that a few far outliers (a stray LiDAR return, a
// byte-flipped vertex at 1e9) neither place the frame's origin nor size its float rounding bounds and
// grids. Measured from a spread sample by quantiles, then widened generously: on ordinary data it holds
// every point and changes nothing.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "point_truth.h"

namespace xhd {

struct Extent3 {
  double lo[3] = {INFINITY, INFINITY, INFINITY};
  double hi[3] = {-INFINITY, -INFINITY, -INFINITY};

  void add(const double v[3]);
  void merge(const Extent3& o);
  bool contains(const Extent3& o) const;
  double largest_side() const;
};

// The values at the `tail` and 1 - `tail` quantiles of a sample (reordered), which must not be empty.
void tail_quantiles(std::vector<double>& values, double tail, double& lo, double& hi);

// The exact extent of a set, in parallel.
Extent3 extent_of(const PointTruth& t, int threads);

// extent_of with every coordinate checked as check_coordinates (validate.h) checks it, in the same pass: a
// compare's inputs are then read once for both (at a billion float points a side the two passes took 0.18 and
// 0.21 s of one H200's 1.8 s compare). A set with a coordinate not finite or beyond +-1e15 is refused with
// check_coordinates' InvalidArgument (its first such point, in set `name`).
Extent3 checked_extent_of(const PointTruth& t, int threads, const char* name);

// The bulk of the sets (b may be null) whose exact extent together is `all`, at two tails: per axis, the
// quantiles of an evenly spread sample at that tail and 1 - tail, widened on each side by their distance, clipped
// to `all`. Uniform data reaches 0.1% beyond its quantiles and normal data 3 standard deviations (the box reaches
// 9), so only points far from the rest fall outside.
//  - usual: the 0.1% tails. Any far points fewer than 0.1% of the sample lie outside it.
//  - core: the 1% tails, which also leave out a far cluster of up to 1% of the points (a second object, a burst of
//    stray returns, a byte-flipped block of a file) that the usual box would stretch over. The frame takes it only
//    where the usual box is many times larger and few points lie outside it (point_frame.cpp).
struct BulkBoxes {
  Extent3 usual, core;
};
BulkBoxes bulk_boxes(const PointTruth& a, const PointTruth* b, const Extent3& all, int threads = 1);

// Whether a bulk box measured at the usual tails is stretched over a far cluster that the box at wider tails
// (core) leaves out: more than 16 times the core's largest side. A grid over the stretched box would put the whole
// of the data into a few cells. The point frames and the triangle grids decide so (point_frame.cpp, mesh_bulk.cpp).
bool stretched_over_core(const Extent3& usual, const Extent3& core);

// How many points of t have a coordinate outside box, in parallel.
size_t count_outside(const PointTruth& t, const Extent3& box, int threads);

}  // namespace xhd
