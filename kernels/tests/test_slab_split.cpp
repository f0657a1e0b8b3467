// The split of a points compare by space (geometry/slab_split.h): slabs that hold about equal shares, parts
// that keep their points in the set's order, and the proof that decides whether a direction's answer over
// the parts is the whole set's. Every direction is also computed by brute force over the parts and over the
// whole sets: whenever halo_settles says yes, the two agree to the bit (distance and both indices), and the
// cases built to fool the parts (the true nearest just beyond the halo) are refused.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "../abi/per_point.h"
#include "../geometry/point_frame.h"
#include "../geometry/slab_split.h"
#include "check.h"
#include "random_points.h"

namespace {

xhd_points doubles(const std::vector<double>& xyz) { return xhd_points{nullptr, xyz.size() / 3, xyz.data()}; }

// Directed HD of source over target by brute force, per_point.h's rule, in the sets' own indices; only the
// sources with in_slab set when it is given.
xhd::PerPointWitness brute_directed(const xhd::FramedSet& source, const xhd::FramedSet& target,
                                    const uint8_t* in_slab = nullptr) {
  xhd::PerPointWitness best;
  for (size_t i = 0; i < source.count; ++i) {
    if (in_slab != nullptr && !in_slab[i]) continue;
    double nearest = INFINITY;
    int64_t to = XHD_NO_INDEX;
    for (size_t j = 0; j < target.count; ++j) {
      const double d2 = xhd::exact_dist2(source.truth, i, target.truth, j);
      if (d2 < nearest) {
        nearest = d2;
        to = static_cast<int64_t>(j);
      }
    }
    if (to != XHD_NO_INDEX) best.offer(nearest, static_cast<int64_t>(i), to);
  }
  return best;
}

// A -> B over the slab parts as the workers compute it: each slab's queries against B's part within halo,
// the witnesses put back into the sets' indices and merged. unsettled: some slab's queries had no target.
struct PartsAnswer {
  xhd::PerPointWitness best;
  bool empty_target = false;
};

PartsAnswer over_parts(const xhd::PointFrame& frame, const xhd::SlabPlan& plan, double halo) {
  PartsAnswer answer;
  const std::vector<xhd::SlabPart> parts_a = xhd::slab_parts(frame.a, plan, 0.0, 3);
  const std::vector<xhd::SlabPart> parts_b = xhd::slab_parts(frame.b, plan, halo, 2);
  for (int w = 0; w < plan.slabs(); ++w) {
    const xhd::SlabPart& a = parts_a[w];
    const xhd::SlabPart& b = parts_b[w];
    if (a.slab_count > 0 && b.set.count == 0) answer.empty_target = true;
    const xhd::PerPointWitness local = brute_directed(a.set, b.set, a.in_slab.data());
    if (local.from != XHD_NO_INDEX)
      answer.best.offer(local.dist2, a.set.input_of(local.from), b.set.input_of(local.to));
  }
  return answer;
}

xhd::PointFrame frame_of(const std::vector<double>& a, const std::vector<double>& b) {
  xhd::PointFrame frame;
  const xhd_points pa = doubles(a), pb = doubles(b);
  xhd::frame_points(pa, &pb, 2, frame);
  return frame;
}

// The parts' answer when the proof accepts it must be the whole sets' one; returns whether it accepted.
bool settles_exactly(const xhd::PointFrame& frame, int workers, double halo) {
  const xhd::SlabPlan plan = xhd::plan_slabs(frame, workers);
  const PartsAnswer parts = over_parts(frame, plan, halo);
  const bool settled = !parts.empty_target && xhd::halo_settles(parts.best.dist2, xhd::halo_gap(plan, halo));
  if (settled) {
    const xhd::PerPointWitness whole = brute_directed(frame.a, frame.b);
    CHECK_EQ(parts.best.dist2, whole.dist2);
    CHECK_EQ(parts.best.from, whole.from);
    CHECK_EQ(parts.best.to, whole.to);
  }
  return settled;
}

}  // namespace

