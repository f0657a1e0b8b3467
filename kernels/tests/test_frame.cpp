// The frame the point searches run in (geometry/point_frame.h), the bulk box that keeps far outliers from
// sizing it (bulk_box.h), and the removal of exact duplicates (unique_points.h): the float copies must be
// within the bound the filters assume, outliers must be listed as loose, and every kept point must map
// back to the first copy of its group in the input.
#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <cmath>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "../abi/validate.h"
#include "../geometry/bulk_box.h"
#include "../geometry/filter_bounds.h"
#include "../geometry/inside_cube.h"
#include "../geometry/point_frame.h"
#include "../geometry/unique_points.h"
#include "check.h"
#include "random_points.h"

namespace {

xhd_points doubles(const std::vector<double>& xyz) { return xhd_points{nullptr, xyz.size() / 3, xyz.data()}; }
xhd_points floats(const std::vector<float>& xyz) { return xhd_points{xyz.data(), xyz.size() / 3, nullptr}; }

// Every float copy within float_copy_error(largest) of its double difference to the origin.
void check_copies(const xhd::PointFrame& frame, const xhd::FramedSet& set) {
  double largest = 0, worst = 0;
  for (size_t i = 0; i < set.count; ++i) {
    double e2 = 0;
    for (int k = 0; k < 3; ++k) {
      const double exact = set.truth.coord(i, k) - frame.origin[k];
      const double copy = set.xyz[3 * i + k];
      e2 += (copy - exact) * (copy - exact);
      largest = std::max(largest, std::fabs(copy));
    }
    worst = std::max(worst, std::sqrt(e2));
  }
  CHECK(largest <= frame.largest);
  CHECK(worst <= xhd::float_copy_error(frame.largest));
}

}  // namespace

TEST(frame_of_far_doubles) {
  // Survey coordinates: the origin moves to the data, and the copies keep their low bits.
  xhd_test::Random rng(21);
  const std::vector<double> a = xhd_test::uniform_points(rng, 3000, 4.2e6, 10.0);
  const std::vector<double> b = xhd_test::uniform_points(rng, 2000, 4.2e6 + 5, 10.0);
  const xhd_points pa = doubles(a), pb = doubles(b);
  xhd::PointFrame frame;
  xhd::frame_points(pa, &pb, 3, frame);
  for (int k = 0; k < 3; ++k) CHECK(frame.origin[k] > 4.2e6 && frame.origin[k] < 4.2e6 + 15);
  CHECK(frame.largest < 16.0);
  CHECK(!frame.has_loose());
  CHECK_EQ(frame.tight.slack, frame.bounds.slack);
  check_copies(frame, frame.a);
  check_copies(frame, frame.b);
}

TEST(frame_of_floats_is_in_place) {
  xhd_test::Random rng(22);
  const std::vector<float> a = xhd_test::to_float(xhd_test::uniform_points(rng, 500, -1, 2));
  const xhd_points pa = floats(a);
  xhd::PointFrame frame;
  xhd::frame_points(pa, nullptr, 1, frame);
  CHECK(frame.a.xyz == a.data());
  CHECK_EQ(frame.origin[0], 0.0);
  CHECK(frame.bounds.copies_exact);
}

TEST(frame_lists_far_outliers_as_loose) {
  // 5000 points in a unit cube and two far outliers, the last one the set's last point: they are loose, the
  // tight bounds shrink to the cube, and the inside copy holds every other point in order.
  xhd_test::Random rng(23);
  std::vector<double> a = xhd_test::uniform_points(rng, 5000, 0, 1);
  a[3 * 17] = 1e9;
  a.insert(a.end(), {-3e8, 2, 1});
  const std::vector<double> b = xhd_test::uniform_points(rng, 1000, 0, 1);
  const xhd_points pa = doubles(a), pb = doubles(b);
  xhd::PointFrame frame;
  xhd::frame_points(pa, &pb, 2, frame);
  CHECK(frame.has_loose());
  CHECK(frame.a.loose == std::vector<uint32_t>({17, 5000}));
  CHECK(frame.b.loose.empty());
  CHECK(std::isfinite(frame.cube));
  CHECK(frame.tight.slack < frame.bounds.slack);
  const xhd::InsideCube inside(frame.a);
  CHECK_EQ(inside.count, size_t(4999));
  bool same = true;
  for (uint32_t j = 0; j < inside.count; ++j) {
    const uint32_t i = xhd::original_index(frame.a.loose.data(), uint32_t(frame.a.loose.size()), j);
    same = same && i != 17 && i < 5000 && inside.xyz[3 * j] == frame.a.xyz[3 * i] &&
           inside.xyz[3 * j + 2] == frame.a.xyz[3 * i + 2];
  }
  CHECK(same);
}

