// The CPU Hausdorff and nearest-neighbour searches through the C ABI, against the double-precision brute
// force (kernels/reference/): the fast methods promise the reference's distances and witnesses exactly, on
// every shape of input, float32 or double, for any thread count and cell size. The shapes are those that
// reach the searches' special paths: duplicates, a single point, lines and planes, far outliers (loose
// points), sets far apart (large cell coordinates), survey coordinates.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"
#include "random_points.h"
#include "xhd.h"

namespace {

struct Case {
  std::string name;
  std::vector<double> a, b;
};

xhd_hausdorff_result hausdorff(const xhd_points& a, const xhd_points& b, int method, int threads, double cell) {
  xhd_hausdorff_options options{};
  options.method = method;
  options.directions = XHD_DIRECTION_AB | XHD_DIRECTION_BA;
  options.threads = threads;
  options.seed = 7;
  options.cell_size = cell;
  xhd_hausdorff_result result{};
  const int32_t status = xhd_hausdorff(&a, &b, &options, &result, nullptr);
  if (!CHECK_EQ(status, int32_t(XHD_OK))) std::fprintf(stderr, "  %s\n", xhd_last_error());
  return result;
}

bool same_direction(const xhd_directed& fast, const xhd_directed& brute) {
  return fast.distance == brute.distance && fast.from_index == brute.from_index && fast.to_index == brute.to_index;
}

void check_against_brute(const Case& c, bool as_float) {
  const std::vector<float> a32 = xhd_test::to_float(c.a), b32 = xhd_test::to_float(c.b);
  const xhd_points a =
      as_float ? xhd_points{a32.data(), a32.size() / 3, nullptr} : xhd_points{nullptr, c.a.size() / 3, c.a.data()};
  const xhd_points b =
      as_float ? xhd_points{b32.data(), b32.size() / 3, nullptr} : xhd_points{nullptr, c.b.size() / 3, c.b.data()};
  const xhd_hausdorff_result brute = hausdorff(a, b, XHD_METHOD_BRUTE, 2, 0);
  struct Run {
    int method, threads;
    double cell;
  };
  for (const Run& run : {Run{XHD_METHOD_GRID, 1, 0}, Run{XHD_METHOD_GRID, 3, 0}, Run{XHD_METHOD_GRID, 2, 1e-7},
                         Run{XHD_METHOD_GRID, 2, 1e7}, Run{XHD_METHOD_EB, 2, 0}}) {
    const xhd_hausdorff_result fast = hausdorff(a, b, run.method, run.threads, run.cell);
    const bool same = same_direction(fast.ab, brute.ab) && same_direction(fast.ba, brute.ba);
    if (!CHECK(same))
      std::fprintf(stderr, "  %s (%s, method %d, %d threads, cell %g): ab %.17g [%lld %lld] vs %.17g [%lld %lld]\n",
                   c.name.c_str(), as_float ? "float" : "double", run.method, run.threads, run.cell, fast.ab.distance,
                   (long long)fast.ab.from_index, (long long)fast.ab.to_index, brute.ab.distance,
                   (long long)brute.ab.from_index, (long long)brute.ab.to_index);
  }
}

std::vector<double> repeat_rows(const std::vector<double>& xyz, int times) {
  std::vector<double> out;
  for (size_t i = 0; i < xyz.size(); i += 3)
    for (int t = 0; t < times; ++t) out.insert(out.end(), xyz.begin() + i, xyz.begin() + i + 3);
  return out;
}

std::vector<Case> cases() {
  xhd_test::Random rng(41);
  std::vector<Case> out;
  out.push_back({"clouds", xhd_test::uniform_points(rng, 2000, 0, 1), xhd_test::uniform_points(rng, 1500, 0.1, 1)});
  const std::vector<double> same = xhd_test::uniform_points(rng, 800, -2, 3);
  out.push_back({"identical", same, same});
  out.push_back({"subset", std::vector<double>(same.begin(), same.begin() + 3 * 300), same});
  out.push_back(
      {"one point against a cloud", std::vector<double>(3 * 50, 0.5), xhd_test::uniform_points(rng, 700, 0, 1)});
  out.push_back({"single points", {1, 2, 3}, {4, 6, 3}});
  std::vector<double> line, plane = xhd_test::uniform_points(rng, 900, 0, 1);
  for (int i = 0; i < 600; ++i) line.insert(line.end(), {i * 0.01, i * 0.02, 1.0});
  for (size_t i = 2; i < plane.size(); i += 3) plane[i] = 0;
  out.push_back({"line against plane", line, plane});
  out.push_back({"repeated rows", repeat_rows(xhd_test::uniform_points(rng, 400, 0, 1), 5),
                 repeat_rows(xhd_test::uniform_points(rng, 300, 0, 1), 3)});
  std::vector<double> outliers = xhd_test::uniform_points(rng, 3000, 0, 1);
  outliers.insert(outliers.end(), {2e9, 0, 0, 0, -1e9, 5});
  std::vector<double> others = xhd_test::uniform_points(rng, 2000, 0, 1);
  others[3 * 1999 + 2] = 7e8;
  out.push_back({"far outliers", outliers, others});
  // Two short segments a million units apart: a fine grid over one, queried from the other.
  std::vector<double> near_segment, far_segment;
  for (int i = 0; i < 400; ++i) {
    near_segment.insert(near_segment.end(), {i * 1e-3, 0, 0});
    far_segment.insert(far_segment.end(), {1e6 + i * 1e-3, 0.5, 0});
  }
  out.push_back({"sets far apart", near_segment, far_segment});
  out.push_back({"survey coordinates", xhd_test::uniform_points(rng, 1500, 4.2e6, 20),
                 xhd_test::uniform_points(rng, 1200, 4.2e6 + 3, 20)});
  return out;
}

}  // namespace

