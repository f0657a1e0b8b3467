// The split of one direction's queries among workers (kernels/abi/work_split.h) and the CPU backend's
// xhd_points_compare_placed, which runs that split on groups of threads as the GPU backend runs it on
// devices: every query is taken exactly once whatever the workers, a failure is named by its worker and
// keeps its kind, and the answers (per-point values and witnesses) are those of one worker, bit for bit.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../abi/tile_minima.h"
#include "../abi/work_split.h"
#include "check.h"
#include "random_points.h"
#include "xhd.h"

namespace {

std::vector<std::string> labels_of(int workers) {
  std::vector<std::string> labels;
  for (int w = 0; w < workers; ++w) labels.push_back(xhd::worker_label(w % 2, w, workers));
  return labels;
}

}  // namespace

TEST(piece_queue_hands_out_every_query_once) {
  for (const uint64_t total : {uint64_t(0), uint64_t(1), uint64_t(999), uint64_t(100000)}) {
    for (const int workers : {1, 2, 5}) {
      xhd::PieceQueue queue(total, xhd::piece_size(total, workers, 4096));
      std::vector<std::atomic<int>> taken(total);
      std::vector<std::thread> threads;
      for (int w = 0; w < workers; ++w)
        threads.emplace_back([&] {
          xhd::Piece p;
          while (queue.next(p))
            for (uint64_t i = p.first; i < p.first + p.count; ++i) taken[i].fetch_add(1);
        });
      for (std::thread& t : threads) t.join();
      bool once = true;
      for (uint64_t i = 0; i < total; ++i) once = once && taken[i].load() == 1;
      CHECK(once);
    }
  }
}

TEST(piece_size_is_everything_for_one_worker_and_shares_for_many) {
  CHECK_EQ(xhd::piece_size(1000, 1, UINT64_MAX), uint64_t(1000));
  CHECK_EQ(xhd::piece_size(1000, 1, 300), uint64_t(300));
  CHECK_EQ(xhd::piece_size(1600, 2, UINT64_MAX), uint64_t(100));  // eight pieces a worker
  CHECK_EQ(xhd::piece_size(3, 4, UINT64_MAX), uint64_t(1));
  CHECK_EQ(xhd::piece_size(0, 4, UINT64_MAX), uint64_t(1));
}

TEST(an_abandoned_queue_hands_out_nothing) {
  xhd::PieceQueue queue(100, 10);
  xhd::Piece p;
  CHECK(queue.next(p));
  queue.abandon();
  CHECK(!queue.next(p));
  CHECK(queue.abandoned());
}

TEST(shared_word_keeps_the_largest) {
  xhd::SharedWord word;
  CHECK_EQ(word.raise(5), uint64_t(5));
  CHECK_EQ(word.raise(3), uint64_t(5));
  CHECK_EQ(word.raise(9), uint64_t(9));
  CHECK_EQ(word.get(), uint64_t(9));
}

TEST(a_failing_worker_names_its_device_and_stops_the_others) {
  xhd::PieceQueue queue(1000000, 1);
  std::atomic<uint64_t> pieces{0};
  bool threw = false;
  try {
    xhd::run_workers(
        labels_of(3),
        [&](int w) {
          xhd::Piece p;
          while (queue.next(p)) {
            pieces.fetch_add(1);
            if (w == 1) throw std::runtime_error("the GPU fell off the bus");
          }
        },
        [&] { queue.abandon(); });
  } catch (const xhd::Unavailable& e) {
    threw = true;
    CHECK(std::strstr(e.what(), "device 1 (worker 2 of 3) failed: the GPU fell off the bus") != nullptr);
  }
  CHECK(threw);
  CHECK(pieces.load() < 1000000);  // the others stopped at their next piece
}

TEST(a_failing_worker_keeps_the_kind_of_its_failure) {
  const auto fail_with = [](int kind) {
    xhd::run_workers(
        labels_of(2),
        [&](int w) {
          if (w != 1) return;
          if (kind == 0) throw xhd::Cancelled();
          if (kind == 1) throw xhd::InvalidArgument("bad");
          throw xhd::OutOfMemory("short");
        },
        [] {});
  };
  bool cancelled = false, invalid = false, short_of_memory = false;
  try {
    fail_with(0);
  } catch (const xhd::Cancelled&) {
    cancelled = true;
  }
  try {
    fail_with(1);
  } catch (const xhd::InvalidArgument& e) {
    invalid = std::strstr(e.what(), "device 1 (worker 2 of 2): bad") != nullptr;
  }
  try {
    fail_with(2);
  } catch (const xhd::OutOfMemory& e) {
    short_of_memory = std::strstr(e.what(), "short") != nullptr;
  }
  CHECK(cancelled);
  CHECK(invalid);
  CHECK(short_of_memory);
}

