// A points compare split among workers by space: slabs along one axis, each worker searching the queries of
// its slab against the targets within a halo of it, so that each holds and indexes about 1/workers of every
// set rather than a whole target each (the split by queries of work_split.h, whose every worker builds the
// whole target's grid, and so scales only the queries).
//
// Why the answer is the whole set's: a query q of slab w, with lo <= q.x < hi, has its true nearest target
// t at distance d(q) <= HD of the direction; every target beyond the halo lies more than `gap` away in x
// alone. So once the direction's largest local nearest distance (the one the slab parts give, each at least
// the true one, since a part holds fewer targets) is below the gap, no query's nearest lies beyond its halo:
// every local answer is the true one, ties included (a part keeps its points in the set's order), and the
// largest of them is the HD with its witness. Otherwise the direction is searched again split by queries.
// The halo is a guess made before the search (halo_guess); a guess too small costs that second search,
// never a wrong answer.
#pragma once

#include <cstdint>
#include <vector>

#include "box_math.h"
#include "point_frame.h"

namespace xhd {

// Slab w of `cuts.size() + 1`: [cuts[w - 1], cuts[w]) along `axis` of the input's coordinates, the first
// and last open to infinity.
struct SlabPlan {
  int axis = 0;
  std::vector<double> cuts;
  double extent = 0;  // of both sets' sampled coordinates along the axis

  int slabs() const { return static_cast<int>(cuts.size()) + 1; }
  double lo(int w) const;  // -inf for the first slab
  double hi(int w) const;  // +inf for the last
  int slab_of(double x) const;  // the slab holding coordinate x
};

// How many of the ascending `edges` are <= x (or < x, with `strict`). Counted branch-free over a few edges
// (a binary search over a handful mispredicts a branch or two per edge on scattered points: 30 ns a point
// in slab_parts), searched over many (a streamed compare cuts up to 65,536 slabs).
int edges_below(const std::vector<double>& edges, double x, bool strict);

// Cuts at the quantiles of a spread sample of both sets' truth along the axis where that sample spreads
// most, so that each slab holds about as many points. Empty cuts (one slab) when the sample does not
// spread at all.
SlabPlan plan_slabs(const PointFrame& frame, int workers);

// A first halo for the direction whose targets are `target`: the lower bound of its HD that the sampled
// boxes give (HD >= the distance from any face of the source's box, which holds a source point, to the
// target's box), which a shifted copy's HD about equals, plus four times the target's mean point spacing,
// beyond which two overlapping clouds rarely leave a point's nearest.
double halo_guess(const FramedSet& source, const FramedSet& target);
// The same from samples of the sets, the target's spacing that of `target_points` points in its box.
double halo_guess(const FramedSet& source, const FramedSet& target, double target_points);

// The share of the set's spread sample within `halo` of slab w: what a part of it holds, about.
double part_share(const FramedSet& set, const SlabPlan& plan, int w, double halo);

// One worker's part of one set: its points within `halo` of slab w in the set's order (input_index: each
// one's index in the set) and which of them lie in the slab itself (its queries).
struct SlabPart {
  FramedSet set;
  UninitLargeVector<uint8_t> in_slab;
  uint64_t slab_count = 0;
};

// Where a set's points go among the slabs' parts, as bits rather than copies: for each slab, which points of
// the set its part holds (within the halo) and which of those lie in the slab itself, each block's first
// position in each part, and each part's size and slab count. A part is then gathered block by
// block where it is needed (into a GPU's pinned upload buffers: slab_upload.h), never copied whole on the
// host: at a billion points a side those copies, 17 bytes a part point in fresh memory, took 3.5-9 s on the
// 2- and 4-GPU hosts, more than the GPU work the split saves (docs/benchmarks.md).
struct SlabLayout {
  static constexpr size_t kBlockPoints = size_t(1) << 16;  // a multiple of 64: a block's bits are whole words
  int slabs = 1;
  size_t count = 0;
  std::vector<uint64_t> block_first;  // blocks() x slabs: the block's first position in each part
  std::vector<uint64_t> size;         // per slab: points in its part
  std::vector<uint64_t> slab_count;   // per slab: of those, the points in the slab itself
  std::vector<UninitLargeVector<uint64_t>> held, own;  // per slab, a bit a point: in its part; in the slab

  size_t blocks() const { return (count + kBlockPoints - 1) / kBlockPoints; }
  size_t words() const { return (count + 63) / 64; }
  uint64_t first_of(size_t block, int w) const { return block_first[block * slabs + w]; }
};

// The layout of a set without loose points: one pass over it on `threads` threads.
SlabLayout slab_layout(const FramedSet& set, const SlabPlan& plan, double halo, int threads);

// The float edges slab_layout compares a float set's axis coordinates with, per slab: a point is held by slab w's
// part when lower[w] <= x <= upper[w] (its halo) and lies in the slab itself when lo[w] <= x < hi[w]. Compared
// in float they decide as the doubles of the plan would; the GPUs' own layout (slab_exchange.h) compares with
// these same edges, so both ways give every part the same points.
struct FloatSlabEdges {
  std::vector<float> lo, hi, lower, upper;
};
FloatSlabEdges float_slab_edges(const SlabPlan& plan, double halo);

// Part w's float copies of the points in blocks [first, end) of the layout, in the set's order, into `to`
// (from the first block's first position), on `threads` threads.
void gather_part(const FramedSet& set, const SlabLayout& layout, int w, size_t first, size_t end, float* to,
                 int threads);

// Every slab's part of a set without loose points, copied whole (the floats, the truth, each point's index in
// the set and its in-slab flag): the split by space's parts where a GPU worker needs the truth of its part
// (float copies that are not the input's own coordinates), and the tests' view of the layout.
std::vector<SlabPart> slab_parts(const FramedSet& set, const SlabPlan& plan, double halo, int threads);

// A lower bound, in every slab, of the x distance from a point in it to a point beyond its halo (rounding
// of the halo's edges included); +inf with one slab.
double halo_gap(const SlabPlan& plan, double halo);

// True when a direction's largest local squared distance (exact_dist2 of its witness) proves every local
// answer is the true one: below gap^2 by more than exact_dist2's rounding.
bool halo_settles(double largest_dist2, double gap);

}  // namespace xhd
