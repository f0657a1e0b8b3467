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
// one's index in the set), which of them lie in the slab itself (its queries), and those ones' float box.
struct SlabPart {
  FramedSet set;
  UninitLargeVector<uint8_t> in_slab;
  uint64_t slab_count = 0;
  Box slab_box{};  // of the float copies of the points in the slab (min > max when none)
};

// Every slab's part of a set without loose points, in two passes over the set on `threads` threads (a
// count, then every point written into each part it belongs to), the parts' memory taken beforehand on
// the calling thread: a part built by each worker on its own costs seconds at a billion points, its fresh
// pages faulted in while the other workers take theirs.
std::vector<SlabPart> slab_parts(const FramedSet& set, const SlabPlan& plan, double halo, int threads);

// A lower bound, in every slab, of the x distance from a point in it to a point beyond its halo (rounding
// of the halo's edges included); +inf with one slab.
double halo_gap(const SlabPlan& plan, double halo);

// True when a direction's largest local squared distance (exact_dist2 of its witness) proves every local
// answer is the true one: below gap^2 by more than exact_dist2's rounding.
bool halo_settles(double largest_dist2, double gap);

}  // namespace xhd
