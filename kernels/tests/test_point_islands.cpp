// Islands (geometry/point_islands.h, island_compare.h): the cuts found between far groups and only there, the
// proof that decides whether searching each island alone gives the whole compare, and the compare put together
// from the islands' answers, which must equal a brute force over the whole sets to the bit (every point's distance
// and nearest index, both witnesses), its progress counted once over the islands.
#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "../abi/per_point.h"
#include "../abi/progress.h"
#include "../geometry/island_compare.h"
#include "../geometry/point_frame.h"
#include "../geometry/point_islands.h"
#include "check.h"

namespace {

xhd_points doubles(const std::vector<double>& xyz) { return xhd_points{nullptr, xyz.size() / 3, xyz.data()}; }

// n points in a unit cube at each offset in turn (point i in group i % offsets).
std::vector<double> grouped(size_t n, const std::vector<std::array<double, 3>>& offsets, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> xyz(3 * n);
  for (size_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) xyz[3 * i + k] = offsets[i % offsets.size()][k] + u(gen);
  return xyz;
}

xhd::PointTruth truth(const xhd_points& p) { return xhd::PointTruth{p.xyz, p.xyz64, p.count}; }

// Every source point's nearest target by brute force (ties to the smallest index), and the witness by per_point.h's
// rule, the outputs the island search and the whole reference both fill.
xhd::PerPointWitness brute(const xhd_points& source, const xhd_points& target, double* distance, int64_t* nearest) {
  const xhd::PointTruth s = truth(source), t = truth(target);
  xhd::PerPointWitness witness;
  for (size_t i = 0; i < source.count; ++i) {
    double best = INFINITY;
    int64_t at = XHD_NO_INDEX;
    for (size_t j = 0; j < target.count; ++j) {
      const double d2 = xhd::exact_dist2(s, i, t, j);
      if (d2 < best) best = d2, at = static_cast<int64_t>(j);
    }
    if (distance != nullptr) distance[i] = std::sqrt(best);
    if (nearest != nullptr) nearest[i] = at;
    witness.offer(best, static_cast<int64_t>(i), at);
  }
  return witness;
}

// The whole compare by brute force, as an island search does it on its own points.
void brute_compare(const xhd_points& a, const xhd_points& b, const xhd_per_point& out, xhd_hausdorff_result& r,
                   xhd_progress* progress, int* calls = nullptr) {
  brute(a, b, out.distance_ab, out.nearest_ab).write(r.ab);
  brute(b, a, out.distance_ba, out.nearest_ba).write(r.ba);
  r.ab.distance_evals = r.ba.distance_evals = a.count * b.count;
  const xhd::Progress p(progress);
  p.set_total(a.count + b.count);
  p.add(a.count + b.count);
  if (calls != nullptr) ++*calls;
}

xhd_hausdorff_options grid_options(int threads = 2) {
  xhd_hausdorff_options o{};
  o.method = XHD_METHOD_GRID;
  o.directions = XHD_DIRECTION_AB | XHD_DIRECTION_BA;
  o.threads = threads;
  return o;
}

}  // namespace

