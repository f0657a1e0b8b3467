// Islands: groups of points far apart from one another (two buildings kilometres apart in one scan, a second
// object placed far from the first), found so that a compare can search each group in a frame and grid of its
// own. One frame over both would size its grid and its float copies by the whole span: 200,000 points in two
// unit cubes 1e7 apart took 87 s on the CPU, against 0.4 s for one cube, and 300 apart 2.7 s.
//
// Why the answer is the whole compare's: an island's box holds all of its points of both sets, so each of its
// queries has a target within the box's diagonal. When every other island's box lies farther than that diagonal
// (island_compare_settled), no query's nearest target, nor any target tied with it, lies outside its own island,
// and the island's compare over its own points gives each query's answer exactly, ties included (an island keeps
// its points in the sets' order, so its smallest index is the sets' smallest). This is known before any search.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bulk_box.h"
#include "xhd.h"

namespace xhd {

// A cut of the islands' tree: points with coordinate `axis` below `at` go to child below, the others to above.
// A child >= 0 is a node, a child < 0 the island ~child.
struct IslandCut {
  int axis = 0;
  double at = 0.0;
  int below = -1, above = -1;
};

// How the points of both sets fall into islands: per island, how many of each set and the box of them all.
struct IslandCensus {
  std::vector<uint64_t> a_count, b_count;
  std::vector<Extent3> box;
};

struct IslandPlan {
  std::vector<IslandCut> cuts;  // cuts[0] is the root; empty: one island
  int islands = 1;
  bool rows = true;  // whether rows of groups are cut too (plan_islands)
  IslandCensus sample;  // of the sample the cuts were found on

  int island_of(double x, double y, double z) const;
};

// Cuts found on a spread sample of both sets (b may be null): a cut goes through an empty slab between two groups
// of sample points when the slab is more than kIslandGap times wider than the larger group's largest side, and each
// group is cut again the same way, down to at most kMaxIslands islands. Points the sample missed still land on one
// side of each cut; assign_islands measures the islands' boxes over every point. With `rows`, a group that no one
// cut parts may still be cut across an axis at several slabs at once (a row of evenly spaced groups, a lattice):
// worth it on the CPU, whose one grid over such a row costs 6 to 10 times the islands', but not on a GPU, which
// searches a row of five in one frame faster (24 ms on an H200) than five islands one after the other (70 ms).
constexpr double kIslandGap = 16.0;
constexpr int kMaxIslands = 64;
IslandPlan plan_islands(const xhd_points& a, const xhd_points* b, bool rows = true);

// Every point's island, and the census of every point.
struct IslandAssignment : IslandCensus {
  int islands = 0;
  std::vector<uint8_t> a_island, b_island;  // per point
  // Per block of kIslandBlock points of each set and per island: how many of the set's points before the block the
  // island holds, where the block's points start in the island's own arrays.
  std::vector<uint64_t> a_first, b_first;  // blocks x islands
  static constexpr size_t kIslandBlock = size_t(1) << 16;
};
IslandAssignment assign_islands(const xhd_points& a, const xhd_points& b, const IslandPlan& plan, int threads);

// Whether island w holds queries of the direction from A (from_a) or from B, and none of its targets: one set's
// group alone, far from the other set (a second object scanned in one epoch only, a burst of stray returns).
inline bool island_orphaned(const IslandCensus& s, int w, bool from_a) {
  const uint64_t queries = from_a ? s.a_count[w] : s.b_count[w], targets = from_a ? s.b_count[w] : s.a_count[w];
  return queries > 0 && targets == 0;
}

// Whether searching each island alone gives the whole compare's answer for `directions` (file comment): every
// island with queries of a direction holds targets of it, and lies farther from every other island's box than
// its own box's diagonal (with room for rounding). With `orphans`, an island orphaned in a direction passes too:
// its queries are searched against the other islands' targets (island_orphans.h), wherever they lie. Over a plan's
// sample census, a necessary check, which spares the pass over every point where it fails: the boxes of every
// point hold the sample's, and only grow, and an island orphaned in the sample may hold targets in full (then it
// must lie apart), never the other way.
bool island_compare_settled(const IslandCensus& islands, int directions, bool orphans = false);

// The islands whose targets may hold the nearest target of a query in an island orphaned in the direction (from A
// or from B): those holding targets no farther from the orphan's box than the nearest such island's farthest
// corner, for each orphaned island; ascending.
std::vector<int> orphans_target_islands(const IslandCensus& islands, bool from_a);

// The points of island `w` of one set, in the set's order: coordinates as given (floats stay floats), and each
// one's index in the set. `first` and `labels` are the assignment's for the set.
struct IslandPoints {
  std::vector<float> xyz;
  std::vector<double> xyz64;
  std::vector<int64_t> index;
  xhd_points view() const;
};
// With `coordinates` false, only the indices (an island searched through them, island_orphans.h).
IslandPoints island_points(const xhd_points& set, const std::vector<uint8_t>& labels,
                           const std::vector<uint64_t>& first, uint64_t count, int islands, int w, int threads,
                           bool coordinates = true);

}  // namespace xhd
