#include "bulk_box.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <mutex>
#include <vector>

#include "../abi/parallel.h"
#include "../abi/validate.h"

namespace xhd {
namespace {

constexpr size_t kGrain = 1 << 13;  // a mask pair's sets of 60,000 points are several blocks
// Points sampled per set: the 0.1% tails are then 32 sample points each, stable from run to run.
constexpr size_t kSamplePerSet = size_t(1) << 15;
constexpr double kTail = 0.001;
constexpr double kCoreTail = 0.01;

}  // namespace

void Extent3::add(const double v[3]) {
  for (int k = 0; k < 3; ++k) {
    lo[k] = std::min(lo[k], v[k]);
    hi[k] = std::max(hi[k], v[k]);
  }
}

void Extent3::merge(const Extent3& o) {
  for (int k = 0; k < 3; ++k) {
    lo[k] = std::min(lo[k], o.lo[k]);
    hi[k] = std::max(hi[k], o.hi[k]);
  }
}

double Extent3::largest_side() const { return std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}); }

bool stretched_over_core(const Extent3& usual, const Extent3& core) {
  constexpr double kStretched = 16.0;
  const double side = core.largest_side();
  return side > 0.0 && usual.largest_side() > kStretched * side;
}

bool Extent3::contains(const Extent3& o) const {
  for (int k = 0; k < 3; ++k)
    if (o.lo[k] < lo[k] || o.hi[k] > hi[k]) return false;
  return true;
}

namespace {

// The k-th smallest of values (from 0) when k is small beside their number: the k + 1 smallest kept in a max-heap,
// which one comparison with its top rejects most values from. The same value std::nth_element finds, in one read
// of each (tail_quantiles' selection for small tails; the points' bulk box gates its values instead, below).
template <class Before>
double kth_in_order(const std::vector<double>& values, size_t k, Before before) {
  std::vector<double> heap(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k + 1));
  std::make_heap(heap.begin(), heap.end(), before);
  for (size_t i = k + 1; i < values.size(); ++i) {
    if (!before(values[i], heap.front())) continue;
    std::pop_heap(heap.begin(), heap.end(), before);
    heap.back() = values[i];
    std::push_heap(heap.begin(), heap.end(), before);
  }
  return heap.front();
}

}  // namespace

void tail_quantiles(std::vector<double>& values, double tail, double& lo, double& hi) {
  const size_t last = values.size() - 1;
  const size_t low = static_cast<size_t>(std::floor(tail * static_cast<double>(last)));
  if (low < 4096 && 64 * low < values.size()) {
    lo = kth_in_order(values, low, std::less<double>());
    hi = kth_in_order(values, low, std::greater<double>());
    return;
  }
  std::nth_element(values.begin(), values.begin() + low, values.end());
  lo = values[low];
  std::nth_element(values.begin(), values.begin() + (last - low), values.end());
  hi = values[last - low];
}

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

namespace {

// Points a block of checked_extent_of: a thread's share is read once, in order.
constexpr size_t kCheckedGrain = size_t(1) << 16;

// The extent and the bad-coordinate flag of points [begin, end) of xyz. Their coordinates are taken as one flat
// run, 48 (16 points) at a time into 48 lanes of minima and maxima (lane j holds axis j % 3, since a run starts
// on a point): contiguous compares that vectorize, where a loop over points and axes does not.
template <typename T>
void checked_block(const T* xyz, size_t begin, size_t end, Extent3& extent, unsigned& bad) {
  constexpr int kLanes = 48;
  T lo[kLanes], hi[kLanes];
  for (int j = 0; j < kLanes; ++j) {
    lo[j] = std::numeric_limits<T>::infinity();
    hi[j] = -std::numeric_limits<T>::infinity();
  }
  unsigned any_bad = 0;
  size_t i = 3 * begin;
  const size_t stop = 3 * end;
  for (; i + kLanes <= stop; i += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      const T v = xyz[i + j];
      lo[j] = v < lo[j] ? v : lo[j];
      hi[j] = v > hi[j] ? v : hi[j];
      any_bad |= !(std::fabs(static_cast<double>(v)) <= kMaxAbsCoordinate);
    }
  for (int j = 0; i < stop; ++i, ++j) {  // the last points, fewer than 16: lane j is still axis j % 3
    const T v = xyz[i];
    lo[j] = v < lo[j] ? v : lo[j];
    hi[j] = v > hi[j] ? v : hi[j];
    any_bad |= !(std::fabs(static_cast<double>(v)) <= kMaxAbsCoordinate);
  }
  for (int j = 0; j < kLanes; ++j) {
    extent.lo[j % 3] = std::min(extent.lo[j % 3], static_cast<double>(lo[j]));
    extent.hi[j % 3] = std::max(extent.hi[j % 3], static_cast<double>(hi[j]));
  }
  bad |= any_bad;
}

template <typename T>
Extent3 checked_extent(const T* xyz, size_t count, int threads, const char* name) {
  Extent3 total;
  unsigned bad = 0;
  std::mutex m;
  parallel_blocks(count, kCheckedGrain, threads, [&](size_t begin, size_t end, int) {
    Extent3 local;
    unsigned local_bad = 0;
    checked_block(xyz, begin, end, local, local_bad);
    std::lock_guard<std::mutex> lock(m);
    total.merge(local);
    bad |= local_bad;
  });
  // Only a set that is refused is read again: check_coordinates names its first bad point.
  if (bad != 0) check_coordinates(xyz, count, name, threads);
  return total;
}

// One set's part of the sample: every step-th point.
struct SampledSet {
  const PointTruth* truth = nullptr;
  size_t step = 1, count = 0;
};

SampledSet sampled(const PointTruth* t) {
  SampledSet s;
  if (t == nullptr || t->count == 0) return s;
  s.truth = t;
  s.step = std::max<size_t>(1, t->count / kSamplePerSet);
  s.count = (t->count + s.step - 1) / s.step;
  return s;
}

// Sample positions a block of the collecting pass, and every how many positions the gates are drawn from.
constexpr size_t kCollectGrain = size_t(1) << 14;
constexpr size_t kGateStride = 8;

}  // namespace