TEST(islands_found_between_far_groups_only) {
  const auto two = grouped(4000, {{0, 0, 0}, {1e7, 1e7, 0}}, 1);
  CHECK_EQ(xhd::plan_islands(doubles(two), nullptr).islands, 2);
  const auto one = grouped(4000, {{0, 0, 0}}, 2);
  CHECK_EQ(xhd::plan_islands(doubles(one), nullptr).islands, 1);
  // A gap 9 times a group's side is not an island's: one grid serves it.
  const auto near = grouped(4000, {{0, 0, 0}, {10, 0, 0}}, 3);
  CHECK_EQ(xhd::plan_islands(doubles(near), nullptr).islands, 1);
  // Three groups: the far one is cut off first, the two left are 3e4 apart, cut next.
  const auto three = grouped(6000, {{0, 0, 0}, {0, -5e4, 3e4}, {1e6, 0, 0}}, 4);
  const xhd::IslandPlan plan3 = xhd::plan_islands(doubles(three), nullptr);
  CHECK_EQ(plan3.islands, 3);
  CHECK(plan3.island_of(0.5, 0.5, 0.5) != plan3.island_of(0.5, -5e4, 3e4));
  CHECK(plan3.island_of(1e6, 0.5, 0.5) != plan3.island_of(0.5, 0.5, 0.5));
  // Both sets' samples: B's far group alone makes the cut.
  const auto b_far = grouped(2000, {{0, 0, 0}, {0, 0, 1e8}}, 5);
  const xhd_points b_far_points = doubles(b_far);
  CHECK_EQ(xhd::plan_islands(doubles(one), &b_far_points).islands, 2);
  // A row of evenly spaced groups: no one cut parts it (each side would hold several groups); row_cuts cut it.
  std::vector<std::array<double, 3>> row;
  for (int g = 0; g < 10; ++g) row.push_back({1e4 * g, 0, 0});
  CHECK_EQ(xhd::plan_islands(doubles(grouped(20000, row, 6)), nullptr).islands, 10);
  // Groups ever farther apart (each 20 times as far as the last: 19 times the span below it) are cut one by one,
  // up to kMaxIslands of them.
  std::vector<std::array<double, 3>> spreading;
  for (int g = 0; g < 70; ++g) spreading.push_back({std::pow(20.0, g), 0, 0});
  const xhd::IslandPlan plan_many = xhd::plan_islands(doubles(grouped(14000, spreading, 6)), nullptr);
  CHECK_EQ(plan_many.islands, xhd::kMaxIslands);
}

TEST(islands_settled_only_when_each_holds_its_targets_and_lies_apart) {
  const auto a = grouped(4000, {{0, 0, 0}, {1e7, 0, 0}}, 7);
  const auto b = grouped(4000, {{0, 0, 0}, {1e7, 0, 0}}, 8);
  const xhd_points b_points = doubles(b);
  const xhd::IslandPlan plan = xhd::plan_islands(doubles(a), &b_points);
  CHECK_EQ(plan.islands, 2);
  const xhd::IslandAssignment both = xhd::assign_islands(doubles(a), doubles(b), plan, 2);
  CHECK_EQ(both.a_count[0] + both.a_count[1], 4000u);
  CHECK_EQ(both.a_count[0], 2000u);
  CHECK(xhd::island_compare_settled(both, XHD_DIRECTION_AB | XHD_DIRECTION_BA));
  // B without its far group: A's far points have no target there; B -> A alone is still settled (that island
  // holds no query of it).
  const auto b_home = grouped(4000, {{0, 0, 0}}, 9);
  const xhd::IslandAssignment lacking = xhd::assign_islands(doubles(a), doubles(b_home), plan, 2);
  CHECK(!xhd::island_compare_settled(lacking, XHD_DIRECTION_AB | XHD_DIRECTION_BA));
  CHECK(!xhd::island_compare_settled(lacking, XHD_DIRECTION_AB));
  CHECK(xhd::island_compare_settled(lacking, XHD_DIRECTION_BA));
  // With orphans allowed, A's far island is searched against B's targets elsewhere (island_orphans.h).
  CHECK(xhd::island_compare_settled(lacking, XHD_DIRECTION_AB | XHD_DIRECTION_BA, true));
  CHECK(xhd::island_orphaned(lacking, lacking.a_count[0] == 2000u && lacking.b_count[0] == 0 ? 0 : 1, true));
  CHECK_EQ(xhd::orphans_target_islands(lacking, true).size(), size_t(1));
  CHECK(xhd::orphans_target_islands(lacking, false).empty());
  // A point of B the sample missed lands in an island by the cuts and stretches its box towards the other island:
  // the islands are then too close to prove anything, and the compare is searched whole.
  auto b_stray = b;
  b_stray[1] = b_stray[2] = 1e7;  // point 0 of the home group moved 1e7 along y and z: x keeps it home
  const xhd::IslandAssignment stray = xhd::assign_islands(doubles(a), doubles(b_stray), plan, 2);
  CHECK(!xhd::island_compare_settled(stray, XHD_DIRECTION_AB | XHD_DIRECTION_BA));
  CHECK(!xhd::island_compare_settled(stray, XHD_DIRECTION_AB | XHD_DIRECTION_BA, true));
}

