// The frame the point searches run in: float32 copies of both sets relative to one origin near the
// data, beside the input's own coordinates (the truth), and the bounds that relate the two.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "bulk_box.h"
#include "filter_bounds.h"
#include "point_truth.h"
#include "../abi/large_buffer.h"
#include "xhd.h"

namespace xhd {

// The squared distance in double between points p and q, the one formula of every exact answer (the brute-force
// references use it too): differences, squares, then x + y + z in that order.
inline double exact_dist2(const double p[3], const double q[3]) {
  const double dx = p[0] - q[0];
  const double dy = p[1] - q[1];
  const double dz = p[2] - q[2];
  return dx * dx + dy * dy + dz * dz;
}

// The same between point i of a and point j of b.
inline double exact_dist2(const PointTruth& a, size_t i, const PointTruth& b, size_t j) {
  const double p[3] = {a.coord(i, 0), a.coord(i, 1), a.coord(i, 2)};
  const double q[3] = {b.coord(j, 0), b.coord(j, 1), b.coord(j, 2)};
  return exact_dist2(p, q);
}

// One set in the frame: the float copies the searches read (the caller's own floats when o = 0).
struct FramedSet {
  PointTruth truth;
  const float* xyz = nullptr;
  size_t count = 0;
  UninitLargeVector<float> owned;  // filled by a parallel loop, which also first-touches its pages
  std::vector<uint32_t> loose;     // points whose copies leave the frame's cube (far outliers), ascending
  int8_t sampled_duplicates = -1;  // whether unique_points.h's sample of the truth holds copies (-1: not asked)

  // Set where exact duplicates were dropped (unique_points.h): each point's index in the input (the
  // first of its copies; increasing), and the storage of the compacted truth. Empty: point i is input i.
  UninitLargeVector<uint32_t> input_index;
  UninitLargeVector<double> owned_truth64;
  UninitLargeVector<float> owned_truth32;

  // The slab plan's spread sample of the truth (slab_split.cpp), copied once when first asked for, with the
  // truth and count it was taken from: its readers are on one thread.
  struct Sample {
    const void* truth = nullptr;
    size_t count = 0;
    std::vector<double> xyz;
    // The box of the sample's bulk (slab_split.cpp's bulk_sample_box), kept once measured: the plan's search for a
    // slab count and both halo guesses ask for it again.
    mutable bool bulk_known = false;
    mutable bool far_points_left_out = false;
    mutable double bulk_min[3] = {0, 0, 0}, bulk_max[3] = {0, 0, 0};
  };
  mutable std::shared_ptr<const Sample> spread_sample;

  // The input's index of point i (XHD_NO_INDEX and other negatives pass through).
  int64_t input_of(int64_t i) const { return i < 0 || input_index.empty() ? i : input_index[static_cast<size_t>(i)]; }
};

// Cell placement error per unit of coordinate magnitude. The CPU grid places points and cell edges in
// double (a few ulps of 2^-52 of the magnitude). The GPU grid places them in float, but its cell boxes are
// widened by a pad larger than that rounding (grid_sizing.cpp) and its tree boxes are the points' own MBRs,
// so every bound it computes already holds its points: no more is needed there.
constexpr double kPlacementSlack = 1.0 / (1ull << 45);

struct PointFrame {
  double origin[3] = {0, 0, 0};
  double largest = 0.0;        // the largest magnitude of a float copy's coordinate
  double largest_input = 0.0;  // the largest magnitude of an input coordinate (the copies' own for floats)
  FilterBounds bounds;         // valid for every pair of points
  // Far outliers. A single point at 1e9 would size `bounds` by its own magnitude (a slack of hundreds of
  // units, which proves nothing) and pull the origin half way to it. So the origin is the centre of the
  // bulk of the points (bulk_box.h), and the points whose copies leave the cube |x'_k| <= cube around it
  // are listed as loose; `tight` bounds every pair of points inside the cube. Searches that use `tight`
  // keep the loose points out of their float work and settle them in double (loose_points.h). With no
  // loose points (ordinary data), cube is infinite and tight equals bounds.
  float cube = INFINITY;
  FilterBounds tight;
  // Below this, a float squared distance between two copies is exact (0: nothing is known so). When the copies
  // are their coordinates less the origin exactly and all whole multiples of 2^e (voxel centres at 1 mm, or at
  // 0.9375 by 1.5 mm, less an origin on that lattice's half-steps), a difference of two copies is k 2^e exactly
  // while |k| < 2^24, and its square and the sums of squares are exact while the sum K of the k^2 is below
  // 2^24: the value is then K 2^2e, which exact_dist2 also gives (in double, without rounding). A pair with
  // K >= 2^24 computes to at least 2^(24 + 2e), rounding being monotone. So a computed value below
  // exact_below = 2^(24 + 2e) is the pair's exact squared distance, and the float search's nearest value is the
  // exact one (nearest_points.cpp). Set by frame_points only when there are no loose points.
  float exact_below = 0.f;
  FramedSet a, b;

  bool has_loose() const { return !a.loose.empty() || !b.loose.empty(); }
};

// Loose points listed per frame at most: beyond this the data has no few far outliers but a wide spread,
// for which the plain bounds are the right ones.
constexpr size_t kMaxLoosePoints = 4096;
// A far cluster (the core bulk box, bulk_box.h) may hold more: up to 1/64 of the points, as long as its loose
// queries against the other set's loose targets, which are evaluated pair by pair, stay within this many pairs.
constexpr size_t kClusterLooseShare = 64;
constexpr double kMaxLoosePairs = 67108864.0;  // 2^26: a fraction of a second of double evaluations

// Frames a and b (b may be null). Float32 inputs on both sides keep o = 0 and are used in place; otherwise
// o is the centre of both sets' box, or of their bulk when far outliers lie outside it (or `origin` when
// given: a caller that knows where the bulk of its data is), and every point is rounded to float from its
// double difference to it.
// check_coordinates: every coordinate is also checked as check_coordinates (validate.h) checks it, in the pass
// that finds the sets' extents (for callers that validated everything else without reading the coordinates).
// known_extent: both sets' extent together, already found (and their coordinates checked) by the caller, for
// which the framing then reads nothing but its samples.
void frame_points(const xhd_points& a, const xhd_points* b, int threads, PointFrame& frame,
                  const double* origin = nullptr, bool check_coordinates = false,
                  const Extent3* known_extent = nullptr);

}  // namespace xhd