Extent3 checked_extent_of(const PointTruth& t, int threads, const char* name) {
  return t.f64 != nullptr ? checked_extent(t.f64, t.count, threads, name) : checked_extent(t.f32, t.count, threads, name);
}

BulkBoxes bulk_boxes(const PointTruth& a, const PointTruth* b, const Extent3& all, int threads) {
  if (a.count == 0 && (b == nullptr || b->count == 0)) return BulkBoxes{all, all};
  const SampledSet sets[2] = {sampled(&a), sampled(b)};
  const size_t total = sets[0].count + sets[1].count;
  const auto value = [&](size_t pos, int k) {
    const bool in_a = pos < sets[0].count;
    const SampledSet& s = in_a ? sets[0] : sets[1];
    return s.truth->coord((in_a ? pos : pos - sets[0].count) * s.step, k);
  };
  const auto tail_index = [&](double tail) {
    return static_cast<size_t>(std::floor(tail * static_cast<double>(total - 1)));
  };
  const size_t low = tail_index(kTail), core_low = tail_index(kCoreTail);
  // Gates: the core_low-th smallest and largest of every kGateStride-th sample value. A subset's k-th smallest is
  // no smaller than the whole sample's, so every value either quantile can be is at or below the gate: the pass
  // below keeps only those (about kGateStride times core_low of them, 8% of the sample), and the selection among
  // them finds the quantiles tail_quantiles finds. One sequential read instead of a heap fed every value: a mask's
  // voxels come in scan order, so one axis ascends and every value entered the largest-values heap (1-2 ms a pair).
  double gate_lo[3], gate_hi[3];
  parallel_blocks(3, 1, std::min(threads, 3), [&](size_t k, size_t, int) {
    std::vector<double> sub;
    for (size_t pos = 0; pos < total; pos += kGateStride) sub.push_back(value(pos, static_cast<int>(k)));
    if (sub.size() <= core_low) {
      gate_lo[k] = INFINITY, gate_hi[k] = -INFINITY;  // too few: every value passes
      return;
    }
    std::nth_element(sub.begin(), sub.begin() + core_low, sub.end());
    gate_lo[k] = sub[core_low];
    std::nth_element(sub.begin(), sub.begin() + (sub.size() - 1 - core_low), sub.end());
    gate_hi[k] = sub[sub.size() - 1 - core_low];
  });
  const size_t blocks = (total + kCollectGrain - 1) / kCollectGrain;
  std::vector<std::vector<double>> lows(3 * blocks), highs(3 * blocks);
  parallel_blocks(total, kCollectGrain, threads, [&](size_t begin, size_t end, int) {
    const size_t block = begin / kCollectGrain;
    for (size_t pos = begin; pos < end; ++pos)
      for (int k = 0; k < 3; ++k) {
        const double v = value(pos, k);
        if (v <= gate_lo[k]) lows[3 * block + k].push_back(v);
        if (v >= gate_hi[k]) highs[3 * block + k].push_back(v);
      }
  });
  BulkBoxes boxes;
  parallel_blocks(3, 1, std::min(threads, 3), [&](size_t k, size_t, int) {
    std::vector<double> kept_low, kept_high;
    for (size_t block = 0; block < blocks; ++block) {
      kept_low.insert(kept_low.end(), lows[3 * block + k].begin(), lows[3 * block + k].end());
      kept_high.insert(kept_high.end(), highs[3 * block + k].begin(), highs[3 * block + k].end());
    }
    // The tails' quantiles, each widened on both sides by their distance and clipped to the extent.
    const auto widened = [&](size_t at, Extent3& box) {
      std::nth_element(kept_low.begin(), kept_low.begin() + at, kept_low.end());
      std::nth_element(kept_high.begin(), kept_high.begin() + at, kept_high.end(), std::greater<double>());
      const double q_lo = kept_low[at], q_hi = kept_high[at], width = q_hi - q_lo;
      box.lo[k] = std::max(all.lo[k], q_lo - width);
      box.hi[k] = std::min(all.hi[k], q_hi + width);
    };
    widened(core_low, boxes.core);
    widened(low, boxes.usual);
  });
  return boxes;
}

size_t count_outside(const PointTruth& t, const Extent3& box, int threads) {
  std::atomic<size_t> outside{0};
  parallel_blocks(t.count, kCheckedGrain, threads, [&](size_t begin, size_t end, int) {
    size_t local = 0;
    for (size_t i = begin; i < end; ++i) {
      bool out = false;
      for (int k = 0; k < 3; ++k) {
        const double v = t.coord(i, k);
        out = out || v < box.lo[k] || v > box.hi[k];
      }
      local += out;
    }
    outside.fetch_add(local, std::memory_order_relaxed);
  });
  return outside.load();
}

}  // namespace xhd