TEST(frame_leaves_out_a_far_cluster) {
  // A cluster of 0.5% of the points far from the rest stretches the 0.1% bulk box over a billion units; the frame
  // takes the 1% core instead and lists the cluster as loose. Clusters in both sets with too many pairs between them,
  // or a halo a few times the bulk's size, keep the usual box.
  xhd_test::Random rng(28);
  const auto framed = [](const std::vector<double>& a, const std::vector<double>& b) {
    const xhd_points pa = doubles(a), pb = doubles(b);
    auto frame = std::make_unique<xhd::PointFrame>();
    xhd::frame_points(pa, &pb, 2, *frame);
    return frame;
  };
  const std::vector<double> b = xhd_test::uniform_points(rng, 20000, 0, 1);
  std::vector<double> a = xhd_test::uniform_points(rng, 20000, 0, 1);
  std::vector<uint32_t> cluster;
  for (uint32_t i = 0; i < 200; ++i) {
    const uint32_t at = 37 + 91 * i;
    for (int k = 0; k < 3; ++k) a[3 * at + k] = 1e9 + rng.uniform(0, 1e-3);
    cluster.push_back(at);
  }
  auto frame = framed(a, b);
  CHECK(frame->a.loose == cluster);
  CHECK(frame->b.loose.empty());
  CHECK(frame->cube < 4.f);
  check_copies(*frame, frame->b);

  // The same cluster in both sets: both listed.
  std::vector<double> b2 = b;
  for (uint32_t i = 0; i < 100; ++i)
    for (int k = 0; k < 3; ++k) b2[3 * (11 + 7 * i) + k] = 1e9 + rng.uniform(0, 1e-3);
  frame = framed(a, b2);
  CHECK_EQ(frame->a.loose.size(), size_t(200));
  CHECK_EQ(frame->b.loose.size(), size_t(100));

  // Past 4,096: a cluster may hold up to 1/64 of the points, 9,000 of A's 1,000,000 here. The same cluster in B
  // too would make 8.1e7 loose pairs, more than a frame settles pair by pair (2^26): the usual box, which holds them.
  std::vector<double> big_a = xhd_test::uniform_points(rng, 1000000, 0, 1), big_b = big_a;
  for (uint32_t i = 0; i < 9000; ++i)
    for (int k = 0; k < 3; ++k) {
      big_a[3 * (13 + 97 * i) + k] = 1e9 + rng.uniform(0, 1e-3);
      big_b[3 * (29 + 103 * i) + k] = 1e9 + rng.uniform(0, 1e-3);
    }
  const std::vector<double> clean_b = xhd_test::uniform_points(rng, 1000000, 0, 1);
  frame = framed(big_a, clean_b);
  CHECK_EQ(frame->a.loose.size(), size_t(9000));
  CHECK(frame->b.loose.empty());
  frame = framed(big_a, big_b);
  CHECK(!frame->has_loose());

  // A halo of 0.5% of the points spread over a box 8 times the bulk's: the usual box, not stretched enough to trade.
  std::vector<double> halo = a;
  for (uint32_t at : cluster)
    for (int k = 0; k < 3; ++k) halo[3 * at + k] = rng.uniform(-4, 4);
  frame = framed(halo, b);
  CHECK(!frame->has_loose());
}

