#include "slab_split.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "../abi/parallel.h"
#include "bulk_box.h"

namespace xhd {
namespace {

constexpr size_t kSample = size_t(1) << 15;  // points sampled a set for the plan and the guesses
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Every step-th point of the set, about kSample of them (all of a small set), its coordinates copied once on
// every core and kept with the set: the plan and the guesses read the sample a dozen times, and each read of it
// from the set touches a page a point (at a billion points a side, 12-23 ms a plan on the H200 host).
const std::vector<double>& spread_sample(const FramedSet& set) {
  const void* truth = set.truth.f64 != nullptr ? static_cast<const void*>(set.truth.f64) : set.truth.f32;
  const std::shared_ptr<const FramedSet::Sample>& kept = set.spread_sample;
  if (kept && kept->truth == truth && kept->count == set.count) return kept->xyz;
  auto sample = std::make_shared<FramedSet::Sample>();
  sample->truth = truth;
  sample->count = set.count;
  const size_t n = set.count, samples = std::min(n, kSample);
  sample->xyz.resize(3 * samples);
  parallel_blocks(samples, 1024, resolve_thread_count(0), [&](size_t begin, size_t end, int) {
    for (size_t s = begin; s < end; ++s)
      for (int k = 0; k < 3; ++k) sample->xyz[3 * s + k] = set.truth.coord(s * n / samples, k);
  });
  set.spread_sample = sample;
  return set.spread_sample->xyz;
}

// Calls visit(p) with each sampled point's coordinates p[0..2].
template <typename Visit>
void for_sample(const FramedSet& set, Visit&& visit) {
  const std::vector<double>& xyz = spread_sample(set);
  for (size_t j = 0; j < xyz.size(); j += 3) visit(&xyz[j]);
}

struct SampleBox {
  double min[3] = {kInfinity, kInfinity, kInfinity};
  double max[3] = {-kInfinity, -kInfinity, -kInfinity};
  bool far_points_left_out = false;  // bulk_sample_box took wider tails than the 0.1% ones
  bool empty() const { return !(min[0] <= max[0]); }
};

// The box of the bulk of a set's spread sample: per axis its values between the 0.1% and 99.9% quantiles, or
// between wider tails (1%, 5%, then 15%) where the narrower box is stretched over a far cluster that the 15% box
// leaves out (more than 16 times its size: bulk_box.h's test). The plan's axis and the halo guesses' lower bound
// and spacing are measured over it, not over the whole sample: one point at 1e9 in a streamed compare's sample
// made the outlier's axis the plan's and every halo the whole space, so that both directions went query by
// query (2.7 times as long on a 400,000-point pair). Widened only by what the tails cut off uniform data, not
// as the frames' bulk boxes are (by the quantiles' distance on each side), which would put the lower bound of
// a guess a box's width away from the data. A guess's box: one a little off the bulk only costs a wider search.
SampleBox measure_bulk_sample_box(const std::vector<double>& xyz) {
  SampleBox box;
  if (xyz.empty()) return box;
  constexpr int kLevels = 4;
  constexpr double kTails[kLevels] = {0.001, 0.01, 0.05, 0.15};
  Extent3 tails[kLevels];
  std::vector<double> values(xyz.size() / 3);
  for (int k = 0; k < 3; ++k) {
    for (size_t j = 0; j < values.size(); ++j) values[j] = xyz[3 * j + k];
    for (int t = 0; t < kLevels; ++t) tail_quantiles(values, kTails[t], tails[t].lo[k], tails[t].hi[k]);
  }
  // The narrowest tails' box not stretched over the widest's (a cluster of 1% of the sample is inside the first
  // two boxes, which are then alike: each is compared with the widest).
  int bulk = 0;
  while (bulk < kLevels - 1 && stretched_over_core(tails[bulk], tails[kLevels - 1])) ++bulk;
  box.far_points_left_out = bulk > 0;
  // Uniform data between the quantiles at tail t spans 1 - 2t of its whole range: widened by as much on each side,
  // the box is about the bulk's whole at every tail, so that the lower bound of a set boxed at 5% against one boxed
  // at 0.1% is not the shrinking's gap.
  const double t = kTails[bulk], widen = t / (1.0 - 2.0 * t);
  for (int k = 0; k < 3; ++k) {
    const double lo = tails[bulk].lo[k], hi = tails[bulk].hi[k];
    box.min[k] = lo - widen * (hi - lo);
    box.max[k] = hi + widen * (hi - lo);
  }
  return box;
}

// measure_bulk_sample_box of the set's spread sample, measured once a sample.
SampleBox bulk_sample_box(const FramedSet& set) {
  const std::vector<double>& xyz = spread_sample(set);
  const FramedSet::Sample& kept = *set.spread_sample;
  SampleBox box;
  if (!kept.bulk_known) {
    box = measure_bulk_sample_box(xyz);
    std::copy(box.min, box.min + 3, kept.bulk_min);
    std::copy(box.max, box.max + 3, kept.bulk_max);
    kept.far_points_left_out = box.far_points_left_out;
    kept.bulk_known = true;
    return box;
  }
  std::copy(kept.bulk_min, kept.bulk_min + 3, box.min);
  std::copy(kept.bulk_max, kept.bulk_max + 3, box.max);
  box.far_points_left_out = kept.far_points_left_out;
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
  SampleBox box = bulk_sample_box(frame.a);
  const SampleBox b = bulk_sample_box(frame.b);
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
    for_sample(*set, [&](const double* p) { values.push_back(p[plan.axis]); });
  std::sort(values.begin(), values.end());
  for (int w = 1; w < workers; ++w) plan.cuts.push_back(values[values.size() * w / workers]);
  return plan;
}

double halo_guess(const FramedSet& source, const FramedSet& target) {
  return halo_guess(source, target, static_cast<double>(target.count));
}

double halo_guess(const FramedSet& source, const FramedSet& target, double target_points) {
  const SampleBox s = bulk_sample_box(source), t = bulk_sample_box(target);
  if (s.empty() || t.empty()) return 0.0;
  // The boxes' lower bound, where the source's box is its whole but for a few points: a source with a far cluster
  // has a large HD anyway, and its box's widening (uniform data's, about its own median) can leave a gap of a few
  // percent of it to a target box it truly lies in, which as a halo sent a 200,000-point compare's slabs query by
  // query.
  double lower = 0.0;
  for (int k = 0; k < 3 && !s.far_points_left_out; ++k) {
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
  for_sample(set, [&](const double* p) {
    const double x = p[plan.axis];
    inside += x >= lo && x <= hi;
    ++all;
  });
  return all == 0 ? 0.0 : static_cast<double>(inside) / static_cast<double>(all);
}

namespace {

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

// The smallest T at least d, and the largest T at most d (d itself for doubles): for a coordinate v of type T,
// v >= d exactly when v >= at_least(d), v < d when v < at_least(d), and v <= d when v <= at_most(d). So float
// coordinates are compared in float, eight to a vector, with the same outcome as their doubles against d.
template <typename T>
T at_least(double d) {
  const T t = static_cast<T>(d);
  return static_cast<double>(t) < d ? std::nextafter(t, std::numeric_limits<T>::infinity()) : t;
}
template <typename T>
T at_most(double d) {
  const T t = static_cast<T>(d);
  return static_cast<double>(t) > d ? std::nextafter(t, -std::numeric_limits<T>::infinity()) : t;
}

// The edges a coordinate of type T is compared with, per slab: its own [lo, hi) (slab_of's) and its halo's
// [lower, upper], the edges halo_gap's proof assumes.
template <typename T>
struct LayoutEdges {
  std::vector<T> lo, hi, lower, upper;
  LayoutEdges(const SlabPlan& plan, double halo) {
    for (int w = 0; w < plan.slabs(); ++w) {
      lo.push_back(at_least<T>(plan.lo(w)));
      hi.push_back(at_least<T>(plan.hi(w)));
      lower.push_back(at_least<T>(lower_edge(plan, w, halo)));
      upper.push_back(at_most<T>(upper_edge(plan, w, halo)));
    }
  }
};

// The bit word as wide as a vector lane of T, and each lane's bit: a compare's mask selects it without widening.
template <typename T>
struct LaneBits {
  using Word = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  static constexpr int kLanes = 8 * sizeof(Word);
  Word bit[kLanes];
  constexpr LaneBits() : bit() {
    for (int j = 0; j < kLanes; ++j) bit[j] = Word(1) << j;
  }
};

// Bits and counts of the layout for one block's points, their axis coordinates of type T (the truth's). A
// word's 64 coordinates are read once; each slab's bits are then compares against its edges over the word
// (held: within the halo, lower <= x <= upper; own: lo <= x < hi, as slab_of has it), a select of each
// point's bit and an OR, which the compiler turns into compares a vector at a time, and the counts are the
// bits' popcounts. The lookup by calls and a count a point took 23 ns a point on one core; this, 2.5.
template <typename T>
void layout_block(const T* truth, int axis, size_t begin, size_t end, const LayoutEdges<T>& e, SlabLayout& layout,
                  uint64_t* counts, uint64_t* mine) {
  static constexpr LaneBits<T> kBits;
  using Word = typename LaneBits<T>::Word;
  constexpr int kLanes = LaneBits<T>::kLanes;
  const int slabs = layout.slabs;
  // Counted here and stored once: the block's entries share cache lines with its neighbours', which other
  // threads count, and an update a word made those lines bounce between cores (the pass ran slower on two
  // threads than on one).
  std::vector<uint64_t> count(slabs, 0), in_slab(slabs, 0);
  T x[64];
  for (size_t word_begin = begin; word_begin < end; word_begin += 64) {
    const int m = static_cast<int>(std::min<size_t>(64, end - word_begin));
    for (int j = 0; j < m; ++j) x[j] = truth[3 * (word_begin + j) + axis];
    for (int j = m; j < 64; ++j) x[j] = std::numeric_limits<T>::quiet_NaN();  // compares false: no bits
    for (int w = 0; w < slabs; ++w) {
      const T lower = e.lower[w], upper = e.upper[w], lo = e.lo[w], hi = e.hi[w];
      uint64_t held = 0, own = 0;
      for (int g = 0; g < 64; g += kLanes) {
        Word h = 0, o = 0;
        for (int j = 0; j < kLanes; ++j) {
          const T v = x[g + j];
          h |= (v >= lower) & (v <= upper) ? kBits.bit[j] : 0;
          o |= (v >= lo) & (v < hi) ? kBits.bit[j] : 0;
        }
        held |= static_cast<uint64_t>(h) << g;
        own |= static_cast<uint64_t>(o) << g;
      }
      own &= held;  // the halo holds the slab (lower <= lo, hi <= upper): a safeguard only
      layout.held[w][word_begin / 64] = held;
      layout.own[w][word_begin / 64] = own;
      count[w] += static_cast<uint64_t>(__builtin_popcountll(held));
      in_slab[w] += static_cast<uint64_t>(__builtin_popcountll(own));
    }
  }
  std::copy(count.begin(), count.end(), counts);
  std::copy(in_slab.begin(), in_slab.end(), mine);
}

}  // namespace

FloatSlabEdges float_slab_edges(const SlabPlan& plan, double halo) {
  LayoutEdges<float> e(plan, halo);
  return FloatSlabEdges{std::move(e.lo), std::move(e.hi), std::move(e.lower), std::move(e.upper)};
}

SlabLayout slab_layout(const FramedSet& set, const SlabPlan& plan, double halo, int threads) {
  SlabLayout layout;
  const int slabs = layout.slabs = plan.slabs();
  const size_t n = layout.count = set.count, blocks = layout.blocks();
  const PointTruth t = set.truth;
  layout.held.resize(slabs);
  layout.own.resize(slabs);
  for (int w = 0; w < slabs; ++w) {
    layout.held[w].resize(layout.words());
    layout.own[w].resize(layout.words());
  }
  // Each block's bits and counts in its own words and entries (threads updating shared ones at every point
  // stalled each other on their cache lines), its counts stored once.
  std::vector<uint64_t> counts(blocks * slabs, 0), own_counts(blocks * slabs, 0);
  const LayoutEdges<double> edges64(plan, halo);
  const LayoutEdges<float> edges32(plan, halo);
  parallel_blocks(n, SlabLayout::kBlockPoints, std::max(1, threads), [&](size_t begin, size_t end, int) {
    const size_t at = begin / SlabLayout::kBlockPoints * slabs;
    if (t.f64 != nullptr) layout_block(t.f64, plan.axis, begin, end, edges64, layout, &counts[at], &own_counts[at]);
    else layout_block(t.f32, plan.axis, begin, end, edges32, layout, &counts[at], &own_counts[at]);
  });
  layout.block_first.resize(blocks * slabs);
  layout.size.assign(slabs, 0);
  layout.slab_count.assign(slabs, 0);
  for (size_t b = 0; b < blocks; ++b)
    for (int w = 0; w < slabs; ++w) {
      layout.block_first[b * slabs + w] = layout.size[w];
      layout.size[w] += counts[b * slabs + w];
      layout.slab_count[w] += own_counts[b * slabs + w];
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
  // Where each part's arrays are, read once: the loop's byte stores (in_slab) may alias anything, so through the
  // vectors the compiler would load every pointer again after each of them.
  struct Into {
    uint32_t* index;
    float* floats;
    float* truth32;
    double* truth64;
    uint8_t* in_slab;
    const uint64_t* own;
  };
  std::vector<Into> into(layout.slabs);
  for (int w = 0; w < layout.slabs; ++w) {
    FramedSet& p = parts[w].set;
    const uint64_t size = layout.size[w];
    p.input_index.resize(size);
    p.owned.resize(floats_are_truth ? 0 : 3 * size);
    p.owned_truth32.resize(t.f32 != nullptr ? 3 * size : 0);
    p.owned_truth64.resize(t.f64 != nullptr ? 3 * size : 0);
    parts[w].in_slab.resize(size);
    into[w] = Into{p.input_index.data(), p.owned.data(),           p.owned_truth32.data(),
                   p.owned_truth64.data(), parts[w].in_slab.data(), layout.own[w].data()};
  }
  // One pass over the set's blocks, each block into every part that holds its points while it is in cache.
  parallel_blocks(layout.blocks(), 1, threads, [&](size_t begin, size_t end, int) {
    for (size_t block = begin; block < end; ++block)
      for (int w = 0; w < layout.slabs; ++w) {
        const Into to = into[w];
        for_part_points(layout, w, block, [&](size_t i, uint64_t u) {
          to.index[u] = static_cast<uint32_t>(i);
          to.in_slab[u] = static_cast<uint8_t>((to.own[i / 64] >> (i % 64)) & 1);
          for (int k = 0; k < 3; ++k) {
            if (!floats_are_truth) to.floats[3 * u + k] = set.xyz[3 * i + k];
            if (t.f32 != nullptr) to.truth32[3 * u + k] = t.f32[3 * i + k];
            else to.truth64[3 * u + k] = t.f64[3 * i + k];
          }
        });
      }
  });
  for (int w = 0; w < layout.slabs; ++w) {
    FramedSet& p = parts[w].set;
    const uint64_t size = layout.size[w];
    p.truth = PointTruth{t.f32 != nullptr ? p.owned_truth32.data() : nullptr,
                         t.f64 != nullptr ? p.owned_truth64.data() : nullptr, size};
    p.xyz = floats_are_truth ? p.owned_truth32.data() : p.owned.data();
    p.count = size;
    parts[w].slab_count = layout.slab_count[w];
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
