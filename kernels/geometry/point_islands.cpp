#include "point_islands.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "point_truth.h"
#include "../abi/parallel.h"

namespace xhd {
namespace {

// Sample points per set: a group of more than 1/4,096 of a set's points is seen. A smaller far group is left in the
// island its side of each cut gives it, whose box it stretches: that island is then searched with the rest
// (island_compare_settled), as the whole compare would be. Planning on normal data costs about 1 ms this way.
constexpr size_t kSamplePerSet = size_t(1) << 12;

uint64_t mixed(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct SamplePoint {
  double v[3];
  bool in_b;
};

// Evenly spread points of a set; coordinates that are not finite are left out (the compare refuses them later).
void sample_set(const xhd_points& set, bool in_b, std::vector<SamplePoint>& out) {
  const PointTruth t = truth_of(set);
  const size_t stride = std::max<size_t>(1, set.count / kSamplePerSet);
  out.reserve(out.size() + set.count / stride + 1);
  // One point of each run of `stride`, at a position jittered run by run: a plain stride would see one group alone
  // of sets whose groups interleave (point i in group i % 2, and a stride of 4). The jitter is a full mix of the run
  // (splitmix64's finalizer): a multiplicative one, run * 2654435761 % stride, is run % stride itself at a stride of
  // 48 (the multiplier is 1 mod 48), which saw 48 of 64 interleaved groups.
  for (size_t run = 0; run * stride < set.count; ++run) {
    const size_t i = std::min(set.count - 1, run * stride + static_cast<size_t>(mixed(run) % stride));
    SamplePoint p{{t.coord(i, 0), t.coord(i, 1), t.coord(i, 2)}, in_b};
    if (std::isfinite(p.v[0]) && std::isfinite(p.v[1]) && std::isfinite(p.v[2])) out.push_back(p);
  }
}

// The widest empty slab between a group's sample points along any axis, measured against the larger of the two
// groups it would part (its largest side): ratio 0 when no axis has one. Against the smaller, the tail of any cloud
// would be cut off point by point (its last point is a group of side 0). A row of evenly spaced groups parts so
// nowhere (each side of any one slab holds several groups); row_cuts below cuts it.
struct Gap {
  int axis = -1;
  double at = 0.0;
  double ratio = 0.0;
};

struct Bucket {
  double lo = INFINITY, hi = -INFINITY;
};

// A run of the sample (the libraries build as C++17: no std::span).
struct Group {
  SamplePoint* first;
  size_t n;
  SamplePoint* begin() const { return first; }
  SamplePoint* end() const { return first + n; }
  size_t size() const { return n; }
};

// The widest gap between values along axis k: its two sides (below < above), or below == above when none. Found in
// linear time by buckets: with n values spread over [lo, hi], n buckets of width (hi - lo) / (n - 1) leave the widest
// gap between the largest value of one bucket and the smallest of a later one, since it is at least one bucket wide.
void widest_gap_along(Group points, int k, std::vector<Bucket>& buckets, double& below, double& above) {
  double lo = INFINITY, hi = -INFINITY;
  for (const SamplePoint& p : points) lo = std::min(lo, p.v[k]), hi = std::max(hi, p.v[k]);
  below = above = lo;
  if (!(hi > lo)) return;
  const size_t n = points.size();
  buckets.assign(n, Bucket{});
  const double scale = static_cast<double>(n - 1) / (hi - lo);
  for (const SamplePoint& p : points) {
    const size_t at = std::min(n - 1, static_cast<size_t>((p.v[k] - lo) * scale));
    buckets[at].lo = std::min(buckets[at].lo, p.v[k]);
    buckets[at].hi = std::max(buckets[at].hi, p.v[k]);
  }
  double last = buckets[0].hi;  // bucket 0 holds lo
  for (size_t i = 1; i < n; ++i) {
    if (!(buckets[i].lo <= buckets[i].hi)) continue;  // empty
    if (buckets[i].lo - last > above - below) below = last, above = buckets[i].lo;
    last = buckets[i].hi;
  }
}

Gap widest_gap(Group points, std::vector<Bucket>& buckets) {
  Gap best;
  for (int k = 0; k < 3; ++k) {
    double below = 0.0, above = 0.0;
    widest_gap_along(points, k, buckets, below, above);
    const double gap = above - below;
    const double at = below + 0.5 * gap;
    if (!(gap > 0.0) || !(at > below)) continue;
    Extent3 lower, upper;
    for (const SamplePoint& p : points) (p.v[k] < at ? lower : upper).add(p.v);
    const double side = std::max(lower.largest_side(), upper.largest_side());
    const double ratio = side > 0.0 ? gap / side : INFINITY;
    if (ratio > best.ratio) best = Gap{k, at, ratio};
  }
  return best;
}

// A row's pieces hold this many sample points at least: among a few dozen points spread at random, the widest gaps
// are many times the narrowest, and cuts through every gap would leave pieces of one point (no width at all).
constexpr size_t kRowPiecePoints = 16;

// Candidate cuts across one axis through a row of groups (objects side by side, parts laid out on a lattice): the m
// widest empty slabs along the axis, for the largest m up to `most` at which every one of them is more than
// kIslandGap times wider than the two pieces it lies between are along the axis. Measured against the neighbouring
// pieces instead of the whole of each side, so that evenly spaced groups part; a far tail point is still no piece of
// its own, since the cloud beside it is a piece too. Along the axis only, so that a lattice parts into slabs, to be
// cut across the next axis; cut_group keeps the cuts only if every piece then parts into islands narrow beside the
// slabs (not so parallel walls, nor the slabs of a coordinate's few float values at 1e6). Each piece holds
// kRowPiecePoints sample points or more. The cuts' positions, ascending; none found: empty. The group is reordered
// along the axis.
std::vector<double> row_cuts(Group points, int k, size_t most, std::vector<Bucket>& buckets) {
  std::vector<double> cuts;
  const size_t n = points.size();
  if (n < 2 * kRowPiecePoints || most == 0) return cuts;
  // Each piece is narrower than a sixteenth of either slab beside it, so the pieces together are narrower than an
  // eighth of the slabs, which span more than 8/9 of the group. widest_gap_along's n buckets of width span / (n - 1)
  // then leave more than 8/9 (n - 1) - 2m of them empty (each slab of width g holds g / width - 2 at least): spread
  // data, a third of them empty or so (normal data about half), is refused here, before any sort.
  double below = 0.0, above = 0.0;
  widest_gap_along(points, k, buckets, below, above);
  if (!(above > below)) return cuts;
  size_t empty = 0;
  for (const Bucket& b : buckets) empty += b.lo <= b.hi ? 0 : 1;
  if (9.0 * (static_cast<double>(empty) + 2.0 * static_cast<double>(most)) < 8.0 * static_cast<double>(n - 1))
    return cuts;
  std::sort(points.begin(), points.end(), [k](const SamplePoint& p, const SamplePoint& q) { return p.v[k] < q.v[k]; });
  // The slabs by width, widest first (slab i lies between sorted points i and i + 1).
  std::vector<size_t> widest(n - 1);
  for (size_t i = 0; i + 1 < n; ++i) widest[i] = i;
  const size_t candidates = std::min(most, n / kRowPiecePoints - 1);
  const auto width = [&](size_t i) { return points.first[i + 1].v[k] - points.first[i].v[k]; };
  std::partial_sort(widest.begin(), widest.begin() + candidates, widest.end(),
                    [&](size_t x, size_t y) { return width(x) > width(y) || (width(x) == width(y) && x < y); });
  std::vector<size_t> at;
  for (size_t m = candidates; m >= 1; --m) {
    at.assign(widest.begin(), widest.begin() + m);
    std::sort(at.begin(), at.end());
    // A piece's extent along k: its first and last point's.
    const auto piece_span = [&](size_t piece) {
      const size_t first = piece == 0 ? 0 : at[piece - 1] + 1, last = piece == m ? n - 1 : at[piece];
      return points.first[last].v[k] - points.first[first].v[k];
    };
    const auto piece_points = [&](size_t piece) {
      return (piece == m ? n - 1 : at[piece]) - (piece == 0 ? 0 : at[piece - 1] + 1) + 1;
    };
    bool parts = width(at[0]) > 0.0 && piece_points(0) >= kRowPiecePoints;
    for (size_t c = 0; c < m && parts; ++c)
      parts = piece_points(c + 1) >= kRowPiecePoints &&
              width(at[c]) > kIslandGap * std::max(piece_span(c), piece_span(c + 1));
    if (!parts) continue;
    for (const size_t i : at) cuts.push_back(points.first[i].v[k] + 0.5 * width(i));
    return cuts;
  }
  return cuts;
}

int cut_group(Group points, int island, IslandPlan& plan, std::vector<Bucket>& buckets);

// The group (sorted along axis k) cut at each of `cuts` in turn: a chain of cuts, each with a piece below it and the
// rest of the row above. The pieces' islands are numbered before any piece is cut further, so the budget holds.
int cut_row(Group points, int island, int k, const std::vector<double>& cuts, IslandPlan& plan,
            std::vector<Bucket>& buckets) {
  std::vector<int> piece_island(cuts.size() + 1, island);
  for (size_t c = 1; c <= cuts.size(); ++c) piece_island[c] = plan.islands++;
  std::vector<int> node(cuts.size());
  size_t begin = 0;
  for (size_t c = 0; c < cuts.size(); ++c) {
    node[c] = static_cast<int>(plan.cuts.size());
    plan.cuts.push_back(IslandCut{k, cuts[c], -1, -1});
    if (c > 0) plan.cuts[node[c - 1]].above = node[c];
    size_t end = begin;
    while (end < points.n && points.first[end].v[k] < cuts[c]) ++end;
    plan.cuts[node[c]].below = cut_group(Group{points.first + begin, end - begin}, piece_island[c], plan, buckets);
    begin = end;
  }
  plan.cuts[node.back()].above =
      cut_group(Group{points.first + begin, points.n - begin}, piece_island.back(), plan, buckets);
  return node[0];
}

// The island of v under the plan's child code `code` (a node, or ~island).
int island_under(const IslandPlan& plan, int code, const double v[3]) {
  while (code >= 0) {
    const IslandCut& c = plan.cuts[static_cast<size_t>(code)];
    code = v[c.axis] < c.at ? c.below : c.above;
  }
  return ~code;
}

// Whether the islands a row's cuts (`code`: the row cut at `cuts` along k, its pieces in order) ended in are each
// more than kIslandGap times narrower (largest side) than the slabs on either side of their piece.
bool row_parts(Group points, int k, const std::vector<double>& cuts, const IslandPlan& plan, int code) {
  std::vector<Extent3> box(static_cast<size_t>(plan.islands));
  std::vector<std::vector<int>> in_piece(cuts.size() + 1);
  std::vector<double> lo(cuts.size() + 1, INFINITY), hi(cuts.size() + 1, -INFINITY);
  size_t piece = 0;
  for (const SamplePoint& p : points) {
    while (piece < cuts.size() && !(p.v[k] < cuts[piece])) ++piece;
    const int w = island_under(plan, code, p.v);
    if (!(box[w].lo[0] <= box[w].hi[0])) in_piece[piece].push_back(w);
    box[w].add(p.v);
    lo[piece] = std::min(lo[piece], p.v[k]);
    hi[piece] = std::max(hi[piece], p.v[k]);
  }
  for (size_t c = 0; c < cuts.size(); ++c) {
    const double slab = lo[c + 1] - hi[c];
    for (const size_t side : {c, c + 1})
      for (const int w : in_piece[side])
        if (!(slab > kIslandGap * box[w].largest_side())) return false;
  }
  return true;
}

// Cuts a group of sample points (island `island` so far) where it parts (widest_gap, else a row's cuts that its
// pieces bear out), then each part, while the budget of islands lasts; the group is reordered in place (no copies:
// on this VM a plan's fresh pages cost more than its arithmetic). Returns the group's child code in the plan (a
// node, or ~island).
int cut_group(Group points, int island, IslandPlan& plan, std::vector<Bucket>& buckets) {
  const Gap gap = points.size() >= 2 && plan.islands < kMaxIslands ? widest_gap(points, buckets) : Gap{};
  if (gap.axis < 0 || gap.ratio < kIslandGap) {
    // A row needs two cuts or more.
    if (!plan.rows || points.size() < 3 || plan.islands + 1 >= kMaxIslands) return ~island;
    for (int k = 0; k < 3; ++k) {
      const std::vector<double> cuts = row_cuts(points, k, static_cast<size_t>(kMaxIslands - plan.islands), buckets);
      if (cuts.size() < 2) continue;
      const size_t cuts_before = plan.cuts.size();
      const int islands_before = plan.islands;
      // The pieces stay in order along k: cutting each further reorders it within its own range only.
      const int code = cut_row(points, island, k, cuts, plan, buckets);
      if (row_parts(points, k, cuts, plan, code)) return code;
      plan.cuts.resize(cuts_before);  // undone: the row's cuts and everything below them
      plan.islands = islands_before;
    }
    return ~island;
  }
  const auto middle = std::partition(points.begin(), points.end(),
                                     [&](const SamplePoint& p) { return p.v[gap.axis] < gap.at; });
  const size_t below = static_cast<size_t>(middle - points.begin());
  const int node = static_cast<int>(plan.cuts.size());
  plan.cuts.push_back(IslandCut{gap.axis, gap.at, -1, -1});
  const int above_island = plan.islands++;  // taken before the part below is cut further: the budget holds
  const int below_code = cut_group(Group{points.first, below}, island, plan, buckets);
  const int above_code = cut_group(Group{points.first + below, points.n - below}, above_island, plan, buckets);
  plan.cuts[node].below = below_code;
  plan.cuts[node].above = above_code;
  return node;
}

}  // namespace

int IslandPlan::island_of(double x, double y, double z) const {
  if (cuts.empty()) return 0;
  const double v[3] = {x, y, z};
  int at = 0;
  for (;;) {
    const IslandCut& c = cuts[at];
    const int next = v[c.axis] < c.at ? c.below : c.above;
    if (next < 0) return ~next;
    at = next;
  }
}

IslandPlan plan_islands(const xhd_points& a, const xhd_points* b, bool rows) {
  std::vector<SamplePoint> sample;
  sample_set(a, false, sample);
  if (b != nullptr) sample_set(*b, true, sample);
  IslandPlan plan;
  plan.rows = rows;
  std::vector<Bucket> buckets;
  buckets.reserve(sample.size());
  const int root = cut_group(Group{sample.data(), sample.size()}, 0, plan, buckets);
  if (root < 0) plan.cuts.clear();
  IslandCensus& census = plan.sample;
  census.a_count.assign(plan.islands, 0);
  census.b_count.assign(plan.islands, 0);
  census.box.assign(plan.islands, Extent3{});
  for (const SamplePoint& p : sample) {
    const int w = plan.island_of(p.v[0], p.v[1], p.v[2]);
    ++(p.in_b ? census.b_count : census.a_count)[w];
    census.box[w].add(p.v);
  }
  return plan;
}

namespace {

// One set's labels, counts per block and island, and boxes per island.
void assign_set(const xhd_points& set, const IslandPlan& plan, int threads, std::vector<uint8_t>& labels,
                std::vector<uint64_t>& count, std::vector<uint64_t>& first, std::vector<Extent3>& box) {
  const int n_islands = plan.islands;
  const PointTruth t = truth_of(set);
  constexpr size_t kBlock = IslandAssignment::kIslandBlock;
  const size_t blocks = (set.count + kBlock - 1) / kBlock;
  labels.resize(set.count);
  std::vector<uint64_t> in_block(blocks * n_islands, 0);
  std::mutex m;
  parallel_blocks(set.count, kBlock, threads, [&](size_t begin, size_t end, int) {
    uint64_t* counts = &in_block[(begin / kBlock) * n_islands];
    std::vector<Extent3> local(n_islands);
    for (size_t i = begin; i < end; ++i) {
      const double v[3] = {t.coord(i, 0), t.coord(i, 1), t.coord(i, 2)};
      const int w = plan.island_of(v[0], v[1], v[2]);
      labels[i] = static_cast<uint8_t>(w);
      ++counts[w];
      local[w].add(v);
    }
    std::lock_guard<std::mutex> lock(m);
    for (int w = 0; w < n_islands; ++w) box[w].merge(local[w]);
  });
  count.assign(n_islands, 0);
  first.assign(blocks * n_islands, 0);
  for (size_t blk = 0; blk < blocks; ++blk)
    for (int w = 0; w < n_islands; ++w) {
      first[blk * n_islands + w] = count[w];
      count[w] += in_block[blk * n_islands + w];
    }
}

double squared_gap(const Extent3& p, const Extent3& q) {
  double sum = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double d = std::max({0.0, p.lo[k] - q.hi[k], q.lo[k] - p.hi[k]});
    sum += d * d;
  }
  return sum;
}

// The squared distance between the farthest corners of two boxes.
double squared_farthest(const Extent3& p, const Extent3& q) {
  double sum = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double d = std::max(std::fabs(p.hi[k] - q.lo[k]), std::fabs(q.hi[k] - p.lo[k]));
    sum += d * d;
  }
  return sum;
}

double squared_diagonal(const Extent3& e) {
  double sum = 0.0;
  for (int k = 0; k < 3; ++k) sum += (e.hi[k] - e.lo[k]) * (e.hi[k] - e.lo[k]);
  return sum;
}

}  // namespace