TEST(frame_copies_of_a_lattice_are_exact) {
  // Voxel centres in double at spacings a float holds (1, 0.9375, 1.5 mm) from a survey-like corner: every copy
  // is its coordinate less the origin exactly, so the frame says so (no copy error in its bounds). One point off
  // the lattice by a thousandth, or a far outlier (loose points are settled beside the copies), and it does not.
  std::vector<double> a, b;
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 30; ++j) {
      a.insert(a.end(), {-120.0 + i * 1.0, 64.5 + j * 0.9375, 300.0 + (i + j) % 7 * 1.5});
      b.insert(b.end(), {-119.0 + j * 1.0, 63.5625 + i * 0.9375, 301.5 + (i * j) % 5 * 1.5});
    }
  xhd::PointFrame lattice;
  const xhd_points pa = doubles(a), pb = doubles(b);
  xhd::frame_points(pa, &pb, 2, lattice);
  CHECK(lattice.bounds.copies_exact);
  CHECK(lattice.tight.copies_exact);
  for (size_t i = 0; i < a.size() / 3; ++i)
    for (int k = 0; k < 3; ++k) CHECK_EQ(static_cast<double>(lattice.a.xyz[3 * i + k]) + lattice.origin[k], a[3 * i + k]);
  // Float squared distances are exact below 2^(24 + 2e), e the lowest bit of any copy (v = m 2^x, m in [0.5, 1)
  // holding 24 bits: its lowest set bit is at x - 24 + the trailing zeros of m 2^24).
  int unit = 1000;
  for (const xhd::FramedSet* set : {&lattice.a, &lattice.b})
    for (size_t i = 0; i < 3 * set->count; ++i) {
      if (set->xyz[i] == 0.f) continue;
      int x = 0;
      const double m = std::frexp(static_cast<double>(set->xyz[i]), &x);
      const uint32_t bits = static_cast<uint32_t>(std::fabs(std::ldexp(m, 24)));
      unit = std::min(unit, x - 24 + __builtin_ctz(bits));
    }
  CHECK(unit <= -1 && unit >= -5);  // half millimetres at least, sixteenths at most, less a centre
  CHECK_EQ(static_cast<double>(lattice.exact_below), std::ldexp(1.0, 24 + 2 * unit));
  std::vector<double> off = b;
  off[3 * 77 + 1] += 0.001;
  xhd::PointFrame near_lattice;
  const xhd_points pb_off = doubles(off);
  xhd::frame_points(pa, &pb_off, 2, near_lattice);
  CHECK(!near_lattice.bounds.copies_exact);
  CHECK(near_lattice.bounds.slack > lattice.bounds.slack);
  CHECK_EQ(near_lattice.exact_below, 0.f);
  std::vector<double> far = b;
  far.insert(far.end(), {1e9, 0, 0});
  xhd::PointFrame with_loose;
  const xhd_points pb_far = doubles(far);
  xhd::frame_points(pa, &pb_far, 2, with_loose);
  CHECK(with_loose.has_loose());
  CHECK(!with_loose.bounds.copies_exact && !with_loose.tight.copies_exact);
  CHECK_EQ(with_loose.exact_below, 0.f);
}

TEST(frame_of_one_repeated_point) {
  // Every point the same: nothing to size a bulk by, no loose points, copies all at the origin.
  const std::vector<double> a(3 * 100, 7.25);
  const xhd_points pa = doubles(a);
  xhd::PointFrame frame;
  xhd::frame_points(pa, &pa, 2, frame);
  CHECK(!frame.has_loose());
  CHECK_EQ(frame.origin[1], 7.25);
  CHECK_EQ(frame.largest, 0.0);
}