namespace {

struct Outputs {
  std::vector<double> da, db;
  std::vector<int64_t> ia, ib;
  xhd_hausdorff_result result{};
};

// xhd_points_compare_placed with `workers` CPU worker groups (0: xhd_points_compare itself), with or without
// per-point outputs.
Outputs placed(const xhd_points& a, const xhd_points& b, int method, int workers, bool per_point) {
  xhd_hausdorff_options options{};
  options.method = method;
  options.directions = XHD_DIRECTION_AB | XHD_DIRECTION_BA;
  options.threads = 3;
  options.seed = 7;
  Outputs o;
  o.da.assign(a.count, -1);
  o.db.assign(b.count, -1);
  o.ia.assign(a.count, -2);
  o.ib.assign(b.count, -2);
  const xhd_per_point outputs{o.da.data(), o.ia.data(), o.db.data(), o.ib.data()};
  const std::vector<int32_t> ordinals(static_cast<size_t>(workers), 0);
  xhd_placement placement{ordinals.data(), static_cast<uint32_t>(workers), 0, 0, 0, 0};
  xhd_progress progress{};
  const int32_t status =
      workers == 0 ? xhd_points_compare(&a, &b, &options, per_point ? &outputs : nullptr, &o.result, &progress)
                   : xhd_points_compare_placed(&a, &b, &options, &placement, per_point ? &outputs : nullptr, &o.result,
                                               &progress);
  if (!CHECK_EQ(status, int32_t(XHD_OK))) std::fprintf(stderr, "  %s\n", xhd_last_error());
  CHECK_EQ(progress.done, progress.total);
  if (workers > 0) CHECK_EQ(placement.workers, uint32_t(method == XHD_METHOD_BRUTE ? 1 : workers));
  return o;
}

bool same_witnesses(const xhd_hausdorff_result& x, const xhd_hausdorff_result& y) {
  return x.ab.distance == y.ab.distance && x.ab.from_index == y.ab.from_index && x.ab.to_index == y.ab.to_index &&
         x.ba.distance == y.ba.distance && x.ba.from_index == y.ba.from_index && x.ba.to_index == y.ba.to_index;
}

}  // namespace

TEST(placed_compare_on_cpu_worker_groups_equals_one_worker) {
  xhd_test::Random rng(23);
  // Overlapping clouds with exact duplicates (ties to the smallest index) and one far outlier (a loose point).
  std::vector<double> pa = xhd_test::uniform_points(rng, 3000, 0, 1), pb = xhd_test::uniform_points(rng, 2500, 0.3, 1);
  for (int k = 0; k < 300; ++k) pb.insert(pb.end(), pa.begin() + 3 * k, pa.begin() + 3 * k + 3);
  pa.insert(pa.end(), {1e9, 0, 0});
  const std::vector<float> a32 = xhd_test::to_float(pa), b32 = xhd_test::to_float(pb);
  for (const bool as_float : {false, true}) {
    const xhd_points a =
        as_float ? xhd_points{a32.data(), a32.size() / 3, nullptr} : xhd_points{nullptr, pa.size() / 3, pa.data()};
    const xhd_points b =
        as_float ? xhd_points{b32.data(), b32.size() / 3, nullptr} : xhd_points{nullptr, pb.size() / 3, pb.data()};
    for (const int method : {XHD_METHOD_GRID, XHD_METHOD_EB}) {
      const Outputs one = placed(a, b, method, 0, true);
      const Outputs plain = placed(a, b, method, 0, false);
      for (const int workers : {1, 2, 3, 7}) {
        const Outputs many = placed(a, b, method, workers, true);
        const bool same = same_witnesses(many.result, one.result) && many.da == one.da && many.ia == one.ia &&
                          many.db == one.db && many.ib == one.ib;
        if (!CHECK(same))
          std::fprintf(stderr, "  %s, method %d, %d workers: ab %.17g [%lld] vs %.17g [%lld]\n",
                       as_float ? "float" : "double", method, workers, many.result.ab.distance,
                       (long long)many.result.ab.from_index, one.result.ab.distance,
                       (long long)one.result.ab.from_index);
        // Without outputs: the witnesses of xhd_hausdorff (the pruned search) all the same.
        CHECK(same_witnesses(placed(a, b, method, workers, false).result, plain.result));
      }
    }
  }
}