// What check_against_brute saw: the island searches made, and A -> B's evaluations.
struct IslandRun {
  int calls = 0;
  uint64_t ab_evals = 0;
};

// Runs compare_by_islands with a brute-force island search and checks every output against the brute force over
// the whole sets, progress included.
IslandRun check_against_brute(const xhd_points& pa, const xhd_points& pb, int threads) {
  std::vector<double> want_ab(pa.count), want_ba(pb.count), got_ab(pa.count, -1), got_ba(pb.count, -1);
  std::vector<int64_t> want_nab(pa.count), want_nba(pb.count), got_nab(pa.count, -7), got_nba(pb.count, -7);
  xhd_hausdorff_result want{};
  brute_compare(pa, pb, xhd_per_point{want_ab.data(), want_nab.data(), want_ba.data(), want_nba.data()}, want,
                nullptr);
  xhd_hausdorff_result got{};
  const xhd_per_point out{got_ab.data(), got_nab.data(), got_ba.data(), got_nba.data()};
  xhd_progress progress{};
  int calls = 0;
  const bool split = xhd::compare_by_islands(
      pa, pb, grid_options(threads), &out, got, &progress,
      [&](const xhd_points& ia, const xhd_points& ib, const xhd_per_point& o, xhd_hausdorff_result& r,
          xhd_progress* p) { brute_compare(ia, ib, o, r, p, &calls); });
  CHECK(split);
  CHECK(got_ab == want_ab);
  CHECK(got_nab == want_nab);
  CHECK(got_ba == want_ba);
  CHECK(got_nba == want_nba);
  for (const auto& [g, w] : {std::pair{got.ab, want.ab}, std::pair{got.ba, want.ba}}) {
    CHECK_EQ(g.distance, w.distance);
    CHECK_EQ(g.from_index, w.from_index);
    CHECK_EQ(g.to_index, w.to_index);
  }
  CHECK_EQ(progress.done, pa.count + pb.count);
  CHECK_EQ(progress.total, pa.count + pb.count);
  return IslandRun{calls, got.ab.distance_evals};
}

TEST(islands_compare_equals_the_whole_brute_force) {
  // Three groups of A and B with copies and ties inside a group, doubles and floats.
  auto a = grouped(3000, {{0, 0, 0}, {0, -5e4, 3e4}, {1e6, 0, 0}}, 10);
  auto b = grouped(2400, {{0, 0, 0}, {0, -5e4, 3e4}, {1e6, 0, 0}}, 11);
  for (int i = 30; i < 60; i += 3) std::copy(&b[0], &b[3], &a[3 * i]);  // A points equal to B's point 0
  for (int i = 300; i < 330; i += 3) std::copy(&b[9], &b[12], &b[3 * i]);  // copies of B's point 3
  std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
  for (int floats = 0; floats < 2; ++floats) {
    const xhd_points pa = floats ? xhd_points{af.data(), af.size() / 3, nullptr} : doubles(a);
    const xhd_points pb = floats ? xhd_points{bf.data(), bf.size() / 3, nullptr} : doubles(b);
    const IslandRun run = check_against_brute(pa, pb, 2);
    CHECK_EQ(run.calls, 3);
    // The islands' pairs only: no pair across two islands was measured.
    CHECK(run.ab_evals < pa.count * pb.count / 2);
  }
}