TEST(slabs_cut_the_longest_axis_into_equal_shares) {
  xhd_test::Random rng(71);
  std::vector<double> a(3 * 4000), b(3 * 4000);
  for (size_t i = 0; i < a.size(); i += 3) {
    a[i] = rng.uniform(0, 1);
    a[i + 1] = rng.uniform(0, 8);  // y is the long axis
    a[i + 2] = rng.uniform(0, 1);
  }
  for (size_t i = 0; i < b.size(); ++i) b[i] = a[i] + 0.01;
  const xhd::PointFrame frame = frame_of(a, b);
  const xhd::SlabPlan plan = xhd::plan_slabs(frame, 4);
  CHECK_EQ(plan.axis, 1);
  CHECK_EQ(plan.slabs(), 4);
  CHECK(std::is_sorted(plan.cuts.begin(), plan.cuts.end()));
  for (int w = 1; w < 4; ++w) CHECK_NEAR(plan.cuts[w - 1], 2.0 * w, 0.3);
  CHECK(std::isinf(plan.lo(0)) && plan.lo(0) < 0);
  CHECK(std::isinf(plan.hi(3)) && plan.hi(3) > 0);
  CHECK_EQ(xhd::plan_slabs(frame, 1).slabs(), 1);  // one worker: no cut

  // Every point in exactly one slab; a part keeps the set's order, names its points by their index in the
  // set, and holds exactly the points within the halo.
  const double halo = 0.25;
  size_t in_slabs = 0;
  const std::vector<xhd::SlabPart> parts = xhd::slab_parts(frame.a, plan, halo, 3);
  CHECK_EQ(parts.size(), size_t(4));
  for (int w = 0; w < plan.slabs(); ++w) {
    const xhd::SlabPart& part = parts[w];
    in_slabs += part.slab_count;
    size_t expected = 0;
    for (size_t i = 0; i < frame.a.count; ++i) {
      const double y = frame.a.truth.coord(i, 1);
      expected += y >= plan.lo(w) - halo && y <= plan.hi(w) + halo;
    }
    CHECK_EQ(part.set.count, expected);
    bool ordered = true, flags_right = true;
    size_t flagged = 0;
    for (size_t i = 0; i < part.set.count; ++i) {
      if (i > 0) ordered = ordered && part.set.input_of(i) > part.set.input_of(i - 1);
      const size_t parent = static_cast<size_t>(part.set.input_of(i));
      const double y = frame.a.truth.coord(parent, 1);
      flags_right = flags_right && (part.in_slab[i] != 0) == (y >= plan.lo(w) && y < plan.hi(w));
      for (int k = 0; k < 3; ++k) flags_right = flags_right && part.set.truth.coord(i, k) == frame.a.truth.coord(parent, k);
      flagged += part.in_slab[i] != 0;
    }
    CHECK(ordered);
    CHECK(flags_right);
    CHECK_EQ(flagged, part.slab_count);
    CHECK_NEAR(xhd::part_share(frame.a, plan, w, halo), double(part.set.count) / frame.a.count, 0.05);
  }
  CHECK_EQ(in_slabs, frame.a.count);
}

TEST(the_plan_and_the_halo_guess_look_past_far_points) {
  // y is the long axis of the bulk; A also holds a point at x = 1e9, or a cluster of 2% of its points there.
  xhd_test::Random rng(73);
  std::vector<double> a(3 * 4000), b;
  for (size_t i = 0; i < a.size(); i += 3) {
    a[i] = rng.uniform(0, 1);
    a[i + 1] = rng.uniform(0, 8);
    a[i + 2] = rng.uniform(0, 1);
  }
  for (size_t i = 0; i < a.size(); ++i) b.push_back(a[i] + 0.01);
  const xhd::PointFrame plain = frame_of(a, b);
  const double guess_ab = xhd::halo_guess(plain.a, plain.b), guess_ba = xhd::halo_guess(plain.b, plain.a);
  std::vector<double> one = a, cluster = a;
  one[0] = 1e9;
  for (size_t i = 0; i < 80; ++i) cluster[3 * i] = 1e9 + 1e-3 * rng.uniform(0, 1);
  for (const std::vector<double>* far : {&one, &cluster}) {
    const xhd::PointFrame frame = frame_of(*far, b);
    CHECK_EQ(xhd::plan_slabs(frame, 4).axis, 1);
    // The guesses measure the bulk: within a few percent of the guesses without the far points, where the whole
    // boxes would make them about 1e9 (A to B) and the spacing of a box a billion wide (B to A).
    CHECK_NEAR(xhd::halo_guess(frame.a, frame.b), guess_ab, 0.1 * guess_ab);
    CHECK_NEAR(xhd::halo_guess(frame.b, frame.a), guess_ba, 0.1 * guess_ba);
  }
}

