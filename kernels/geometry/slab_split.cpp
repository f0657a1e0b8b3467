#include "slab_split.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "../abi/parallel.h"

namespace xhd {
namespace {

constexpr size_t kSample = size_t(1) << 15;  // points sampled a set for the plan and the guesses
constexpr size_t kGrain = size_t(1) << 16;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Every step-th point of the set, about kSample of them (all of a small set).
template <typename Visit>
void for_sample(const FramedSet& set, Visit&& visit) {
  const size_t n = set.count, samples = std::min(n, kSample);
  for (size_t s = 0; s < samples; ++s) visit(s * n / samples);
}

struct SampleBox {
  double min[3] = {kInfinity, kInfinity, kInfinity};
  double max[3] = {-kInfinity, -kInfinity, -kInfinity};
  bool empty() const { return !(min[0] <= max[0]); }
};

SampleBox sample_box(const FramedSet& set) {
  SampleBox box;
  for_sample(set, [&](size_t i) {
    for (int k = 0; k < 3; ++k) {
      const double v = set.truth.coord(i, k);
      box.min[k] = std::min(box.min[k], v);
      box.max[k] = std::max(box.max[k], v);
    }
  });
  return box;
}

// Distance between the intervals [a0, a1] and [b0, b1] (0 when they meet).
double interval_gap(double a0, double a1, double b0, double b1) { return std::max({0.0, b0 - a1, a0 - b1}); }

// The halo's edges of slab w, as slab_parts and halo_gap both compute them.
double lower_edge(const SlabPlan& plan, int w, double halo) { return plan.lo(w) - halo; }
double upper_edge(const SlabPlan& plan, int w, double halo) { return plan.hi(w) + halo; }

}  // namespace

double SlabPlan::lo(int w) const { return w == 0 ? -kInfinity : cuts[w - 1]; }
double SlabPlan::hi(int w) const { return w == slabs() - 1 ? kInfinity : cuts[w]; }
int SlabPlan::slab_of(double x) const { return edges_below(cuts, x, false); }

int edges_below(const std::vector<double>& edges, double x, bool strict) {
  constexpr size_t kCountedUpTo = 64;
  if (edges.size() > kCountedUpTo) {
    const auto at = strict ? std::lower_bound(edges.begin(), edges.end(), x) : std::upper_bound(edges.begin(), edges.end(), x);
    return static_cast<int>(at - edges.begin());
  }
  int n = 0;
  if (strict)
    for (const double e : edges) n += e < x;
  else
    for (const double e : edges) n += e <= x;
  return n;
}

SlabPlan plan_slabs(const PointFrame& frame, int workers) {
  SlabPlan plan;
  if (workers < 2) return plan;
  SampleBox box = sample_box(frame.a);
  const SampleBox b = sample_box(frame.b);
  for (int k = 0; k < 3; ++k) {
    box.min[k] = std::min(box.min[k], b.min[k]);
    box.max[k] = std::max(box.max[k], b.max[k]);
  }
  if (box.empty()) return plan;
  for (int k = 1; k < 3; ++k)
    if (box.max[k] - box.min[k] > box.max[plan.axis] - box.min[plan.axis]) plan.axis = k;
  plan.extent = box.max[plan.axis] - box.min[plan.axis];
  if (!(plan.extent > 0)) return plan;
  std::vector<double> values;
  for (const FramedSet* set : {&frame.a, &frame.b})
    for_sample(*set, [&](size_t i) { values.push_back(set->truth.coord(i, plan.axis)); });
  std::sort(values.begin(), values.end());
  for (int w = 1; w < workers; ++w) plan.cuts.push_back(values[values.size() * w / workers]);
  return plan;
}

double halo_guess(const FramedSet& source, const FramedSet& target) {
  return halo_guess(source, target, static_cast<double>(target.count));
}

double halo_guess(const FramedSet& source, const FramedSet& target, double target_points) {
  const SampleBox s = sample_box(source), t = sample_box(target);
  if (s.empty() || t.empty()) return 0.0;
  double lower = 0.0;
  for (int k = 0; k < 3; ++k) {
    double across = 0.0;  // the face's distance to the target's box along the other axes
    for (int j = 0; j < 3; ++j)
      if (j != k) across += std::pow(interval_gap(s.min[j], s.max[j], t.min[j], t.max[j]), 2);
    for (const double face : {s.min[k], s.max[k]})
      lower = std::max(lower, std::sqrt(std::pow(interval_gap(face, face, t.min[k], t.max[k]), 2) + across));
  }
  double volume = 1.0, largest = 0.0;
  for (int k = 0; k < 3; ++k) largest = std::max(largest, t.max[k] - t.min[k]);
  int dims = 0;
  for (int k = 0; k < 3; ++k) {
    const double side = t.max[k] - t.min[k];
    if (side > 1e-9 * largest) {
      volume *= side;
      ++dims;
    }
  }
  const double spacing = dims == 0 ? 0.0 : std::pow(volume / target_points, 1.0 / dims);
  return lower + 4.0 * spacing;
}

double part_share(const FramedSet& set, const SlabPlan& plan, int w, double halo) {
  const double lo = lower_edge(plan, w, halo), hi = upper_edge(plan, w, halo);
  size_t inside = 0, all = 0;
  for_sample(set, [&](size_t i) {
    const double x = set.truth.coord(i, plan.axis);
    inside += x >= lo && x <= hi;
    ++all;
  });
  return all == 0 ? 0.0 : static_cast<double>(inside) / static_cast<double>(all);
}

namespace {

// The slabs a coordinate belongs to: its own (x in [lo, hi)) and the range of those whose halo holds it.
struct SlabRange {
  int own, first, last;
};

class SlabLookup {
 public:
  SlabLookup(const SlabPlan& plan, double halo) : cuts_(plan.cuts) {
    for (int w = 0; w < plan.slabs(); ++w) {
      lower_.push_back(lower_edge(plan, w, halo));
      upper_.push_back(upper_edge(plan, w, halo));
    }
  }
  SlabRange operator()(double x) const {
    SlabRange r;
    r.own = edges_below(cuts_, x, false);
    r.first = edges_below(upper_, x, true);
    r.last = edges_below(lower_, x, false) - 1;
    return r;
  }