TEST(bulk_box_quantiles_and_extent) {
  std::vector<double> one{5.0};
  double lo = 0, hi = 0;
  xhd::tail_quantiles(one, 0.001, lo, hi);
  CHECK_EQ(lo, 5.0);
  CHECK_EQ(hi, 5.0);
  std::vector<double> values(1000);
  std::iota(values.begin(), values.end(), 1.0);
  std::reverse(values.begin(), values.end());
  xhd::tail_quantiles(values, 0.01, lo, hi);
  CHECK_EQ(lo, 10.0);
  CHECK_EQ(hi, 991.0);
  // The small-tail selection (a heap) against nth_element, on values with many ties, in several orders and sizes.
  for (size_t n : {size_t(2), size_t(65), size_t(1000), size_t(70000), size_t(131070)}) {
    xhd_test::Random tie_rng(static_cast<uint64_t>(n));
    std::vector<double> v(n);
    for (double& x : v) x = std::floor(tie_rng.uniform(0, 40));
    for (double tail : {0.001, 0.01, 0.2}) {
      std::vector<double> copy = v, sorted = v;
      std::sort(sorted.begin(), sorted.end());
      const size_t low = static_cast<size_t>(std::floor(tail * static_cast<double>(n - 1)));
      xhd::tail_quantiles(copy, tail, lo, hi);
      CHECK_EQ(lo, sorted[low]);
      CHECK_EQ(hi, sorted[n - 1 - low]);
    }
  }
  // The parallel extent over several blocks equals the plain one.
  xhd_test::Random rng(24);
  const std::vector<double> xyz = xhd_test::uniform_points(rng, 200000, -3, 6);
  const xhd::PointTruth t{nullptr, xyz.data(), xyz.size() / 3};
  const xhd::Extent3 e = xhd::extent_of(t, 3);
  for (int k = 0; k < 3; ++k) {
    double mn = INFINITY, mx = -INFINITY;
    for (size_t i = 0; i < t.count; ++i) mn = std::min(mn, xyz[3 * i + k]), mx = std::max(mx, xyz[3 * i + k]);
    CHECK_EQ(e.lo[k], mn);
    CHECK_EQ(e.hi[k], mx);
  }
  const xhd::BulkBoxes bulk = xhd::bulk_boxes(t, nullptr, e);
  CHECK(bulk.usual.contains(e) && e.contains(bulk.usual));  // uniform data: the bulk is everything
  CHECK(bulk.core.contains(e) && e.contains(bulk.core));

  // Two sets with far outliers, sampled (every step-th point) and whole: the one pass over blocks on several
  // threads gives the box of the definition, the tails of each axis's whole sample widened by their distance.
  for (size_t n : {size_t(5000), size_t(58000), size_t(200000)}) {
    std::vector<double> pa = xhd_test::uniform_points(rng, n, 0, 1), pb = xhd_test::uniform_points(rng, n / 3 + 7, 0.5, 2);
    for (size_t j = 0; j < 40; ++j) pa[3 * (j * 97 % n) + j % 3] = (j % 2 ? 1e6 : -3e5) + j;
    const xhd::PointTruth ta{nullptr, pa.data(), n}, tb{nullptr, pb.data(), pb.size() / 3};
    xhd::Extent3 all = xhd::extent_of(ta, 2);
    all.merge(xhd::extent_of(tb, 2));
    xhd::Extent3 want, want_core;
    for (int k = 0; k < 3; ++k) {
      std::vector<double> values;
      for (const xhd::PointTruth* s : {&ta, &tb}) {
        const size_t step = std::max<size_t>(1, s->count / 32768);
        for (size_t i = 0; i < s->count; i += step) values.push_back(s->coord(i, k));
      }
      for (auto [tail, box] : {std::pair{0.001, &want}, std::pair{0.01, &want_core}}) {
        double q_lo, q_hi;
        xhd::tail_quantiles(values, tail, q_lo, q_hi);
        box->lo[k] = std::max(all.lo[k], q_lo - (q_hi - q_lo));
        box->hi[k] = std::min(all.hi[k], q_hi + (q_hi - q_lo));
      }
    }
    for (int threads : {1, 3}) {
      const xhd::BulkBoxes got = xhd::bulk_boxes(ta, &tb, all, threads);
      for (int k = 0; k < 3; ++k) {
        CHECK_EQ(got.usual.lo[k], want.lo[k]);
        CHECK_EQ(got.usual.hi[k], want.hi[k]);
        CHECK_EQ(got.core.lo[k], want_core.lo[k]);
        CHECK_EQ(got.core.hi[k], want_core.hi[k]);
      }
    }
    CHECK(!want.contains(all));  // the outliers lie outside the bulk
    CHECK(want.contains(want_core));
  }
}

TEST(duplicates_dropped_to_first_copies) {
  // 100000 distinct points, the first 1000 rows written three times in a row, one point 20000 times at the
  // end, and -0 and +0 copies that must count as one point; float32 and double inputs alike. The 20000
  // copies are what the sample of 2^15 points is sure to meet (groups of three it may miss: unique_points.h
  // bounds what it can miss); then the full pass finds every group. Over 65536 points: several blocks.
  xhd_test::Random rng(25);
  const std::vector<double> distinct = xhd_test::uniform_points(rng, 100000, -1, 2);
  std::vector<double> xyz;
  for (size_t i = 0; i < 100000; ++i)
    for (int copy = 0; copy < (i < 1000 ? 3 : 1); ++copy)
      xyz.insert(xyz.end(), distinct.begin() + 3 * i, distinct.begin() + 3 * i + 3);
  for (int copy = 0; copy < 20000; ++copy) xyz.insert(xyz.end(), {0.5, 0.25, 0.125});
  xyz.insert(xyz.end(), {0.0, 1.0, 2.0, -0.0, 1.0, 2.0});
  const size_t n = xyz.size() / 3;
  for (int as_float = 0; as_float < 2; ++as_float) {
    const std::vector<float> xyz32 = xhd_test::to_float(xyz);
    const auto coord = [&](size_t i, int k) { return as_float ? double(xyz32[3 * i + k]) : xyz[3 * i + k]; };
    // The reference: each point's first copy, by a map whose key order holds -0 and +0 equal.
    std::map<std::array<double, 3>, size_t> first;
    std::vector<size_t> firsts;
    for (size_t i = 0; i < n; ++i)
      if (first.emplace(std::array<double, 3>{coord(i, 0), coord(i, 1), coord(i, 2)}, i).second) firsts.push_back(i);
    CHECK_EQ(firsts.size(), size_t(100002));
    const xhd_points p = as_float ? floats(xyz32) : doubles(xyz);
    xhd::PointFrame frame;
    xhd::frame_points(p, nullptr, 2, frame);
    CHECK(xhd::sample_has_duplicates(frame.a.truth));
    CHECK(xhd::drop_duplicates(frame.a, 2));
    CHECK_EQ(frame.a.count, firsts.size());
    bool mapped = frame.a.count == firsts.size();
    for (size_t u = 0; u < frame.a.count && mapped; ++u) {
      const int64_t i = frame.a.input_of(int64_t(u));
      mapped = i == int64_t(firsts[u]);
      for (int k = 0; k < 3; ++k) mapped = mapped && frame.a.truth.coord(u, k) == coord(size_t(i), k);
    }
    CHECK(mapped);
    CHECK_EQ(frame.a.input_of(XHD_NO_INDEX), int64_t(XHD_NO_INDEX));
    check_copies(frame, frame.a);
    // Dropping again finds nothing more.
    CHECK(!xhd::drop_duplicates(frame.a, 2));
  }
}

