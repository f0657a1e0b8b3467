// xhd_mask_points and xhd_distance_stats of the CPU library under the sanitizers: a small mask's surface points
// against a brute force written here (every value type, labels a type cannot hold, one-voxel-thin grids, the order
// of the points), and the exact sums against long double on values whose sum long double holds exactly, ties to
// even, subnormals, and the refusals of bad arguments.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "check.h"
#include "xhd.h"

namespace {

// The surface voxels' centres of a nonzero mask by brute force: (i, j, k) through the affine, in linear order.
std::vector<double> brute_surface(const std::vector<int16_t>& v, const uint64_t dims[3], const double a[12]) {
  const int64_t nx = dims[0], ny = dims[1], nz = dims[2];
  auto fg = [&](int64_t i, int64_t j, int64_t k) {
    return i >= 0 && j >= 0 && k >= 0 && i < nx && j < ny && k < nz && v[i + nx * (j + ny * k)] != 0;
  };
  std::vector<double> out;
  for (int64_t k = 0; k < nz; ++k)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t i = 0; i < nx; ++i) {
        if (!fg(i, j, k)) continue;
        if (fg(i - 1, j, k) && fg(i + 1, j, k) && fg(i, j - 1, k) && fg(i, j + 1, k) && fg(i, j, k - 1) &&
            fg(i, j, k + 1))
          continue;
        for (int r = 0; r < 3; ++r) {
          const double* m = a + 4 * r;
          out.push_back((m[0] * double(i) + (m[1] * double(j) + m[2] * double(k))) + m[3]);
        }
      }
  return out;
}

xhd_voxel_mask mask_of(const void* values, int32_t type, const uint64_t dims[3], const double affine[12]) {
  xhd_voxel_mask m{};
  m.values = values;
  m.value_type = type;
  for (int i = 0; i < 3; ++i) m.dims[i] = dims[i];
  std::memcpy(m.affine, affine, sizeof m.affine);
  m.surface = 1;
  return m;
}

}  // namespace

TEST(mask_points_surface_matches_brute_force) {
  const double affine[12] = {0.9, 0.1, 0, 5.5, -0.1, 0.9, 0, -3.25, 0, 0, 1.5, 1e5};
  const uint64_t grids[][3] = {{7, 6, 5}, {1, 5, 4}, {5, 1, 4}, {5, 4, 1}, {1, 1, 1}, {3, 3, 3}};
  for (const auto& dims : grids) {
    const uint64_t n = dims[0] * dims[1] * dims[2];
    std::vector<int16_t> values(n);
    for (uint64_t i = 0; i < n; ++i) values[i] = int16_t((i * 7919 % 13) < 9 ? 1 + i % 3 : 0);
    const std::vector<double> want = brute_surface(values, dims, affine);
    for (int threads : {1, 2, 3}) {
      xhd_voxel_mask m = mask_of(values.data(), XHD_VOXEL_I16, dims, affine);
      m.threads = threads;
      xhd_mask_points_result r{};
      CHECK_EQ(xhd_mask_points(&m, &r, nullptr), int32_t(XHD_OK));
      CHECK_EQ(r.count * 3, uint64_t(want.size()));
      bool same = r.count * 3 == want.size();
      for (uint64_t c = 0; same && c < want.size(); ++c) same = std::memcmp(&r.xyz[c], &want[c], sizeof(double)) == 0;
      CHECK(same);
      xhd_mask_points_free(&r);
      CHECK(r.xyz == nullptr);
    }
  }
}