TEST(hausdorff_grid_and_eb_match_brute) {
  for (const Case& c : cases()) {
    check_against_brute(c, false);
    check_against_brute(c, true);
  }
}

TEST(hausdorff_refuses_bad_input) {
  const std::vector<double> ok{0, 0, 0, 1, 1, 1};
  const double nan = std::nan("");
  const std::vector<double> bad{0, 0, 0, 1, nan, 1};
  const xhd_points good{nullptr, 2, ok.data()}, with_nan{nullptr, 2, bad.data()}, empty{nullptr, 0, ok.data()};
  xhd_hausdorff_options options{};
  options.directions = XHD_DIRECTION_AB;
  xhd_hausdorff_result result{};
  CHECK_EQ(xhd_hausdorff(&good, &with_nan, &options, &result, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  CHECK(std::strstr(xhd_last_error(), "point 1 of set B") != nullptr);
  CHECK_EQ(xhd_hausdorff(&empty, &good, &options, &result, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  CHECK_EQ(xhd_hausdorff(&good, &good, nullptr, &result, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  options.method = 9;
  CHECK_EQ(xhd_hausdorff(&good, &good, &options, &result, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  // Cancelled before it starts.
  options.method = XHD_METHOD_GRID;
  xhd_progress progress{};
  progress.cancel = 1;
  CHECK_EQ(xhd_hausdorff(&good, &good, &options, &result, &progress), int32_t(XHD_ERROR_CANCELLED));
}

TEST(nearest_points_grid_matches_brute) {
  for (const Case& c : cases()) {
    const xhd_points q{nullptr, c.a.size() / 3, c.a.data()}, t{nullptr, c.b.size() / 3, c.b.data()};
    std::vector<double> d_brute(q.count), d_grid(q.count);
    std::vector<int64_t> i_brute(q.count), i_grid(q.count);
    xhd_hausdorff_options options{};
    options.threads = 2;
    xhd_nearest_result result{};
    options.method = XHD_METHOD_BRUTE;
    CHECK_EQ(xhd_nearest_points(&q, &t, &options, d_brute.data(), i_brute.data(), &result, nullptr), int32_t(XHD_OK));
    options.method = XHD_METHOD_GRID;
    CHECK_EQ(xhd_nearest_points(&q, &t, &options, d_grid.data(), i_grid.data(), &result, nullptr), int32_t(XHD_OK));
    if (!CHECK(d_grid == d_brute && i_grid == i_brute)) std::fprintf(stderr, "  case %s\n", c.name.c_str());
    // Either output may be left out.
    CHECK_EQ(xhd_nearest_points(&q, &t, &options, nullptr, i_grid.data(), &result, nullptr), int32_t(XHD_OK));
    CHECK(i_grid == i_brute);
  }
}

namespace {

// Each point's nearest by the brute reference (xhd_nearest_points), one direction.
void brute_nearest(const xhd_points& q, const xhd_points& t, std::vector<double>& d, std::vector<int64_t>& i) {
  xhd_hausdorff_options options{};
  options.method = XHD_METHOD_BRUTE;
  options.threads = 2;
  xhd_nearest_result r{};
  d.assign(q.count, -1);
  i.assign(q.count, -2);
  CHECK_EQ(xhd_nearest_points(&q, &t, &options, d.data(), i.data(), &r, nullptr), int32_t(XHD_OK));
}

void check_points_compare(const Case& c, bool as_float) {
  const std::vector<float> a32 = xhd_test::to_float(c.a), b32 = xhd_test::to_float(c.b);
  const xhd_points a =
      as_float ? xhd_points{a32.data(), a32.size() / 3, nullptr} : xhd_points{nullptr, c.a.size() / 3, c.a.data()};
  const xhd_points b =
      as_float ? xhd_points{b32.data(), b32.size() / 3, nullptr} : xhd_points{nullptr, c.b.size() / 3, c.b.data()};
  const xhd_hausdorff_result reference = hausdorff(a, b, XHD_METHOD_BRUTE, 2, 0);
  std::vector<double> d_ab, d_ba;
  std::vector<int64_t> i_ab, i_ba;
  brute_nearest(a, b, d_ab, i_ab);
  brute_nearest(b, a, d_ba, i_ba);
  struct Run {
    int method, threads;
    double cell;
  };
  for (const Run& run : {Run{XHD_METHOD_GRID, 1, 0}, Run{XHD_METHOD_GRID, 3, 0}, Run{XHD_METHOD_GRID, 2, 1e-7},
                         Run{XHD_METHOD_EB, 2, 0}, Run{XHD_METHOD_BRUTE, 2, 0}}) {
    xhd_hausdorff_options options{};
    options.method = run.method;
    options.directions = XHD_DIRECTION_AB | XHD_DIRECTION_BA;
    options.threads = run.threads;
    options.seed = 7;
    options.cell_size = run.cell;
    std::vector<double> da(a.count, -1), db(b.count, -1);
    std::vector<int64_t> ia(a.count, -2), ib(b.count, -2);
    const xhd_per_point outputs{da.data(), ia.data(), db.data(), ib.data()};
    xhd_hausdorff_result result{};
    xhd_progress progress{};
    CHECK_EQ(xhd_points_compare(&a, &b, &options, &outputs, &result, &progress), int32_t(XHD_OK));
    CHECK_EQ(progress.done, progress.total);
    CHECK_EQ(progress.total, a.count + b.count);
    const bool same = same_direction(result.ab, reference.ab) && same_direction(result.ba, reference.ba) &&
                      da == d_ab && ia == i_ab && db == d_ba && ib == i_ba;
    if (!CHECK(same))
      std::fprintf(stderr, "  %s (%s, method %d, %d threads, cell %g): ab %.17g [%lld %lld] vs %.17g [%lld %lld]\n",
                   c.name.c_str(), as_float ? "float" : "double", run.method, run.threads, run.cell, result.ab.distance,
                   (long long)result.ab.from_index, (long long)result.ab.to_index, reference.ab.distance,
                   (long long)reference.ab.from_index, (long long)reference.ab.to_index);
    CHECK_EQ(result.ab.exact_checks, uint64_t(a.count));
    // Only the distances of one direction: the other output and direction left out.
    options.directions = XHD_DIRECTION_AB;
    std::vector<double> only(a.count, -1);
    const xhd_per_point distances_only{only.data(), nullptr, nullptr, nullptr};
    CHECK_EQ(xhd_points_compare(&a, &b, &options, &distances_only, &result, nullptr), int32_t(XHD_OK));
    CHECK(only == d_ab && same_direction(result.ab, reference.ab) && result.ba.from_index == XHD_NO_INDEX);
  }
}

}  // namespace

TEST(points_compare_matches_hausdorff_and_nearest) {
  for (const Case& c : cases()) {
    check_points_compare(c, false);
    check_points_compare(c, true);
  }
}

TEST(points_compare_without_outputs_is_hausdorff) {
  xhd_test::Random rng(5);
  const std::vector<double> pa = xhd_test::uniform_points(rng, 500, 0, 1),
                            pb = xhd_test::uniform_points(rng, 400, 0.2, 1);
  const xhd_points a{nullptr, pa.size() / 3, pa.data()}, b{nullptr, pb.size() / 3, pb.data()};
  const xhd_hausdorff_result plain = hausdorff(a, b, XHD_METHOD_GRID, 2, 0);
  xhd_hausdorff_options options{};
  options.directions = XHD_DIRECTION_AB | XHD_DIRECTION_BA;
  options.threads = 2;
  options.seed = 7;
  const xhd_per_point none{};
  for (const xhd_per_point* outputs : {static_cast<const xhd_per_point*>(nullptr), &none}) {
    xhd_hausdorff_result result{};
    CHECK_EQ(xhd_points_compare(&a, &b, &options, outputs, &result, nullptr), int32_t(XHD_OK));
    // The pruned search ran: the same answer, and points set aside.
    CHECK(same_direction(result.ab, plain.ab) && same_direction(result.ba, plain.ba));
    CHECK(result.ab.pruned_queries > 0);
  }
}

TEST(points_compare_refuses_bad_outputs) {
  const std::vector<double> p{0, 0, 0, 1, 1, 1};
  const xhd_points a{nullptr, 2, p.data()};
  std::vector<double> d(2);
  xhd_hausdorff_options options{};
  options.directions = XHD_DIRECTION_AB;
  const xhd_per_point ba_only{nullptr, nullptr, d.data(), nullptr};
  xhd_hausdorff_result result{};
  CHECK_EQ(xhd_points_compare(&a, &a, &options, &ba_only, &result, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  CHECK(std::strstr(xhd_last_error(), "B -> A") != nullptr);
  const std::vector<double> bad{0, 0, 0, std::nan(""), 1, 1};
  const xhd_points with_nan{nullptr, 2, bad.data()};
  const xhd_per_point ab{d.data(), nullptr, nullptr, nullptr};
  CHECK_EQ(xhd_points_compare(&a, &with_nan, &options, &ab, &result, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  xhd_progress progress{};
  progress.cancel = 1;
  CHECK_EQ(xhd_points_compare(&a, &a, &options, &ab, &result, &progress), int32_t(XHD_ERROR_CANCELLED));
}
