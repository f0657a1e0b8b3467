// The CPU grid (cpu/point_grid.cpp) on ordinary and degenerate inputs: every point in exactly one chunk of
// its own cell, each chunk's box holding its points, the cell table consistent; and the grid search with
// nothing pruned finding the float nearest neighbour that a scan of every point finds, through the rings
// and through the chunk tree. Index arithmetic gone wrong shows here (or as a sanitizer report).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "../cpu/point_grid.h"
#include "../cpu/point_grid_query.h"
#include "check.h"
#include "random_points.h"

namespace {

void check_structure(const xhd::PointGrid& g, const std::vector<float>& xyz) {
  const size_t n = xyz.size() / 3, cells = g.cell_count(), chunks = g.chunk_boxes.size();
  CHECK_EQ(g.ids.size(), n);
  CHECK_EQ(g.cell_chunks.size(), cells + 1);
  CHECK_EQ(g.cell_chunks[cells], uint32_t(chunks));
  CHECK_EQ(g.chunk_points.size(), chunks + 1);
  CHECK_EQ(g.chunk_points[chunks], uint32_t(n));
  // ids: a permutation, each sorted point the input point it names.
  std::vector<uint32_t> seen(g.ids.begin(), g.ids.end());
  std::sort(seen.begin(), seen.end());
  std::vector<uint32_t> all(n);
  std::iota(all.begin(), all.end(), 0u);
  CHECK(seen == all);
  bool ok = true;
  for (size_t c = 0; c < cells && ok; ++c) {
    ok = g.cell_chunks[c] <= g.cell_chunks[c + 1];
    for (uint32_t k = g.cell_chunks[c]; k < g.cell_chunks[c + 1] && ok; ++k) {
      const uint32_t begin = g.chunk_points[k], end = g.chunk_points[k + 1];
      ok = begin < end && end - begin <= xhd::kChunkPoints;
      for (uint32_t p = begin; p < end && ok; ++p) {
        const float* v = &g.xyz[3 * size_t(p)];
        const float* original = &xyz[3 * size_t(g.ids[p])];
        ok = v[0] == original[0] && v[1] == original[1] && v[2] == original[2] && g.cell_key(v) == c &&
             xhd::min_dist2(v, g.chunk_boxes[k]) == 0.f;
      }
    }
  }
  CHECK(ok);
}

// The nearest computed float distance from q to the points: what the grid search with nothing pruned finds.
float scan_nearest2(const std::vector<float>& xyz, const float q[3]) {
  float best = INFINITY;
  for (size_t i = 0; i < xyz.size(); i += 3)
    best = std::min(best, xhd::dist2(q[0], q[1], q[2], xyz[i], xyz[i + 1], xyz[i + 2]));
  return best;
}

void check_queries(const xhd::PointGrid& g, const std::vector<float>& xyz, xhd_test::Random& rng, double lo,
                   double size) {
  const auto nothing_pruned = [] { return -1.f; };
  bool ok = true;
  for (int k = 0; k < 200; ++k) {
    xhd::GridQuery q;
    for (float& c : q.p) c = float(rng.uniform(lo, lo + size));
    xhd::query_nearest(g, nothing_pruned, q);
    ok = ok && !q.pruned && q.best < g.ids.size() && q.cmin2 == scan_nearest2(xyz, q.p);
  }
  CHECK(ok);
}

std::vector<float> grid_input(xhd_test::Random& rng, size_t n, int shape) {
  std::vector<float> xyz(3 * n);
  for (size_t i = 0; i < n; ++i) {
    const float t = float(rng.uniform(0, 10));
    switch (shape) {
      case 0:  // a cloud
        for (int k = 0; k < 3; ++k) xyz[3 * i + k] = float(rng.uniform(0, 10));
        break;
      case 1:  // a line: one live axis
        xyz[3 * i] = t, xyz[3 * i + 1] = 2 * t, xyz[3 * i + 2] = -t;
        break;
      case 2:  // a plane (2D data, z = 0)
        xyz[3 * i] = t, xyz[3 * i + 1] = float(rng.uniform(0, 10)), xyz[3 * i + 2] = 0;
        break;
      case 3:  // one point
        xyz[3 * i] = 1.5f, xyz[3 * i + 1] = -2, xyz[3 * i + 2] = 3;
        break;
      default:  // two tight clusters far apart: crowded cells, many empty ones
        for (int k = 0; k < 3; ++k) xyz[3 * i + k] = float((i % 2 ? 1000.0 : 0.0) + rng.uniform(0, 1e-3));
    }
  }
  return xyz;
}

}  // namespace

TEST(point_grid_shapes) {
  xhd_test::Random rng(31);
  for (int shape = 0; shape < 5; ++shape)
    for (size_t n : {size_t(1), size_t(2), size_t(17), size_t(5000)}) {
      const std::vector<float> xyz = grid_input(rng, n, shape);
      xhd::PointGrid g;
      xhd::build_point_grid(xyz.data(), n, 0.0, 2, g);
      check_structure(g, xyz);
      check_queries(g, xyz, rng, -5, 20);
    }
}

TEST(point_grid_given_cell_sizes) {
  // A cell far too small for the extent is grown until the cell table stays within 4 cells a point; a cell
  // far too large gives a single cell.
  xhd_test::Random rng(32);
  const std::vector<float> xyz = grid_input(rng, 3000, 0);
  for (double cell : {1e-6, 0.37, 1e6}) {
    xhd::PointGrid g;
    xhd::build_point_grid(xyz.data(), 3000, cell, 3, g);
    CHECK(double(g.cell_count()) <= 4.0 * 3000 + 4096);
    check_structure(g, xyz);
    check_queries(g, xyz, rng, -1, 12);
  }
}

TEST(point_grid_tree_fallback) {
  // With no rings allowed, every query that is not settled in its own cell goes down the chunk tree.
  xhd_test::Random rng(33);
  for (int shape : {0, 2, 4}) {
    const std::vector<float> xyz = grid_input(rng, 4000, shape);
    xhd::PointGrid g;
    xhd::build_point_grid(xyz.data(), 4000, 0.0, 2, g);
    g.max_ring = 0;
    check_queries(g, xyz, rng, -50, 1100);
  }
}

TEST(point_grid_far_queries) {
  // A fine grid over a short segment, queried from millions of cells away (a set far from the other, as
  // two distant scans give): the cell arithmetic must not leave the int range.
  const std::vector<float> xyz{0, 0, 0, 1, 0, 0, 0.5f, 0, 0};
  xhd::PointGrid g;
  xhd::build_point_grid(xyz.data(), 3, 1e-9, 1, g);
  check_structure(g, xyz);
  const auto nothing_pruned = [] { return -1.f; };
  for (float far : {1e7f, -1e7f, 3e12f}) {
    xhd::GridQuery q;
    q.p[0] = far, q.p[1] = 0.25f, q.p[2] = -far;
    xhd::query_nearest(g, nothing_pruned, q);
    CHECK_EQ(q.cmin2, scan_nearest2(xyz, q.p));
  }
}