IslandAssignment assign_islands(const xhd_points& a, const xhd_points& b, const IslandPlan& plan, int threads) {
  IslandAssignment out;
  out.islands = plan.islands;
  out.box.assign(plan.islands, Extent3{});
  assign_set(a, plan, threads, out.a_island, out.a_count, out.a_first, out.box);
  assign_set(b, plan, threads, out.b_island, out.b_count, out.b_first, out.box);
  return out;
}

bool island_compare_settled(const IslandCensus& s, int directions, bool orphans) {
  const bool ab = (directions & XHD_DIRECTION_AB) != 0, ba = (directions & XHD_DIRECTION_BA) != 0;
  int searched = 0;
  const int islands = static_cast<int>(s.box.size());
  for (int g = 0; g < islands; ++g) {
    const bool queries = (ab && s.a_count[g] > 0) || (ba && s.b_count[g] > 0);
    if (!queries) continue;
    if ((ab && island_orphaned(s, g, true)) || (ba && island_orphaned(s, g, false))) {
      if (!orphans) return false;
      ++searched;  // an island of one set: it holds no targets of its own to part from the others'
      continue;
    }
    ++searched;
    // A generous margin over the rounding of these sums and of the searches' exact_dist2 (a few ulps each): an
    // island passes only when its neighbours are kIslandGap times farther anyway, or near enough that.
    const double reach = squared_diagonal(s.box[g]) * (1.0 + 1e-6);
    if (!std::isfinite(reach)) return false;
    for (int h = 0; h < islands; ++h)
      if (h != g && s.a_count[h] + s.b_count[h] > 0 && !(squared_gap(s.box[g], s.box[h]) > reach)) return false;
  }
  return searched > 0;
}