TEST(placed_compare_refuses_a_bad_placement) {
  const std::vector<double> p{0, 0, 0, 1, 1, 1};
  const xhd_points a{nullptr, 2, p.data()};
  xhd_hausdorff_options options{};
  options.directions = XHD_DIRECTION_AB;
  xhd_hausdorff_result result{};
  xhd_placement no_list{nullptr, 2, 0, 0, 0, 0};
  CHECK_EQ(xhd_points_compare_placed(&a, &a, &options, &no_list, nullptr, &result, nullptr),
           int32_t(XHD_ERROR_INVALID_ARGUMENT));
  const int32_t negative[2] = {0, -1};
  xhd_placement bad{negative, 2, 0, 0, 0, 0};
  CHECK_EQ(xhd_points_compare_placed(&a, &a, &options, &bad, nullptr, &result, nullptr),
           int32_t(XHD_ERROR_INVALID_ARGUMENT));
  CHECK(std::strstr(xhd_last_error(), "-1") != nullptr);
  // Cancelled before the start: a cancel, not a failure of some worker.
  const int32_t two[2] = {0, 0};
  xhd_placement both{two, 2, 0, 0, 0, 0};
  xhd_progress progress{};
  progress.cancel = 1;
  CHECK_EQ(xhd_points_compare_placed(&a, &a, &options, &both, nullptr, &result, &progress),
           int32_t(XHD_ERROR_CANCELLED));
}

namespace {

double squared_distance(const std::vector<double>& p, size_t i, const std::vector<double>& q, size_t j) {
  const double dx = p[3 * i] - q[3 * j], dy = p[3 * i + 1] - q[3 * j + 1], dz = p[3 * i + 2] - q[3 * j + 2];
  return dx * dx + dy * dy + dz * dz;
}

}  // namespace

// The out-of-core rule (tile_minima.h) on the CPU: each tile's exact nearest (the brute reference over the
// tile's points alone), merged in any order of the tiles, is the nearest over the whole target, ties to the
// smallest input index included (the target repeats points across tiles).
TEST(nearest_over_tiles_is_the_nearest_over_the_whole_target) {
  xhd_test::Random rng(31);
  std::vector<double> target = xhd_test::uniform_points(rng, 900, 0, 1);
  const std::vector<double> queries = xhd_test::uniform_points(rng, 400, 0.1, 1);
  // Copies of early points late in the target: equally near points in different tiles.
  for (int k = 0; k < 60; ++k)
    target.insert(target.end(), target.begin() + 3 * (7 * k), target.begin() + 3 * (7 * k) + 3);
  const size_t nt = target.size() / 3, nq = queries.size() / 3;
  const xhd_points q{nullptr, nq, queries.data()}, all{nullptr, nt, target.data()};
  xhd_hausdorff_options options{};
  options.method = XHD_METHOD_BRUTE;
  options.threads = 2;
  std::vector<double> want_d(nq);
  std::vector<int64_t> want_i(nq);
  xhd_nearest_result r{};
  CHECK_EQ(xhd_nearest_points(&q, &all, &options, want_d.data(), want_i.data(), &r, nullptr), int32_t(XHD_OK));
  for (const size_t tile : {size_t(100), size_t(333), nt}) {
    for (const bool reversed : {false, true}) {
      std::vector<double> running_d2(nq, INFINITY);
      std::vector<int64_t> running_to(nq, XHD_NO_INDEX);
      const size_t tiles = (nt + tile - 1) / tile;
      for (size_t k = 0; k < tiles; ++k) {
        const size_t t = reversed ? tiles - 1 - k : k;
        const size_t first = t * tile, count = std::min(tile, nt - first);
        const xhd_points part{nullptr, count, target.data() + 3 * first};
        std::vector<double> d(nq);
        std::vector<int64_t> at(nq);
        CHECK_EQ(xhd_nearest_points(&q, &part, &options, d.data(), at.data(), &r, nullptr), int32_t(XHD_OK));
        std::vector<double> d2(nq);
        std::vector<int64_t> to(nq);
        for (size_t i = 0; i < nq; ++i) {
          to[i] = static_cast<int64_t>(first) + at[i];
          d2[i] = squared_distance(queries, i, target, static_cast<size_t>(to[i]));
        }
        if (k == 0) d2[3] = NAN;  // a query this tile did not measure changes nothing
        xhd::merge_tile(nq, d2.data(), to.data(), running_d2.data(), running_to.data());
      }
      // Query 3 missed one tile (NaN above): the others must be the whole target's nearest exactly.
      bool same = true;
      for (size_t i = 0; i < nq; ++i)
        if (i != 3) same = same && running_to[i] == want_i[i] && std::sqrt(running_d2[i]) == want_d[i];
      CHECK(same);
    }
  }
  double d2 = INFINITY;
  int64_t to = XHD_NO_INDEX;
  CHECK(xhd::offer_tile_nearest(4.0, 9, d2, to));
  CHECK(!xhd::offer_tile_nearest(4.0, 12, d2, to));  // a tie goes to the smaller index
  CHECK(xhd::offer_tile_nearest(4.0, 2, d2, to));
  CHECK(!xhd::offer_tile_nearest(NAN, 0, d2, to));
  CHECK_EQ(to, int64_t(2));
}