TEST(slab_layout_gathers_each_part_as_the_copied_parts_hold_it) {
  // Several blocks of the layout and a short last one; gathered in runs of blocks cut anywhere, as the staged
  // upload's pieces cut them.
  xhd_test::Random rng(73);
  const size_t n = 3 * xhd::SlabLayout::kBlockPoints + 1234;
  std::vector<float> a(3 * n), b(3 * 1000);
  for (float& v : a) v = static_cast<float>(rng.uniform(0, 1));
  for (float& v : b) v = static_cast<float>(rng.uniform(0, 1));
  const xhd_points pa{a.data(), n, nullptr}, pb{b.data(), 1000, nullptr};
  xhd::PointFrame frame;
  xhd::frame_points(pa, &pb, 2, frame);
  const xhd::SlabPlan plan = xhd::plan_slabs(frame, 3);
  CHECK_EQ(plan.slabs(), 3);
  const double halo = 0.05;
  // Points on and beside every edge (the cuts, which are sampled points' coordinates, and the halos' edges in
  // double), where comparing the floats in float must decide as comparing them in double does.
  size_t at = 0;
  for (int w = 0; w < plan.slabs(); ++w)
    for (const double edge : {plan.lo(w), plan.hi(w), plan.lo(w) - halo, plan.hi(w) + halo}) {
      if (!std::isfinite(edge)) continue;
      const float near = static_cast<float>(edge);
      for (const float x : {std::nextafter(near, -INFINITY), near, std::nextafter(near, INFINITY)})
        a[3 * (at++ * 997) + plan.axis] = x;
    }
  const xhd::SlabLayout layout = xhd::slab_layout(frame.a, plan, halo, 3);
  bool bits_by_definition = true;
  for (size_t i = 0; i < n; ++i) {
    const double x = a[3 * i + plan.axis];
    for (int w = 0; w < plan.slabs(); ++w) {
      const bool held = (layout.held[w][i / 64] >> (i % 64)) & 1, own = (layout.own[w][i / 64] >> (i % 64)) & 1;
      bits_by_definition = bits_by_definition && held == (x >= plan.lo(w) - halo && x <= plan.hi(w) + halo) &&
                           own == (x >= plan.lo(w) && x < plan.hi(w));
    }
  }
  CHECK(bits_by_definition);
  const std::vector<xhd::SlabPart> parts = xhd::slab_parts(frame.a, plan, halo, 2);
  CHECK_EQ(layout.blocks(), size_t(4));
  uint64_t slab_points = 0;
  for (int w = 0; w < plan.slabs(); ++w) {
    const xhd::SlabPart& part = parts[w];
    CHECK_EQ(layout.size[w], part.set.count);
    CHECK_EQ(layout.slab_count[w], part.slab_count);
    slab_points += layout.slab_count[w];
    // The bits: a held point is one of the part's, in order; an own one is flagged in the slab.
    uint64_t u = 0;
    bool bits_right = true;
    for (size_t i = 0; i < n; ++i) {
      const bool held = (layout.held[w][i / 64] >> (i % 64)) & 1, own = (layout.own[w][i / 64] >> (i % 64)) & 1;
      bits_right = bits_right && (held || !own);
      if (!held) continue;
      bits_right = bits_right && u < part.set.count && part.set.input_of(static_cast<int64_t>(u)) == static_cast<int64_t>(i) &&
                   (part.in_slab[u] != 0) == own;
      ++u;
    }
    CHECK(bits_right);
    CHECK_EQ(u, part.set.count);
    for (const size_t cut : {size_t(0), size_t(1), size_t(3), size_t(4)}) {
      std::vector<float> gathered(3 * part.set.count + 3, -1.f);
      xhd::gather_part(frame.a, layout, w, 0, cut, gathered.data(), 2);
      const uint64_t at = cut < layout.blocks() ? layout.first_of(cut, w) : layout.size[w];
      xhd::gather_part(frame.a, layout, w, cut, layout.blocks(), gathered.data() + 3 * at, 3);
      bool same = true;
      for (size_t k = 0; k < 3 * part.set.count; ++k) same = same && gathered[k] == part.set.xyz[k];
      CHECK(same);
      CHECK_EQ(gathered[3 * part.set.count], -1.f);  // nothing written beyond the part
    }
  }
  CHECK_EQ(slab_points, uint64_t(n));
}

TEST(slab_parts_give_the_whole_answer_when_the_halo_proves_it) {
  xhd_test::Random rng(72);
  int settled = 0, cases = 0;
  for (const double offset : {0.0, 4.2e6}) {  // survey coordinates: the halo's edges round
    for (const int workers : {2, 3, 4}) {
      std::vector<double> a = xhd_test::uniform_points(rng, 1500, offset, 1.0);
      std::vector<double> b = xhd_test::uniform_points(rng, 1200, offset, 1.0);
      // Ties: copies of some of A's points in B, shifted by an exact power of two along x.
      for (size_t i = 0; i < 300; ++i)
        for (int k = 0; k < 3; ++k) b[3 * i + k] = a[3 * (5 * i) + k] + (k == 0 ? 0.0078125 : 0.0);
      const xhd::PointFrame frame = frame_of(a, b);
      const double guess = xhd::halo_guess(frame.a, frame.b);
      CHECK(guess > 0);
      for (const double halo : {guess, 0.5 * guess, 0.25, 1e-6}) {
        settled += settles_exactly(frame, workers, halo);
        ++cases;
      }
      // A halo wider than the set: one part is the whole target, and the proof holds whatever the HD.
      CHECK(settles_exactly(frame, workers, 2.0));
    }
  }
  CHECK(settled >= cases / 2);  // the guesses and the wide halos do settle
  CHECK(settled < cases);       // and the 1e-6 halos do not: the check can refuse
}