std::vector<int> orphans_target_islands(const IslandCensus& s, bool from_a) {
  const int islands = static_cast<int>(s.box.size());
  const auto holds_targets = [&](int h) { return (from_a ? s.b_count[h] : s.a_count[h]) > 0; };
  std::vector<uint8_t> taken(islands, 0);
  for (int g = 0; g < islands; ++g) {
    if (!island_orphaned(s, g, from_a)) continue;
    // Every query of g has a target within the farthest corner of any island holding targets, from g's box; an
    // island whose box lies farther than the least of those holds no nearest target, nor one tied with it. The
    // margins are generous over these sums' rounding and exact_dist2's (a few ulps each).
    double reach = INFINITY;
    for (int h = 0; h < islands; ++h)
      if (holds_targets(h)) reach = std::min(reach, squared_farthest(s.box[g], s.box[h]));
    for (int h = 0; h < islands; ++h)
      if (holds_targets(h) && squared_gap(s.box[g], s.box[h]) * (1.0 - 1e-6) <= reach * (1.0 + 1e-6)) taken[h] = 1;
  }
  std::vector<int> out;
  for (int h = 0; h < islands; ++h)
    if (taken[h] != 0) out.push_back(h);
  return out;
}

xhd_points IslandPoints::view() const {
  xhd_points p{};
  p.count = index.size();
  if (xyz64.empty()) p.xyz = xyz.data();
  else p.xyz64 = xyz64.data();
  return p;
}

