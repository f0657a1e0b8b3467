#include "point_frame.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "bulk_box.h"
#include "../abi/host_phases.h"
#include "../abi/parallel.h"

namespace xhd {
namespace {

// Points a block of the framing's passes: a mask pair's two sets of 60,000 points are 8 blocks, not one.
constexpr size_t kGrain = 1 << 13;

// Whether copy + origin is truth exactly (TwoSum: the sum and its rounding error, both exact in double).
bool copy_is_exact(double truth, double origin, float copy) {
  const double c = copy, s = c + origin, z = s - c;
  return s == truth && (c - (s - z)) + (origin - z) == 0.0;
}

// The exponent of the lowest set bit of a nonzero finite float: v is a whole multiple of 2^that.
int lowest_bit_exponent(float v) {
  uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  const int biased = static_cast<int>((bits >> 23) & 0xffu);
  uint32_t significand = bits & 0x7fffffu;
  if (biased != 0) significand |= 0x800000u;
  return (biased == 0 ? -149 : biased - 150) + __builtin_ctz(significand);
}

// The set's float copy relative to origin; returns the largest magnitude of a copied coordinate, in exact
// whether every copy is its coordinate less the origin exactly (a lattice of voxel centres at a float spacing),
// and in unit the exponent of the lowest bit set in any copy (every copy a whole multiple of 2^unit; INT_MAX
// when every copy is 0).
double shift_into_floats(FramedSet& set, const double origin[3], int threads, bool& exact, int& unit) {
  set.owned.resize(3 * set.count);
  float* out = set.owned.data();
  double largest = 0.0;
  bool all_exact = true;
  int lowest = INT_MAX;
  std::mutex m;
  parallel_blocks(set.count, kGrain, threads, [&](size_t begin, size_t end, int) {
    float local = 0.f;
    bool local_exact = true;
    int local_lowest = INT_MAX;
    for (size_t i = begin; i < end; ++i)
      for (int k = 0; k < 3; ++k) {
        const double truth = set.truth.coord(i, k);
        const float v = static_cast<float>(truth - origin[k]);
        out[3 * i + k] = v;
        local = std::max(local, std::fabs(v));
        local_exact = local_exact && copy_is_exact(truth, origin[k], v);
        if (v != 0.f) local_lowest = std::min(local_lowest, lowest_bit_exponent(v));
      }
    std::lock_guard<std::mutex> lock(m);
    largest = std::max(largest, static_cast<double>(local));
    all_exact = all_exact && local_exact;
    lowest = std::min(lowest, local_lowest);
  });
  set.xyz = out;
  exact = all_exact;
  unit = lowest;
  return largest;
}

// The squared distances a float search computes exactly (point_frame.h, PointFrame::exact_below) when every copy
// is a whole multiple of 2^unit and none is larger than `largest`: 2^(24 + 2 unit), or 0 when that is out of
// float's normal range, or when the copies are so large beside 2^unit that the grid's cell placement could hide a
// nearer point. Two exact squared distances below 2^(24 + 2 unit) differ by 2^(2 unit) at least, so their
// distances by 2^(unit - 13); the float rounding of the grid's bound beyond its searched block takes half of that,
// and cell placement is off by at most kPlacementSlack = 2^-45 of the largest coordinate an axis (point_frame.h):
// largest < 2^(28 + unit) keeps sqrt(3) of it below 2^(unit - 16), a quarter of what is left.
float exact_squares_below(int unit, double largest) {
  if (unit == INT_MAX || unit < -63 || unit > 51) return 0.f;
  if (!(largest < std::ldexp(1.0, 28 + unit))) return 0.f;
  return std::ldexp(1.f, 24 + 2 * unit);
}

void take_truth(FramedSet& set, const xhd_points& p) {
  set.truth = truth_of(p);
  set.count = p.count;
}

// The points of a set whose copies leave the cube |x'_k| <= cube, in ascending order.
void list_loose(FramedSet& set, float cube, int threads) {
  std::mutex m;
  parallel_blocks(set.count, kGrain, threads, [&](size_t begin, size_t end, int) {
    std::vector<uint32_t> local;
    for (size_t i = begin; i < end; ++i) {
      const float* v = &set.xyz[3 * i];
      if (std::fabs(v[0]) > cube || std::fabs(v[1]) > cube || std::fabs(v[2]) > cube)
        local.push_back(static_cast<uint32_t>(i));
    }
    if (local.empty()) return;
    std::lock_guard<std::mutex> lock(m);
    set.loose.insert(set.loose.end(), local.begin(), local.end());
  });
  std::sort(set.loose.begin(), set.loose.end());
}

// The half-side of the cube around the origin that holds the bulk box, rounded up to a float: rounding is
// monotone, so every point within it in the input's coordinates has a copy within it too.
float cube_around(const Extent3& bulk, const double origin[3]) {
  double half = 0.0;
  for (int k = 0; k < 3; ++k)
    half = std::max({half, std::fabs(bulk.hi[k] - origin[k]), std::fabs(bulk.lo[k] - origin[k])});
  float cube = static_cast<float>(half);
  if (static_cast<double>(cube) < half) cube = std::nextafter(cube, INFINITY);
  return cube;
}

FilterBounds bounds_for(double largest, bool copies_exact) {
  FilterBounds f;
  const double input_error = copies_exact ? 0.0 : float_copy_error(largest);
  f.slack = 2.0 * input_error + kPlacementSlack * largest + 1e-17;
  f.copies_exact = copies_exact;
  return f;
}

// How many loose points a frame may list (loose_a + loose_b at most `limit`, their pairs at most kMaxLoosePairs).
bool loose_affordable(size_t loose_a, size_t loose_b, size_t limit) {
  return loose_a + loose_b <= limit && static_cast<double>(loose_a) * static_cast<double>(loose_b) <= kMaxLoosePairs;
}

// The bulk box a frame is placed around, and how many loose points it may list.
struct ChosenBulk {
  Extent3 box;
  size_t loose_limit = kMaxLoosePoints;
};

// The usual bulk box, or the core where the usual one is stretched over a far cluster (bulk_box.h), with the
// points outside the core affordable as loose points (up to 1/64 of all, their pairs across the sets within
// kMaxLoosePairs): 1,000 points of 200,000 moved to 1e9 made a CPU compare take 56 s instead of 0.4.
ChosenBulk choose_bulk(const PointFrame& frame, bool has_b, const Extent3& all, int threads) {
  const BulkBoxes boxes = bulk_boxes(frame.a.truth, has_b ? &frame.b.truth : nullptr, all, threads);
  if (!stretched_over_core(boxes.usual, boxes.core)) return {boxes.usual};
  const size_t count = frame.a.count + (has_b ? frame.b.count : 0);
  const size_t limit = std::max(kMaxLoosePoints, count / kClusterLooseShare);
  const size_t outside_a = count_outside(frame.a.truth, boxes.core, threads);
  const size_t outside_b = has_b && outside_a <= limit ? count_outside(frame.b.truth, boxes.core, threads) : 0;
  if (!loose_affordable(outside_a, outside_b, limit)) return {boxes.usual};
  return {boxes.core, limit};
}

}  // namespace

void frame_points(const xhd_points& a, const xhd_points* b, int threads, PointFrame& frame, const double* origin,
                  bool check_coordinates, const Extent3* known_extent) {
  HostPhases phases("frame");
  frame.exact_below = 0.f;  // known only once the copies are made below
  take_truth(frame.a, a);
  if (b != nullptr) take_truth(frame.b, *b);
  const bool all_float = a.xyz64 == nullptr && (b == nullptr || b->xyz64 == nullptr);
  const auto extent = [&](const PointTruth& t, const char* name) {
    return check_coordinates ? checked_extent_of(t, threads, name) : extent_of(t, threads);
  };
  Extent3 all;
  if (known_extent != nullptr) {
    all = *known_extent;
  } else {
    all = extent(frame.a.truth, "A");
    if (b != nullptr) all.merge(extent(frame.b.truth, "B"));
  }
  phases.mark("extents");
  // A caller that places the origin itself (the surface frame, whose searches carry their own margins)
  // needs no bulk of its own, nor loose points.
  const ChosenBulk chosen = origin != nullptr ? ChosenBulk{all} : choose_bulk(frame, b != nullptr, all, threads);
  const Extent3& bulk = chosen.box;
  const bool outliers = !bulk.contains(all);
  phases.mark("bulk");
  double largest = 0.0, largest_input = 0.0;
  bool copies_exact = all_float;
  for (int k = 0; k < 3; ++k) largest_input = std::max({largest_input, std::fabs(all.lo[k]), std::fabs(all.hi[k])});
  if (all_float) {
    // The floats are the truth: used in place, nothing rounded (E = 0).
    frame.a.xyz = a.xyz;
    if (b != nullptr) frame.b.xyz = b->xyz;
    largest = largest_input;
  } else {
    // The centre of the bulk: with far outliers, the centre of everything could lie far from every point.
    const Extent3& around = outliers ? bulk : all;
    for (int k = 0; k < 3; ++k)
      frame.origin[k] = origin != nullptr ? origin[k] : 0.5 * around.lo[k] + 0.5 * around.hi[k];
    bool exact_a = true, exact_b = true;
    int unit_a = INT_MAX, unit_b = INT_MAX;
    largest = shift_into_floats(frame.a, frame.origin, threads, exact_a, unit_a);
    if (b != nullptr) largest = std::max(largest, shift_into_floats(frame.b, frame.origin, threads, exact_b, unit_b));
    // Copies that are their coordinates less the origin exactly are as good as the coordinates themselves: a
    // difference of two copies is the difference of their points, so every distance formula over them rounds
    // as it does over the input (a mask's voxel centres at 1 mm, or at 0.9375 by 1.5 mm, are such a lattice).
    copies_exact = exact_a && exact_b;
    if (copies_exact) frame.exact_below = exact_squares_below(std::min(unit_a, unit_b), largest);
  }
  phases.mark("shift into floats");
  frame.largest = largest;
  frame.largest_input = largest_input;
  frame.bounds = bounds_for(largest, copies_exact);
  frame.tight = frame.bounds;
  if (!outliers) return;
  const float cube = cube_around(bulk, frame.origin);
  if (!(cube > 0.f)) return;  // the bulk is one point: nothing to size by
  list_loose(frame.a, cube, threads);
  if (b != nullptr) list_loose(frame.b, cube, threads);
  // A set with nothing inside the cube would leave its grid empty: then there is no bulk to speak of.
  const bool all_loose =
      frame.a.loose.size() == frame.a.count || (b != nullptr && frame.b.loose.size() == frame.b.count);
  if (!loose_affordable(frame.a.loose.size(), frame.b.loose.size(), chosen.loose_limit) || !frame.has_loose() ||
      all_loose) {
    frame.a.loose.clear();
    frame.b.loose.clear();
    return;
  }
  frame.cube = cube;
  // Loose points are settled over their coordinates in double beside float copies of the others (the GPU's
  // loose pass), which mixes the two unless the origin is 0: shifted copies then stand for nothing exactly.
  if (!all_float) copies_exact = false;
  frame.exact_below = 0.f;
  frame.bounds = bounds_for(largest, copies_exact);
  // Every copy inside the cube has coordinates of magnitude <= cube: the bounds of filter_bounds.h with
  // cube in place of the largest magnitude hold for every pair of them.
  frame.tight = bounds_for(cube, copies_exact);
}

}  // namespace xhd