TEST(duplicates_of_a_loose_point) {
  // A far outlier written twice: one loose point remains, named by its position in the compacted set.
  xhd_test::Random rng(26);
  std::vector<double> a = xhd_test::uniform_points(rng, 3000, 0, 1);
  a.insert(a.end(), {5e8, 0, 0, 0.5, 0.5, 0.5, 5e8, 0, 0});
  for (int k = 0; k < 3; ++k) a.insert(a.end(), a.begin() + k, a.begin() + k + 1);  // a copy of point 0 last
  const xhd_points pa = doubles(a);
  xhd::PointFrame frame;
  xhd::frame_points(pa, nullptr, 2, frame);
  CHECK(frame.a.loose == std::vector<uint32_t>({3000, 3002}));
  CHECK(xhd::drop_duplicates(frame.a, 2));
  CHECK_EQ(frame.a.count, size_t(3002));
  CHECK(frame.a.loose == std::vector<uint32_t>({3000}));
  CHECK_EQ(frame.a.input_of(3000), int64_t(3000));
  CHECK_EQ(frame.a.input_of(3001), int64_t(3001));
}

TEST(checked_extent_is_the_extent_and_refuses_as_the_call_check_does) {
  // The framing's pass that also checks the coordinates (bulk_box.h's checked_extent_of) gives extent_of's box
  // for every count around its 16-point runs, and refuses a bad set with check_coordinates' own message.
  xhd_test::Random rng(77);
  for (const size_t n : {size_t(1), size_t(15), size_t(16), size_t(17), size_t(70000), size_t(131075)}) {
    const std::vector<double> d = xhd_test::uniform_points(rng, n, -3.0, 1e4);
    const std::vector<float> f(d.begin(), d.end());
    for (const xhd::PointTruth& t : {xhd::PointTruth{nullptr, d.data(), n}, xhd::PointTruth{f.data(), nullptr, n}}) {
      const xhd::Extent3 plain = xhd::extent_of(t, 3), checked = xhd::checked_extent_of(t, 3, "A");
      for (int k = 0; k < 3; ++k) {
        CHECK(checked.lo[k] == plain.lo[k]);
        CHECK(checked.hi[k] == plain.hi[k]);
      }
    }
  }
  std::vector<float> bad(3 * 100000, 0.5f);
  bad[3 * 70001 + 2] = INFINITY;
  bad[3 * 90000] = 2e15f;
  const auto message = [](const std::function<void()>& run) {
    try {
      run();
    } catch (const xhd::InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("nothing thrown");
  };
  const xhd::PointTruth t{bad.data(), nullptr, bad.size() / 3};
  const std::string fused = message([&] { xhd::checked_extent_of(t, 3, "B"); });
  CHECK(fused == message([&] { xhd::check_coordinates(bad.data(), bad.size() / 3, "B", 3); }));
  CHECK(fused == "point 70001 of set B has a non-finite coordinate");
  // Through the frame, as the CUDA calls use it (their call check leaves the coordinates to it).
  const std::vector<float> good(30, 0.25f);
  const xhd_points pa = floats(bad), pb = floats(good);
  xhd::PointFrame frame;
  CHECK(message([&] { xhd::frame_points(pb, &pa, 2, frame, nullptr, true); }) == fused);
}