TEST(mask_points_labels_every_type_cannot_hold) {
  const double affine[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
  const uint64_t dims[3] = {2, 2, 2};
  const uint8_t u8[8] = {200, 200, 200, 200, 200, 200, 200, 200};
  const float f32[8] = {0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f};
  struct Case {
    const void* values;
    int32_t type;
    double label;
    uint64_t points;
  } cases[] = {{u8, XHD_VOXEL_U8, 200, 8}, {u8, XHD_VOXEL_U8, 456, 0},   {u8, XHD_VOXEL_U8, 200.5, 0},
               {u8, XHD_VOXEL_U8, -56, 0}, {f32, XHD_VOXEL_F32, 0.1, 0}, {f32, XHD_VOXEL_F32, double(0.1f), 8}};
  for (const Case& c : cases) {
    xhd_voxel_mask m = mask_of(c.values, c.type, dims, affine);
    m.use_label = 1;
    m.label = c.label;
    xhd_mask_points_result r{};
    CHECK_EQ(xhd_mask_points(&m, &r, nullptr), int32_t(XHD_OK));
    CHECK_EQ(r.count, c.points);
    CHECK_EQ(r.foreground, c.points);
    xhd_mask_points_free(&r);
  }
}

TEST(mask_points_refuses_bad_arguments) {
  const double affine[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
  const uint8_t values[8] = {};
  const uint64_t zero[3] = {0, 2, 2}, huge[3] = {uint64_t(1) << 21, uint64_t(1) << 21, uint64_t(1) << 21};
  xhd_mask_points_result r{};
  xhd_voxel_mask m = mask_of(values, XHD_VOXEL_U8, zero, affine);
  CHECK_EQ(xhd_mask_points(&m, &r, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  m = mask_of(values, XHD_VOXEL_U8, huge, affine);
  CHECK_EQ(xhd_mask_points(&m, &r, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  const uint64_t dims[3] = {2, 2, 2};
  m = mask_of(values, 99, dims, affine);
  CHECK_EQ(xhd_mask_points(&m, &r, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  CHECK(r.xyz == nullptr);
}

TEST(distance_stats_exact_sums) {
  xhd_distance_stats_options o{};
  xhd_distance_stats_result r{};
  // 1 + 2^-53 is a tie: to even, 1. With 2^-105 more it is above the tie.
  const double tie[2] = {1, std::ldexp(1.0, -53)}, above[3] = {1, std::ldexp(1.0, -53), std::ldexp(1.0, -105)};
  CHECK_EQ(xhd_distance_stats(tie, 2, nullptr, 0, &o, &r, nullptr), int32_t(XHD_OK));
  CHECK_EQ(r.ab.sum, 1.0);
  CHECK_EQ(xhd_distance_stats(above, 3, nullptr, 0, &o, &r, nullptr), int32_t(XHD_OK));
  CHECK_EQ(r.ab.sum, 1.0 + std::ldexp(1.0, -52));
  // Subnormals: exact, whatever their number.
  std::vector<double> tiny(1000, std::numeric_limits<double>::denorm_min());
  CHECK_EQ(xhd_distance_stats(tiny.data(), tiny.size(), nullptr, 0, &o, &r, nullptr), int32_t(XHD_OK));
  CHECK_EQ(r.ab.sum, 1000 * std::numeric_limits<double>::denorm_min());
  CHECK_EQ(r.ab.sq_sum, 0.0);  // each square underflows to 0
  // Whole numbers: the exact sum is known; many threads and blocks give it.
  std::vector<double> whole(300000);
  long double want = 0, want_sq = 0;
  for (size_t i = 0; i < whole.size(); ++i) {
    whole[i] = double(i % 1000);
    want += whole[i];
    want_sq += whole[i] * whole[i];
  }
  o.threads = 3;
  o.has_percentile = 1;
  o.percentile = 95;
  CHECK_EQ(xhd_distance_stats(whole.data(), whole.size(), whole.data(), 10, &o, &r, nullptr), int32_t(XHD_OK));
  CHECK_EQ(r.ab.sum, double(want));
  CHECK_EQ(r.ab.sq_sum, double(want_sq));
  CHECK_EQ(r.ab.max, 999.0);
  CHECK_EQ(r.ba.count, uint64_t(10));
  CHECK_EQ(r.ba.sum, 45.0);
  // NumPy's linear percentile of 0..999 repeated: rank 0.95·(n − 1).
  CHECK_NEAR(r.ab.percentile, 949.0, 1.0);
  CHECK(std::isnan(r.pooled_percentile));
}

TEST(distance_stats_refuses_bad_arguments) {
  xhd_distance_stats_options o{};
  xhd_distance_stats_result r{};
  const double bad[2] = {1, -1};
  CHECK_EQ(xhd_distance_stats(bad, 2, nullptr, 0, &o, &r, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  const double inf[1] = {std::numeric_limits<double>::infinity()};
  CHECK_EQ(xhd_distance_stats(inf, 1, nullptr, 0, &o, &r, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  o.has_percentile = 1;
  o.percentile = 101;
  CHECK_EQ(xhd_distance_stats(bad, 1, nullptr, 0, &o, &r, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  CHECK_EQ(xhd_distance_stats(nullptr, 1, nullptr, 0, &o, &r, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
}

TEST(distance_stats_counts_within_tolerances) {
  // Counts at tolerances that fall on distances exactly (<= keeps them), between them, below and above them all,
  // on several threads and blocks; each compared with a plain count.
  std::vector<double> ab(200003), ba(777);
  for (size_t i = 0; i < ab.size(); ++i) ab[i] = double(i % 997) / 8.0;
  for (size_t i = 0; i < ba.size(); ++i) ba[i] = double((i * 7) % 101) / 4.0;
  const double taus[5] = {0.0, 1.0, 3.0625, 1e9, 12.5};
  uint64_t within_ab[5], within_ba[5];
  xhd_distance_stats_options o{};
  o.threads = 3;
  o.tolerances = taus;
  o.tolerance_count = 5;
  o.within_ab = within_ab;
  o.within_ba = within_ba;
  xhd_distance_stats_result r{};
  CHECK_EQ(xhd_distance_stats(ab.data(), ab.size(), ba.data(), ba.size(), &o, &r, nullptr), int32_t(XHD_OK));
  for (int t = 0; t < 5; ++t) {
    uint64_t want_ab = 0, want_ba = 0;
    for (double d : ab) want_ab += d <= taus[t] ? 1 : 0;
    for (double d : ba) want_ba += d <= taus[t] ? 1 : 0;
    CHECK_EQ(within_ab[t], want_ab);
    CHECK_EQ(within_ba[t], want_ba);
  }
  CHECK_EQ(within_ab[3], uint64_t(ab.size()));
  // No B side: within_ba may be null.
  o.within_ba = nullptr;
  CHECK_EQ(xhd_distance_stats(ab.data(), ab.size(), nullptr, 0, &o, &r, nullptr), int32_t(XHD_OK));
  // Refused: a negative or infinite tolerance, a null count array where B has distances.
  CHECK_EQ(xhd_distance_stats(ab.data(), ab.size(), ba.data(), ba.size(), &o, &r, nullptr),
           int32_t(XHD_ERROR_INVALID_ARGUMENT));
  o.within_ba = within_ba;
  const double bad[2] = {1.0, -0.5};
  o.tolerances = bad;
  o.tolerance_count = 2;
  CHECK_EQ(xhd_distance_stats(ab.data(), ab.size(), ba.data(), ba.size(), &o, &r, nullptr),
           int32_t(XHD_ERROR_INVALID_ARGUMENT));
  const double inf[1] = {std::numeric_limits<double>::infinity()};
  o.tolerances = inf;
  o.tolerance_count = 1;
  CHECK_EQ(xhd_distance_stats(ab.data(), ab.size(), ba.data(), ba.size(), &o, &r, nullptr),
           int32_t(XHD_ERROR_INVALID_ARGUMENT));
}

TEST(points_compare_stats_equals_search_then_stats) {
  // Two small clouds with a far point in each (loose, settled apart from the grid): the fused call's statistics
  // are those of xhd_points_compare's distances given to xhd_distance_stats, whether the distances come back or not.
  std::vector<double> a(3 * 400), b(3 * 300);
  for (size_t i = 0; i < a.size(); ++i) a[i] = double((i * 7919) % 1000) / 997.0;
  for (size_t i = 0; i < b.size(); ++i) b[i] = double((i * 104729) % 1000) / 991.0;
  a[0] = 1e9;
  b[5] = -2e8;
  const xhd_points pa{nullptr, 400, a.data()}, pb{nullptr, 300, b.data()};
  xhd_hausdorff_options options{};
  options.method = XHD_METHOD_GRID;
  options.directions = XHD_DIRECTION_AB | XHD_DIRECTION_BA;
  options.threads = 3;
  std::vector<double> ab(400), ba(300);
  xhd_per_point per_point{};
  per_point.distance_ab = ab.data();
  per_point.distance_ba = ba.data();
  xhd_hausdorff_result plain{};
  CHECK_EQ(xhd_points_compare(&pa, &pb, &options, &per_point, &plain, nullptr), int32_t(XHD_OK));
  const double taus[2] = {0.001, 0.01};
  uint64_t want_ab[2], want_ba[2], got_ab[2], got_ba[2];
  xhd_distance_stats_options so{};
  so.has_percentile = 1;
  so.percentile = 95;
  so.pooled = 1;
  so.tolerances = taus;
  so.tolerance_count = 2;
  so.within_ab = want_ab;
  so.within_ba = want_ba;
  xhd_distance_stats_result want{};
  CHECK_EQ(xhd_distance_stats(ab.data(), 400, ba.data(), 300, &so, &want, nullptr), int32_t(XHD_OK));
  so.within_ab = got_ab;
  so.within_ba = got_ba;
  for (const bool returned : {false, true}) {
    std::vector<double> back_ab(400, -1.0);
    xhd_per_point asked{};
    if (returned) asked.distance_ab = back_ab.data();
    xhd_distance_stats_result got{};
    xhd_hausdorff_result fused{};
    CHECK_EQ(xhd_points_compare_stats(&pa, &pb, &options, returned ? &asked : nullptr, &so, &got, &fused, nullptr),
             int32_t(XHD_OK));
    CHECK_EQ(fused.ab.distance, plain.ab.distance);
    CHECK_EQ(fused.ba.from_index, plain.ba.from_index);
    for (const auto& [g, w] : {std::pair{got.ab, want.ab}, std::pair{got.ba, want.ba}}) {
      CHECK_EQ(g.count, w.count);
      CHECK_EQ(g.max, w.max);
      CHECK_EQ(g.sum, w.sum);
      CHECK_EQ(g.sq_sum, w.sq_sum);
      CHECK_EQ(g.percentile, w.percentile);
    }
    CHECK_EQ(got.pooled_percentile, want.pooled_percentile);
    for (int t = 0; t < 2; ++t) {
      CHECK_EQ(got_ab[t], want_ab[t]);
      CHECK_EQ(got_ba[t], want_ba[t]);
    }
    if (returned) CHECK(back_ab == ab);
  }
  // A bad request is refused before the search, and so are outputs for a direction not asked for.
  so.percentile = 101;
  xhd_distance_stats_result r{};
  xhd_hausdorff_result h{};
  CHECK_EQ(xhd_points_compare_stats(&pa, &pb, &options, nullptr, &so, &r, &h, nullptr),
           int32_t(XHD_ERROR_INVALID_ARGUMENT));
  so.percentile = 95;
  options.directions = XHD_DIRECTION_AB;
  CHECK_EQ(xhd_points_compare_stats(&pa, &pb, &options, &per_point, &so, &r, &h, nullptr),
           int32_t(XHD_ERROR_INVALID_ARGUMENT));
  // Directed: B's statistics are empty, and within_ba may be null.
  so.within_ba = nullptr;
  CHECK_EQ(xhd_points_compare_stats(&pa, &pb, &options, nullptr, &so, &r, &h, nullptr), int32_t(XHD_OK));
  CHECK_EQ(r.ab.count, uint64_t(400));
  CHECK_EQ(r.ba.count, uint64_t(0));
  CHECK_EQ(r.ab.sum, want.ab.sum);
}
