// The target tree of the orphaned island queries (geometry/target_tree.h): its nearest target, near and far, must
// be a scan's over the same targets to the bit, ties to the smallest index included.
#include <cmath>
#include <random>
#include <vector>

#include "../geometry/point_frame.h"
#include "../geometry/target_tree.h"
#include "check.h"

namespace {

// Every target of `ids` in turn by exact_dist2 itself, the one formula of every exact answer.
xhd::NearestTarget scanned(const double q[3], const xhd::PointTruth& t, const std::vector<int64_t>& ids) {
  const xhd::PointTruth query{nullptr, q, 1};
  xhd::NearestTarget best{INFINITY, -1};
  for (const int64_t id : ids) {
    const double d2 = xhd::exact_dist2(query, 0, t, static_cast<size_t>(id));
    if (d2 < best.dist2 || (d2 == best.dist2 && id < best.target)) best = {d2, id};
  }
  return best;
}

}  // namespace

TEST(target_tree_finds_a_scans_nearest_near_and_far) {
  std::mt19937 gen(5);
  std::uniform_int_distribution<int> lattice(0, 20);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  // Targets on a coarse lattice (many equal distances) with copies, a few at general places; ids out of order and
  // leaving some of the set out.
  std::vector<double> xyz;
  for (int i = 0; i < 3000; ++i)
    for (int k = 0; k < 3; ++k) xyz.push_back(i % 7 == 0 ? u(gen) : 0.05 * lattice(gen));
  for (int i = 100; i < 140; i += 4)
    for (int k = 0; k < 3; ++k) xyz[3 * (i + 1) + k] = xyz[3 * i + k];
  const xhd::PointTruth truth{nullptr, xyz.data(), xyz.size() / 3};
  std::vector<int64_t> ids;
  for (int64_t i = 2999; i >= 0; --i)
    if (i % 11 != 3) ids.push_back(i);
  for (const int threads : {1, 3}) {
    const xhd::TargetTree tree(truth, ids, threads);
    CHECK_EQ(tree.size(), ids.size());
    uint64_t evals = 0;
    int queries = 0;
    for (const double reach : {0.0, 2.0, 1e3, 1e9}) {
      for (int n = 0; n < 300; ++n) {
        // Lattice points (ties), random points, and points far along an axis or a diagonal.
        double q[3];
        for (int k = 0; k < 3; ++k) q[k] = (n % 2 == 0 ? 0.05 * lattice(gen) : u(gen)) + (k != n % 3 ? reach : 0.0);
        const xhd::NearestTarget want = scanned(q, truth, ids), got = tree.nearest(q, evals);
        CHECK_EQ(got.dist2, want.dist2);
        CHECK_EQ(got.target, want.target);
        ++queries;
      }
    }
    // The tree pruned: far fewer distances than a scan's.
    CHECK(evals < uint64_t(queries) * ids.size() / 10);
  }
}

TEST(target_tree_over_one_target_and_floats) {
  const std::vector<float> one = {1.f, 2.f, 3.f, 1e9f, 0.f, 0.f};
  const xhd::PointTruth truth{one.data(), nullptr, 2};
  const xhd::TargetTree tree(truth, {1}, 2);
  uint64_t evals = 0;
  const double q[3] = {0, 0, 0};
  const xhd::NearestTarget got = tree.nearest(q, evals);
  CHECK_EQ(got.target, int64_t(1));
  CHECK_EQ(got.dist2, 1e18);
  CHECK_EQ(evals, uint64_t(1));
}