TEST(the_true_nearest_beyond_the_halo_is_refused) {
  // A's points in x in [0, 1]; B's only points are far to the left and right, so that A's queries near the
  // middle cut have their nearest in the other slab's part, beyond any narrow halo. The parts' answer is then
  // too large, and the proof must refuse it.
  std::vector<double> a, b;
  for (int i = 0; i < 200; ++i) a.insert(a.end(), {i / 199.0, 0.0, 0.0});
  b.insert(b.end(), {-10.0, 0.0, 0.0, 11.0, 0.0, 0.0, 0.3, 5.0, 0.0});
  const xhd::PointFrame frame = frame_of(a, b);
  const xhd::SlabPlan plan = xhd::plan_slabs(frame, 2);
  CHECK_EQ(plan.slabs(), 2);
  for (const double halo : {0.05, 1.0, 4.0}) {
    const PartsAnswer parts = over_parts(frame, plan, halo);
    CHECK(!xhd::halo_settles(parts.best.dist2, xhd::halo_gap(plan, halo)) || parts.empty_target);
  }
  // Wide enough to hold every target: settled, and equal to the whole answer.
  CHECK(settles_exactly(frame, 2, 30.0));
}

TEST(halo_gap_is_below_the_distance_to_anything_beyond_the_halo) {
  xhd::SlabPlan plan;
  plan.axis = 0;
  plan.cuts = {4.2e6 + 0.1, 4.2e6 + 0.30000000000000004};
  for (const double halo : {1e-9, 0.001, 0.1}) {
    const double gap = xhd::halo_gap(plan, halo);
    CHECK(gap > 0 && gap <= halo * (1 + 1e-6));
    for (int w = 0; w < plan.slabs(); ++w) {
      // The nearest points beyond the halo's edges are one ulp out; the slab's own extreme points.
      if (std::isfinite(plan.lo(w))) {
        const double outside = std::nextafter(plan.lo(w) - halo, -INFINITY);
        CHECK(plan.lo(w) - outside > gap);
      }
      if (std::isfinite(plan.hi(w))) {
        const double outside = std::nextafter(plan.hi(w) + halo, INFINITY);
        const double last_inside = std::nextafter(plan.hi(w), -INFINITY);
        CHECK(outside - last_inside > gap);
      }
    }
  }
  CHECK(std::isinf(xhd::halo_gap(xhd::SlabPlan{}, 0.1)));  // one slab: nothing lies beyond it
  CHECK(xhd::halo_settles(1e300, INFINITY));
  CHECK(xhd::halo_settles(0.99, 1.0));
  CHECK(!xhd::halo_settles(1.0, 1.0));
}

TEST(edges_below_counts_alike_over_few_edges_and_many) {
  // Few edges are counted, many searched (slab_split.h): both must give the brute count, ties included.
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> uniform(-10.0, 10.0);
  for (const size_t size : {size_t(0), size_t(3), size_t(64), size_t(65), size_t(300)}) {
    std::vector<double> edges(size);
    for (double& e : edges) e = std::round(uniform(random) * 4) / 4;  // repeats, so x meets edges exactly
    std::sort(edges.begin(), edges.end());
    for (int k = 0; k < 500; ++k) {
      const double x = k % 3 == 0 && size > 0 ? edges[static_cast<size_t>(k) % size] : uniform(random);
      int at_most = 0, below = 0;
      for (const double e : edges) {
        at_most += e <= x;
        below += e < x;
      }
      CHECK_EQ(xhd::edges_below(edges, x, false), at_most);
      CHECK_EQ(xhd::edges_below(edges, x, true), below);
    }
  }
  xhd::SlabPlan plan;
  plan.cuts = {1.0, 2.0};
  CHECK_EQ(plan.slab_of(0.5), 0);
  CHECK_EQ(plan.slab_of(1.0), 1);  // a cut opens its slab: [lo, hi)
  CHECK_EQ(plan.slab_of(2.5), 2);
}