TEST(islands_refused_leave_the_compare_to_the_caller) {
  const auto a = grouped(4000, {{0, 0, 0}, {1e7, 0, 0}}, 12);
  xhd_hausdorff_result r{};
  int calls = 0;
  const auto search = [&](const xhd_points&, const xhd_points&, const xhd_per_point&, xhd_hausdorff_result&,
                          xhd_progress*) { ++calls; };
  // A point of B the sample missed (one in 10 is sampled, point 0 always, point 1 never) stretches its island's
  // box to within reach of the other island: nothing is proven, and the compare is searched whole.
  const auto far_a = grouped(40000, {{0, 0, 0}, {1e7, 0, 0}}, 17);
  auto stray_b = grouped(40000, {{0, 0, 0}, {1e7, 0, 0}}, 18);
  stray_b[4] = stray_b[5] = 1e7;
  const xhd_points stray_points = doubles(stray_b);
  CHECK_EQ(xhd::plan_islands(doubles(far_a), &stray_points).islands, 2);
  CHECK(!xhd::compare_by_islands(doubles(far_a), stray_points, grid_options(), nullptr, r, nullptr, search));
  // The brute-force reference is never split, nor a small input.
  const auto b2 = grouped(4000, {{0, 0, 0}, {1e7, 0, 0}}, 14);
  xhd_hausdorff_options brute_method = grid_options();
  brute_method.method = XHD_METHOD_BRUTE;
  CHECK(!xhd::compare_by_islands(doubles(a), doubles(b2), brute_method, nullptr, r, nullptr, search));
  const auto small_a = grouped(1000, {{0, 0, 0}, {1e7, 0, 0}}, 15), small_b = grouped(1000, {{0, 0, 0}, {1e7, 0, 0}}, 16);
  CHECK(!xhd::compare_by_islands(doubles(small_a), doubles(small_b), grid_options(), nullptr, r, nullptr, search));
  CHECK_EQ(calls, 0);
  CHECK(xhd::compare_by_islands(doubles(a), doubles(b2), grid_options(), nullptr, r, nullptr, search));
  CHECK_EQ(calls, 2);
}

TEST(islands_of_one_set_are_searched_against_the_other_sets_targets) {
  // A and B share two groups; A alone has a third group, B alone a fourth, each far from the rest. The orphans' nearest
  // targets are copies of one point (ties to the smallest index), placed where they are every orphan's nearest.
  auto a = grouped(3000, {{0, 0, 0}, {1e6, 0, 0}, {0, -5e4, 3e4}}, 21);
  auto b = grouped(2400, {{0, 0, 0}, {1e6, 0, 0}, {1e6, 2e4, 0}}, 22);
  for (int i = 30; i < 300; i += 30) {  // B points 30, 60, ... (group 0) at one corner facing A's third group
    b[3 * i] = 0.5;
    b[3 * i + 1] = -1.0;
    b[3 * i + 2] = 1.0;
  }
  std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
  for (const int threads : {1, 2}) {
    CHECK_EQ(check_against_brute(doubles(a), doubles(b), threads).calls, 2);
    CHECK_EQ(check_against_brute(xhd_points{af.data(), af.size() / 3, nullptr},
                                 xhd_points{bf.data(), bf.size() / 3, nullptr}, threads).calls, 2);
  }
  // Two sets far apart from each other: every query an orphan, no island searched by the backend; and one far
  // point of A alone, which scans the targets.
  const auto alone_a = grouped(2500, {{0, 0, 0}}, 23), alone_b = grouped(2500, {{1e7, 2e7, 0}}, 24);
  CHECK_EQ(check_against_brute(doubles(alone_a), doubles(alone_b), 2).calls, 0);
  auto outlier = grouped(6000, {{0, 0, 0}}, 25);
  outlier[0] = 1e9;
  const auto home = grouped(6000, {{0, 0, 0}}, 26);
  CHECK_EQ(check_against_brute(doubles(outlier), doubles(home), 2).calls, 1);
}