 private:
  std::vector<double> cuts_, lower_, upper_;  // the halo's edges rise with the slab, as the cuts do
};

const Box kEmptyBox{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};

}  // namespace

std::vector<SlabPart> slab_parts(const FramedSet& set, const SlabPlan& plan, double halo, int threads) {
  const int slabs = plan.slabs();
  const size_t n = set.count, blocks = (n + kGrain - 1) / kGrain;
  const SlabLookup lookup(plan, halo);
  const PointTruth t = set.truth;
  const auto x_of = [&](size_t i) { return t.coord(i, plan.axis); };

  // Each block's count in each part, then each block's first position there. Counted in the block's own
  // array and stored once: neighbouring blocks' counts share cache lines, and threads incrementing them
  // in place stalled each other at every point.
  std::vector<uint64_t> at(blocks * slabs, 0);
  parallel_blocks(n, kGrain, threads, [&](size_t begin, size_t end, int) {
    std::vector<uint64_t> count(slabs, 0);
    for (size_t i = begin; i < end; ++i) {
      const SlabRange r = lookup(x_of(i));
      for (int w = r.first; w <= r.last; ++w) ++count[w];
    }
    std::copy(count.begin(), count.end(), at.begin() + static_cast<ptrdiff_t>(begin / kGrain * slabs));
  });
  std::vector<uint64_t> sizes(slabs, 0);
  for (size_t b = 0; b < blocks; ++b)
    for (int w = 0; w < slabs; ++w) {
      const uint64_t count = at[b * slabs + w];
      at[b * slabs + w] = sizes[w];
      sizes[w] += count;
    }

  const bool floats_are_truth = t.f32 != nullptr && set.xyz == t.f32;
  std::vector<SlabPart> parts(slabs);
  for (int w = 0; w < slabs; ++w) {
    FramedSet& p = parts[w].set;
    p.input_index.resize(sizes[w]);
    p.owned.resize(floats_are_truth ? 0 : 3 * sizes[w]);
    p.owned_truth32.resize(t.f32 != nullptr ? 3 * sizes[w] : 0);
    p.owned_truth64.resize(t.f64 != nullptr ? 3 * sizes[w] : 0);
    parts[w].in_slab.resize(sizes[w]);
  }

  // Where each part's arrays are, read once: the loop's byte stores (in_slab) may alias anything, so
  // through the vectors the compiler would load every pointer again after each of them.
  struct Into {
    uint32_t* index;
    float* floats;
    float* truth32;
    double* truth64;
    uint8_t* in_slab;
  };
  std::vector<Into> into(slabs);
  for (int w = 0; w < slabs; ++w) {
    FramedSet& p = parts[w].set;
    into[w] = Into{p.input_index.data(), p.owned.data(), p.owned_truth32.data(), p.owned_truth64.data(),
                   parts[w].in_slab.data()};
  }

  // Each point into every part it belongs to. Each block counts its slab points and grows their boxes in
  // its own arrays and adds them to its thread's entry once (a shared array updated at every point made the
  // threads' cache lines bounce); the threads' entries are merged after.
  const int workers = std::max(1, threads);
  std::vector<uint64_t> slab_counts(static_cast<size_t>(workers) * slabs, 0);
  std::vector<Box> boxes(static_cast<size_t>(workers) * slabs, kEmptyBox);
  parallel_blocks(n, kGrain, workers, [&](size_t begin, size_t end, int tid) {
    std::vector<uint64_t> cursor(at.begin() + begin / kGrain * slabs, at.begin() + (begin / kGrain + 1) * slabs);
    std::vector<uint64_t> mine_count(slabs, 0);
    std::vector<Box> mine_box(slabs, kEmptyBox);
    const float* xyz = set.xyz;
    for (size_t i = begin; i < end; ++i) {
      const SlabRange r = lookup(x_of(i));
      for (int w = r.first; w <= r.last; ++w) {
        const Into& to = into[w];
        const uint64_t u = cursor[w]++;
        to.index[u] = static_cast<uint32_t>(i);
        for (int k = 0; k < 3; ++k) {
          if (!floats_are_truth) to.floats[3 * u + k] = xyz[3 * i + k];
          if (t.f32 != nullptr) to.truth32[3 * u + k] = t.f32[3 * i + k];
          else to.truth64[3 * u + k] = t.f64[3 * i + k];
        }
        const bool mine = w == r.own;
        to.in_slab[u] = mine;
        if (!mine) continue;
        ++mine_count[w];
        Box& box = mine_box[w];
        for (int k = 0; k < 3; ++k) {
          box.min[k] = std::min(box.min[k], xyz[3 * i + k]);
          box.max[k] = std::max(box.max[k], xyz[3 * i + k]);
        }
      }
    }
    for (int w = 0; w < slabs; ++w) {
      slab_counts[static_cast<size_t>(tid) * slabs + w] += mine_count[w];
      Box& box = boxes[static_cast<size_t>(tid) * slabs + w];
      for (int k = 0; k < 3; ++k) {
        box.min[k] = std::min(box.min[k], mine_box[w].min[k]);
        box.max[k] = std::max(box.max[k], mine_box[w].max[k]);
      }
    }
  });

  for (int w = 0; w < slabs; ++w) {
    SlabPart& part = parts[w];
    FramedSet& p = part.set;
    p.truth = PointTruth{t.f32 != nullptr ? p.owned_truth32.data() : nullptr,
                         t.f64 != nullptr ? p.owned_truth64.data() : nullptr, sizes[w]};
    p.xyz = floats_are_truth ? p.owned_truth32.data() : p.owned.data();
    p.count = sizes[w];
    part.slab_box = kEmptyBox;
    for (int tid = 0; tid < workers; ++tid) {
      part.slab_count += slab_counts[static_cast<size_t>(tid) * slabs + w];
      const Box& box = boxes[static_cast<size_t>(tid) * slabs + w];
      for (int k = 0; k < 3; ++k) {
        part.slab_box.min[k] = std::min(part.slab_box.min[k], box.min[k]);
        part.slab_box.max[k] = std::max(part.slab_box.max[k], box.max[k]);
      }
    }
  }
  return parts;
}

double halo_gap(const SlabPlan& plan, double halo) {
  // fl(a - b) is within half an ulp of a - b: shrunk by 2^-50 it is below it.
  const double shrink = 1.0 - std::ldexp(1.0, -50);
  double gap = kInfinity;
  for (int w = 0; w < plan.slabs(); ++w) {
    if (std::isfinite(plan.lo(w))) gap = std::min(gap, (plan.lo(w) - lower_edge(plan, w, halo)) * shrink);
    if (std::isfinite(plan.hi(w))) gap = std::min(gap, (upper_edge(plan, w, halo) - plan.hi(w)) * shrink);
  }
  return gap;
}

bool halo_settles(double largest_dist2, double gap) {
  if (std::isinf(gap)) return true;
  // A target beyond the halo is more than gap away in x; exact_dist2 of it rounds (differences, squares,
  // two sums) by less than 6 units of 2^-53, far inside the 2^-40 margin: it is larger than largest_dist2.
  return largest_dist2 < gap * gap * (1.0 - std::ldexp(1.0, -40));
}

}  // namespace xhd