IslandPoints island_points(const xhd_points& set, const std::vector<uint8_t>& labels,
                           const std::vector<uint64_t>& first, uint64_t count, int islands, int w, int threads,
                           bool coordinates) {
  IslandPoints out;
  out.index.resize(count);
  if (!coordinates) {
    parallel_blocks(set.count, IslandAssignment::kIslandBlock, threads, [&](size_t begin, size_t end, int) {
      size_t at = first[(begin / IslandAssignment::kIslandBlock) * islands + w];
      for (size_t i = begin; i < end; ++i)
        if (labels[i] == w) out.index[at++] = static_cast<int64_t>(i);
    });
    return out;
  }
  if (set.xyz64 != nullptr) out.xyz64.resize(3 * count);
  else out.xyz.resize(3 * count);
  constexpr size_t kBlock = IslandAssignment::kIslandBlock;
  // Copies the island's points of one block from the set's coordinates (floats or doubles) into `to`.
  const auto gather = [&](const auto* from, auto* to, size_t begin, size_t end) {
    size_t at = first[(begin / kBlock) * islands + w];
    for (size_t i = begin; i < end; ++i) {
      if (labels[i] != w) continue;
      for (int k = 0; k < 3; ++k) to[3 * at + k] = from[3 * i + k];
      out.index[at++] = static_cast<int64_t>(i);
    }
  };
  parallel_blocks(set.count, kBlock, threads, [&](size_t begin, size_t end, int) {
    if (set.xyz64 != nullptr) gather(set.xyz64, out.xyz64.data(), begin, end);
    else gather(set.xyz, out.xyz.data(), begin, end);
  });
  return out;
}

}  // namespace xhd