TEST(islands_orphans_honour_cancel) {
  const auto a = grouped(6000, {{0, 0, 0}, {1e7, 0, 0}}, 27), b = grouped(6000, {{0, 0, 0}}, 28);
  xhd_hausdorff_result r{};
  xhd_progress progress{};
  progress.cancel = 1;
  bool cancelled = false;
  try {
    xhd::compare_by_islands(doubles(a), doubles(b), grid_options(), nullptr, r, &progress,
                            [&](const xhd_points&, const xhd_points&, const xhd_per_point&, xhd_hausdorff_result&,
                                xhd_progress*) {});
  } catch (const xhd::Cancelled&) {
    cancelled = true;
  }
  CHECK(cancelled);
}

TEST(islands_cut_a_row_of_evenly_spaced_groups) {
  // Five unit cubes 1e4 apart along x: no single slab parts them (each side holds several), every slab between two
  // neighbours is 1e4 times wider than they are.
  std::vector<std::array<double, 3>> row, lattice;
  for (int g = 0; g < 5; ++g) row.push_back({g * 1e4, 0, 0});
  const xhd::IslandPlan plan = xhd::plan_islands(doubles(grouped(20000, row, 31)), nullptr);
  CHECK_EQ(plan.islands, 5);
  CHECK_EQ(xhd::plan_islands(doubles(grouped(20000, row, 31)), nullptr, false).islands, 1);  // far gaps only
  for (int g = 1; g < 5; ++g) CHECK(plan.island_of(g * 1e4 + 0.5, 0.5, 0.5) != plan.island_of((g - 1) * 1e4 + 0.5, 0.5, 0.5));
  // A lattice of 4 x 4 x 4 groups 1e3 apart: 64 islands, the most a plan makes.
  for (int g = 0; g < 64; ++g) lattice.push_back({(g % 4) * 1e3, (g / 4 % 4) * 1e3, (g / 16) * 1e3});
  CHECK_EQ(xhd::plan_islands(doubles(grouped(64000, lattice, 32)), nullptr).islands, 64);
  // At 4,096 runs of 48 points, each sampled once: a jitter of run * 2654435761 % 48 (which is run % 48) saw 48 of
  // the 64 groups.
  CHECK_EQ(xhd::plan_islands(doubles(grouped(4096 * 48, lattice, 39)), nullptr).islands, 64);
  // Groups whose gaps are not 16 times their widths stay together, and so does spread data with a far tail point.
  // Three parallel walls 10 apart stay together: each is wider than its gaps.
  std::vector<std::array<double, 3>> close;
  for (int g = 0; g < 5; ++g) close.push_back({g * 10.0, 0, 0});
  CHECK_EQ(xhd::plan_islands(doubles(grouped(20000, close, 33)), nullptr).islands, 1);
  auto tail = grouped(20000, {{0, 0, 0}}, 34);
  tail[0] = 1.5;
  tail[3] = 2.2;
  CHECK_EQ(xhd::plan_islands(doubles(tail), nullptr).islands, 1);
  auto walls = grouped(6000, {{0, 0, 0}, {10, 0, 0}, {20, 0, 0}}, 37);
  for (size_t i = 0; i < walls.size(); i += 3) walls[i + 1] *= 100, walls[i + 2] *= 100, walls[i] = std::floor(walls[i]);
  CHECK_EQ(xhd::plan_islands(doubles(walls), nullptr).islands, 1);
  // Floats of a unit cube at 1e6 take 16 values along x (steps of 1/16): slabs of no width, wide across, not cut.
  std::vector<float> quantized(3 * 6000);
  const auto cube = grouped(6000, {{1e6, 0, 0}}, 38);
  for (size_t i = 0; i < cube.size(); ++i) quantized[i] = static_cast<float>(cube[i]);
  CHECK_EQ(xhd::plan_islands(xhd_points{quantized.data(), 6000, nullptr}, nullptr).islands, 1);
  // A row searched by islands equals the brute force.
  std::vector<std::array<double, 3>> three;
  for (int g = 0; g < 3; ++g) three.push_back({0, g * 5e3, 0});
  auto a = grouped(2400, three, 35), b = grouped(2100, three, 36);
  CHECK_EQ(check_against_brute(doubles(a), doubles(b), 2).calls, 3);
}
