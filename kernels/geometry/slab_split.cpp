#include "slab_split.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "../abi/parallel.h"

namespace xhd {
namespace {

constexpr size_t kSample = size_t(1) << 15;  // points sampled a set for the plan and the guesses
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

void grow(Box& box, const Box& other) {
  for (int k = 0; k < 3; ++k) {
    box.min[k] = std::min(box.min[k], other.min[k]);
    box.max[k] = std::max(box.max[k], other.max[k]);
  }
}

// Calls visit(i, u) for each point i of the layout's block that part w holds, u its position in the part.
template <typename Visit>
void for_part_points(const SlabLayout& layout, int w, size_t block, Visit&& visit) {
  const uint64_t* held = layout.held[w].data();
  const size_t begin = block * SlabLayout::kBlockPoints;
  const size_t stop = std::min(layout.count, begin + SlabLayout::kBlockPoints);
  uint64_t u = layout.first_of(block, w);
  for (size_t word = begin / 64; word * 64 < stop; ++word)
    for (uint64_t bits = held[word]; bits != 0; bits &= bits - 1) visit(word * 64 + static_cast<size_t>(__builtin_ctzll(bits)), u++);
}

}  // namespace

namespace {

// The edges a point's coordinate is compared with, in arrays the layout's loop reads without calls: slab_of's
// cuts, and the halo's lower and upper edges of every slab (SlabLookup's).
struct LayoutEdges {
  std::vector<double> cuts, lower, upper;
  LayoutEdges(const SlabPlan& plan, double halo) : cuts(plan.cuts) {
    for (int w = 0; w < plan.slabs(); ++w) {
      lower.push_back(lower_edge(plan, w, halo));
      upper.push_back(upper_edge(plan, w, halo));
    }
  }
};

// Bits, slab boxes and counts of the layout for one block's points, their axis coordinates of type T (the
// truth's). The slabs a point's part holds, [first, last], and its own slab are counted branch-free over the
// few edges (slab_of's rule, as SlabLookup's), and the counts taken from the bits a word at a time: this loop
// runs once a point of a billion, and the lookup by calls and a count a point took 23 ns a point on one core.
template <typename T>
void layout_block(const T* truth, int axis, const float* xyz, size_t begin, size_t end, const LayoutEdges& e,
                  SlabLayout& layout, uint64_t* counts, uint64_t* mine, Box* box) {
  const int slabs = layout.slabs, cuts = slabs - 1;
  const double* cut = e.cuts.data();
  const double* lower = e.lower.data();
  const double* upper = e.upper.data();
  std::vector<uint64_t> held(slabs), own(slabs);
  for (size_t word_begin = begin; word_begin < end; word_begin += 64) {
    std::fill(held.begin(), held.end(), 0);
    std::fill(own.begin(), own.end(), 0);
    const size_t stop = std::min(end, word_begin + 64);
    for (size_t i = word_begin; i < stop; ++i) {
      const double x = static_cast<double>(truth[3 * i + axis]);
      int mine_slab = 0, first = 0, after = 0;
      for (int k = 0; k < cuts; ++k) mine_slab += cut[k] <= x;
      for (int w = 0; w < slabs; ++w) {
        first += upper[w] < x;
        after += lower[w] <= x;
      }
      const uint64_t bit = uint64_t(1) << (i - word_begin);
      for (int w = first; w < after; ++w) held[w] |= bit;
      if (mine_slab >= first && mine_slab < after) {
        own[mine_slab] |= bit;
        Box& b = box[mine_slab];
        for (int k = 0; k < 3; ++k) {
          b.min[k] = std::min(b.min[k], xyz[3 * i + k]);
          b.max[k] = std::max(b.max[k], xyz[3 * i + k]);
        }
      }
    }
    for (int w = 0; w < slabs; ++w) {
      layout.held[w][word_begin / 64] = held[w];
      layout.own[w][word_begin / 64] = own[w];
      counts[w] += static_cast<uint64_t>(__builtin_popcountll(held[w]));
      mine[w] += static_cast<uint64_t>(__builtin_popcountll(own[w]));
    }
  }
}

}  // namespace

SlabLayout slab_layout(const FramedSet& set, const SlabPlan& plan, double halo, int threads) {
  SlabLayout layout;
  const int slabs = layout.slabs = plan.slabs();
  const size_t n = layout.count = set.count, blocks = layout.blocks();
  const LayoutEdges edges(plan, halo);
  const PointTruth t = set.truth;
  layout.held.resize(slabs);
  layout.own.resize(slabs);
  for (int w = 0; w < slabs; ++w) {
    layout.held[w].resize(layout.words());
    layout.own[w].resize(layout.words());
  }
  // Each block's bits, counts and boxes in its own words and entries (threads updating shared ones at every
  // point stalled each other on their cache lines), its counts stored once; the threads' boxes merged after.
  std::vector<uint64_t> counts(blocks * slabs, 0);
  const int workers = std::max(1, threads);
  std::vector<uint64_t> slab_counts(static_cast<size_t>(workers) * slabs, 0);
  std::vector<Box> boxes(static_cast<size_t>(workers) * slabs, kEmptyBox);
  parallel_blocks(n, SlabLayout::kBlockPoints, workers, [&](size_t begin, size_t end, int tid) {
    std::vector<uint64_t> count(slabs, 0), mine(slabs, 0);
    std::vector<Box> box(slabs, kEmptyBox);
    if (t.f64 != nullptr) layout_block(t.f64, plan.axis, set.xyz, begin, end, edges, layout, count.data(), mine.data(), box.data());
    else layout_block(t.f32, plan.axis, set.xyz, begin, end, edges, layout, count.data(), mine.data(), box.data());
    std::copy(count.begin(), count.end(), counts.begin() + static_cast<ptrdiff_t>(begin / SlabLayout::kBlockPoints * slabs));
    for (int w = 0; w < slabs; ++w) {
      slab_counts[static_cast<size_t>(tid) * slabs + w] += mine[w];
      grow(boxes[static_cast<size_t>(tid) * slabs + w], box[w]);
    }
  });
  layout.block_first.resize(blocks * slabs);
  layout.size.assign(slabs, 0);
  for (size_t b = 0; b < blocks; ++b)
    for (int w = 0; w < slabs; ++w) {
      layout.block_first[b * slabs + w] = layout.size[w];
      layout.size[w] += counts[b * slabs + w];
    }
  layout.slab_count.assign(slabs, 0);
  layout.slab_box.assign(slabs, kEmptyBox);
  for (int tid = 0; tid < workers; ++tid)
    for (int w = 0; w < slabs; ++w) {
      layout.slab_count[w] += slab_counts[static_cast<size_t>(tid) * slabs + w];
      grow(layout.slab_box[w], boxes[static_cast<size_t>(tid) * slabs + w]);
    }
  return layout;
}

void gather_part(const FramedSet& set, const SlabLayout& layout, int w, size_t first, size_t end, float* to,
                 int threads) {
  if (first >= end) return;
  const uint64_t origin = layout.first_of(first, w);
  const float* xyz = set.xyz;
  parallel_blocks(end - first, 1, threads, [&](size_t begin, size_t stop, int) {
    for (size_t block = first + begin; block < first + stop; ++block)
      for_part_points(layout, w, block, [&](size_t i, uint64_t u) {
        float* into = to + 3 * (u - origin);
        into[0] = xyz[3 * i];
        into[1] = xyz[3 * i + 1];
        into[2] = xyz[3 * i + 2];
      });
  });
}

std::vector<SlabPart> slab_parts(const FramedSet& set, const SlabPlan& plan, double halo, int threads) {
  const SlabLayout layout = slab_layout(set, plan, halo, threads);
  const PointTruth t = set.truth;
  const bool floats_are_truth = t.f32 != nullptr && set.xyz == t.f32;
  std::vector<SlabPart> parts(layout.slabs);
  // Each part's memory taken here, on one thread, and written by blocks on every thread: parts built by each
  // worker on its own cost seconds at a billion points, their fresh pages faulted in while the others took theirs.
  for (int w = 0; w < layout.slabs; ++w) {
    SlabPart& part = parts[w];
    FramedSet& p = part.set;
    const uint64_t size = layout.size[w];
    p.input_index.resize(size);
    p.owned.resize(floats_are_truth ? 0 : 3 * size);
    p.owned_truth32.resize(t.f32 != nullptr ? 3 * size : 0);
    p.owned_truth64.resize(t.f64 != nullptr ? 3 * size : 0);
    part.in_slab.resize(size);
    parallel_blocks(layout.blocks(), 1, threads, [&](size_t begin, size_t end, int) {
      for (size_t block = begin; block < end; ++block)
        for_part_points(layout, w, block, [&](size_t i, uint64_t u) {
          p.input_index[u] = static_cast<uint32_t>(i);
          part.in_slab[u] = static_cast<uint8_t>((layout.own[w][i / 64] >> (i % 64)) & 1);
          for (int k = 0; k < 3; ++k) {
            if (!floats_are_truth) p.owned[3 * u + k] = set.xyz[3 * i + k];
            if (t.f32 != nullptr) p.owned_truth32[3 * u + k] = t.f32[3 * i + k];
            else p.owned_truth64[3 * u + k] = t.f64[3 * i + k];
          }
        });
    });
    p.truth = PointTruth{t.f32 != nullptr ? p.owned_truth32.data() : nullptr,
                         t.f64 != nullptr ? p.owned_truth64.data() : nullptr, size};
    p.xyz = floats_are_truth ? p.owned_truth32.data() : p.owned.data();
    p.count = size;
    part.slab_count = layout.slab_count[w];
    part.slab_box = layout.slab_box[w];
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
