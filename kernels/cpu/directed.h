// One direction of the Hausdorff distance (source -> target) as computed by each CPU method.
//
// The fast methods search in float32 (the frame's copies) and are filters: a source point is set aside
// only when the float search proves, with the frame's rounding bounds, that it is truly nearer its
// target than some point already settled, so it cannot be the witness (ties included). Every other
// point is a survivor, and the survivors' nearest neighbours are found again in double over the input's
// own coordinates. The answer is then the double-precision brute force's, witnesses included.
#pragma once

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "../geometry/box_math.h"
#include "../geometry/point_frame.h"
#include "../abi/progress.h"
#include "xhd.h"

namespace xhd {

struct DirectedJob {
  const FramedSet* source;
  const FramedSet* target;
  const FilterBounds* bounds;
  int threads;
  uint64_t seed;
  double cell_size;
  const Progress* progress;
};

// Both sets and the directions asked for: what a method that shares work between directions receives.
struct HausdorffJob {
  const PointFrame* frame;
  int directions;
  int threads;
  uint64_t seed;
  double cell_size;
  const Progress* progress;

  DirectedJob direction_ab() const {
    return {&frame->a, &frame->b, &frame->bounds, threads, seed, cell_size, progress};
  }
  DirectedJob direction_ba() const {
    return {&frame->b, &frame->a, &frame->bounds, threads, seed ^ 0x9e3779b97f4a7c15ull, cell_size, progress};
  }
};

void grid_hausdorff(const HausdorffJob& job, xhd_hausdorff_result& result);
void directed_eb(const DirectedJob& job, xhd_directed& out);
void directed_brute(const DirectedJob& job, xhd_directed& out);

// True when a query whose float search met a computed distance of 0 (to target j) is truly at distance 0,
// so it cannot be the witness unless it is source point 0: a point truly 0 from the target is the witness
// only when every point is (HD 0), and then the smallest index, 0, is. Sets A = B and A within B, where
// every query meets 0 and no threshold can prove anything, then leave one survivor instead of all.
inline bool settled_at_zero(const DirectedJob& job, size_t source, size_t target) {
  return source != 0 && exact_dist2(job.source->truth, source, job.target->truth, target) == 0.0;
}

// A source point the float search could not set aside, with its float result: the computed squared
// distance of its nearest target found, and that target (a hint for the double search).
struct Survivor {
  uint32_t source;
  uint32_t hint;
  float cmin2;
};

// The running maximum of settled nearest distances (the paper's cmax, as computed in float) shared by
// the threads of one direction, and the pruning threshold it proves.
class SharedMax {
 public:
  explicit SharedMax(const FilterBounds& bounds) : bounds_(bounds) {}
  float raw() const { return value_.load(std::memory_order_relaxed); }
  // Computed squared distances <= this set a query aside (-1: nothing may be set aside yet).
  float threshold() const { return bounds_.prune_threshold(raw()); }
  void raise(float value) {
    float current = value_.load(std::memory_order_relaxed);
    while (current < value && !value_.compare_exchange_weak(current, value, std::memory_order_relaxed)) {
    }
  }

 private:
  const FilterBounds& bounds_;
  std::atomic<float> value_{-1.f};
};

// A source point's nearest target in double (squared distance, target index; ties to the smaller index).
struct ExactNearest {
  double dist2;
  uint32_t target;
};

// Finishes a direction from the survivors of its float search: those the final threshold still cannot
// set aside are searched again in double by `nearest` (in parallel; it gets the thread index), and the largest nearest
// distance, ties to the smallest source index, is the answer.
void finish_directed(const DirectedJob& job, const std::vector<std::vector<Survivor>>& survivors, const SharedMax& cmax,
                     const std::function<ExactNearest(const Survivor&, int)>& nearest, xhd_directed& out);

}  // namespace xhd
