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
  // of sets whose groups interleave (point i in group i % 2, and a stride of 4).
  for (size_t run = 0; run * stride < set.count; ++run) {
    const size_t i = std::min(set.count - 1, run * stride + (run * 2654435761u) % stride);
    SamplePoint p{{t.coord(i, 0), t.coord(i, 1), t.coord(i, 2)}, in_b};
    if (std::isfinite(p.v[0]) && std::isfinite(p.v[1]) && std::isfinite(p.v[2])) out.push_back(p);
  }
}

// The widest empty slab between a group's sample points along any axis, measured against the larger of the two
// groups it would part (its largest side): ratio 0 when no axis has one. Against the smaller, the tail of any cloud
// would be cut off point by point (its last point is a group of side 0); the price is that a row of evenly spaced
// groups is not cut at all.
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

// Cuts a group of sample points (island `island` so far) where it parts (widest_gap), then each part, while the
// budget of islands lasts; the group is reordered in place (no copies: on this VM a plan's fresh pages cost more
// than its arithmetic). Returns the group's child code in the plan (a node, or ~island).
int cut_group(Group points, int island, IslandPlan& plan, std::vector<Bucket>& buckets) {
  const Gap gap = points.size() >= 2 && plan.islands < kMaxIslands ? widest_gap(points, buckets) : Gap{};
  if (gap.axis < 0 || gap.ratio < kIslandGap) return ~island;
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

IslandPlan plan_islands(const xhd_points& a, const xhd_points* b) {
  std::vector<SamplePoint> sample;
  sample_set(a, false, sample);
  if (b != nullptr) sample_set(*b, true, sample);
  IslandPlan plan;
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
                           const std::vector<uint64_t>& first, uint64_t count, int islands, int w, int threads) {
  IslandPoints out;
  out.index.resize(count);
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
