// One direction of the Hausdorff distance (source -> target) as computed by each CPU method.
#pragma once

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../common/box_math.h"
#include "../common/progress.h"
#include "xhd.h"

namespace xhd {

struct DirectedJob {
  const float* source;
  size_t source_count;
  const float* target;
  size_t target_count;
  int threads;
  uint64_t seed;
  double cell_size;
  const Progress* progress;
};

// Both sets and the directions asked for: what a method that shares work between directions receives.
struct HausdorffJob {
  const float* a;
  size_t a_count;
  const float* b;
  size_t b_count;
  int directions;
  int threads;
  uint64_t seed;
  double cell_size;
  const Progress* progress;

  DirectedJob direction_ab() const { return {a, a_count, b, b_count, threads, seed, cell_size, progress}; }
  DirectedJob direction_ba() const {
    return {b, b_count, a, a_count, threads, seed ^ 0x9e3779b97f4a7c15ull, cell_size, progress};
  }
};

void grid_hausdorff(const HausdorffJob& job, xhd_hausdorff_result& result);
void directed_eb(const DirectedJob& job, xhd_directed& out);
void directed_brute(const DirectedJob& job, xhd_directed& out);

// The best (largest) nearest-neighbour distance a thread has settled, with the pair realizing it.
// Ties go to the smaller source index so the reported witness does not depend on thread timing.
struct alignas(64) Witness {
  float dist2 = -1.f;
  int64_t from = XHD_NO_INDEX;
  int64_t to = XHD_NO_INDEX;

  void offer(float d2, int64_t f, int64_t t) {
    if (d2 > dist2 || (d2 == dist2 && f < from)) {
      dist2 = d2;
      from = f;
      to = t;
    }
  }
};

inline Witness best_of(const std::vector<Witness>& per_thread) {
  Witness best;
  for (const Witness& w : per_thread)
    if (w.from != XHD_NO_INDEX) best.offer(w.dist2, w.from, w.to);
  return best;
}

// Raises a shared running maximum (the global cmax of the paper) without a lock.
inline void atomic_raise(std::atomic<float>& target, float value) {
  float current = target.load(std::memory_order_relaxed);
  while (current < value && !target.compare_exchange_weak(current, value, std::memory_order_relaxed)) {
  }
}

// The final distance is recomputed in double from the witness pair, so single-precision pruning
// only decides which pair it is, never the digits reported.
inline void finish_directed(const DirectedJob& job, const Witness& w, xhd_directed& out) {
  out.from_index = w.from;
  out.to_index = w.to;
  if (w.from == XHD_NO_INDEX) {
    out.distance = 0.0;
    return;
  }
  double s = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double d = static_cast<double>(job.source[3 * w.from + i]) - job.target[3 * w.to + i];
    s += d * d;
  }
  out.distance = std::sqrt(s);
}

}  // namespace xhd
