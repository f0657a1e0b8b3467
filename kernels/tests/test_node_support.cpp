// node_support (cpu/node_points.h), the hull gaps' scan of a node's points: the largest product x.p over the
// points and where, computed in vectors as wide as the target's registers (8 doubles on AVX-512, 4 elsewhere),
// must give the same value and point as one scalar walk of the same rule, whichever width the build has: lane l
// keeps the first largest of the points l, l + 8, l + 16, ..., and the lanes are taken in order, the first where
// equal. Ties are made on purpose (repeated points, a lattice whose products coincide, one point everywhere).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "../cpu/node_points.h"
#include "check.h"
#include "random_points.h"

namespace {

using xhd::kPointBlock;
using xhd::Support;

// The product as the scan forms it: ((px x + py y) + pz z), each point's float coordinates made doubles.
double product(const std::vector<float>& b, uint32_t padded, uint32_t i, double x, double y, double z) {
  return (double(b[i]) * x + double(b[padded + i]) * y) + double(b[2 * padded + i]) * z;
}

Support scalar_support(const std::vector<float>& b, uint32_t padded, double x, double y, double z) {
  Support s{0.0, 0};
  for (uint32_t l = 0; l < kPointBlock; ++l) {
    Support lane{product(b, padded, l, x, y, z), l};
    for (uint32_t i = l + kPointBlock; i < padded; i += kPointBlock) {
      const double h = product(b, padded, i, x, y, z);
      if (h > lane.h) lane = {h, i};
    }
    if (l == 0 || lane.h > s.h) s = lane;
  }
  return s;
}

// Blocks laid out as build_node_points lays them: xs, then ys, then zs, each padded with the first point.
std::vector<float> blocks(const std::vector<float>& xyz, uint32_t& padded) {
  const uint32_t n = static_cast<uint32_t>(xyz.size() / 3);
  padded = (n + kPointBlock - 1) / kPointBlock * kPointBlock;
  std::vector<float> b(3 * padded);
  for (uint32_t i = 0; i < padded; ++i)
    for (int c = 0; c < 3; ++c) b[c * padded + i] = xyz[3 * (i < n ? i : 0) + c];
  return b;
}

void check_same(const std::vector<float>& xyz, double x, double y, double z) {
  uint32_t padded = 0;
  const std::vector<float> b = blocks(xyz, padded);
  const Support fast = xhd::node_support(b.data(), padded, x, y, z), slow = scalar_support(b, padded, x, y, z);
  CHECK(std::memcmp(&fast.h, &slow.h, sizeof(double)) == 0);
  CHECK_EQ(fast.at, slow.at);
  double most = -INFINITY;
  for (uint32_t i = 0; i < padded; ++i) most = std::fmax(most, product(b, padded, i, x, y, z));
  CHECK(fast.h == most);
}

}  // namespace

TEST(node_support_gives_the_scalar_rules_point_on_random_nodes) {
  xhd_test::Random rng(67);
  for (int round = 0; round < 400; ++round) {
    const uint32_t n = 1 + static_cast<uint32_t>(rng.below(300));
    std::vector<float> xyz(3 * n);
    for (float& v : xyz) v = static_cast<float>(rng.uniform(-1, 1) * std::pow(10.0, static_cast<int>(rng.below(7)) - 3));
    check_same(xyz, rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1));
  }
}

TEST(node_support_breaks_ties_as_the_scalar_rule_does) {
  xhd_test::Random rng(6767);
  // A lattice of small integers: products along integer directions coincide across lanes and blocks.
  for (int round = 0; round < 300; ++round) {
    const uint32_t n = 1 + static_cast<uint32_t>(rng.below(200));
    std::vector<float> xyz(3 * n);
    for (float& v : xyz) v = static_cast<float>(static_cast<int>(rng.below(5)) - 2);
    check_same(xyz, double(int(rng.below(3)) - 1), double(int(rng.below(3)) - 1), double(int(rng.below(3)) - 1));
  }
  // One point everywhere, and two points repeated in turn.
  check_same(std::vector<float>(3 * 37, 0.25f), 1.0, -2.0, 0.5);
  std::vector<float> two;
  for (int i = 0; i < 53; ++i) two.insert(two.end(), {float(i % 2), 1.0f, -1.0f});
  check_same(two, 1.0, 0.0, 0.0);
  check_same(two, 0.0, 1.0, 0.0);
}
