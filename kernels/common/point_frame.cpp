#include "point_frame.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "parallel.h"

namespace xhd {
namespace {

constexpr size_t kGrain = 1 << 16;

struct Extent3 {
  double lo[3] = {INFINITY, INFINITY, INFINITY};
  double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  void merge(const Extent3& o) {
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], o.lo[k]);
      hi[k] = std::max(hi[k], o.hi[k]);
    }
  }
};

Extent3 extent_of(const PointTruth& t, int threads) {
  Extent3 total;
  std::mutex m;
  parallel_blocks(t.count, kGrain, threads, [&](size_t begin, size_t end, int) {
    Extent3 local;
    for (size_t i = begin; i < end; ++i)
      for (int k = 0; k < 3; ++k) {
        const double v = t.coord(i, k);
        local.lo[k] = std::min(local.lo[k], v);
        local.hi[k] = std::max(local.hi[k], v);
      }
    std::lock_guard<std::mutex> lock(m);
    total.merge(local);
  });
  return total;
}

// The set's float copy relative to origin; returns the largest magnitude of a copied coordinate.
double shift_into_floats(FramedSet& set, const double origin[3], int threads) {
  set.owned.resize(3 * set.count);
  float* out = set.owned.data();
  double largest = 0.0;
  std::mutex m;
  parallel_blocks(set.count, kGrain, threads, [&](size_t begin, size_t end, int) {
    float local = 0.f;
    for (size_t i = begin; i < end; ++i)
      for (int k = 0; k < 3; ++k) {
        const float v = static_cast<float>(set.truth.coord(i, k) - origin[k]);
        out[3 * i + k] = v;
        local = std::max(local, std::fabs(v));
      }
    std::lock_guard<std::mutex> lock(m);
    largest = std::max(largest, static_cast<double>(local));
  });
  set.xyz = out;
  return largest;
}

double largest_magnitude(const FramedSet& set, int threads) {
  double largest = 0.0;
  std::mutex m;
  parallel_blocks(3 * set.count, 3 * kGrain, threads, [&](size_t begin, size_t end, int) {
    float local = 0.f;
    for (size_t i = begin; i < end; ++i) local = std::max(local, std::fabs(set.xyz[i]));
    std::lock_guard<std::mutex> lock(m);
    largest = std::max(largest, static_cast<double>(local));
  });
  return largest;
}

void take_truth(FramedSet& set, const xhd_points& p) {
  set.truth = PointTruth{p.xyz64 == nullptr ? p.xyz : nullptr, p.xyz64, p.count};
  set.count = p.count;
}

}  // namespace

void frame_points(const xhd_points& a, const xhd_points* b, int threads, PointFrame& frame, const double* origin) {
  take_truth(frame.a, a);
  if (b != nullptr) take_truth(frame.b, *b);
  const bool all_float = a.xyz64 == nullptr && (b == nullptr || b->xyz64 == nullptr);
  double largest = 0.0, largest_input = 0.0, input_error = 0.0;
  if (all_float) {
    // The floats are the truth: used in place, nothing rounded (E = 0).
    frame.a.xyz = a.xyz;
    largest = largest_magnitude(frame.a, threads);
    if (b != nullptr) {
      frame.b.xyz = b->xyz;
      largest = std::max(largest, largest_magnitude(frame.b, threads));
    }
    largest_input = largest;
  } else {
    Extent3 e = extent_of(frame.a.truth, threads);
    if (b != nullptr) e.merge(extent_of(frame.b.truth, threads));
    for (int k = 0; k < 3; ++k) {
      frame.origin[k] = origin != nullptr ? origin[k] : 0.5 * e.lo[k] + 0.5 * e.hi[k];
      largest_input = std::max({largest_input, std::fabs(e.lo[k]), std::fabs(e.hi[k])});
    }
    largest = shift_into_floats(frame.a, frame.origin, threads);
    if (b != nullptr) largest = std::max(largest, shift_into_floats(frame.b, frame.origin, threads));
    input_error = float_copy_error(largest);
  }
  frame.largest = largest;
  frame.largest_input = largest_input;
  frame.bounds.slack = 2.0 * input_error + kPlacementSlack * largest + 1e-17;
  frame.bounds.copies_exact = all_float;
}

}  // namespace xhd
