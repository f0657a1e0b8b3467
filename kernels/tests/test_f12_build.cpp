// The f12 hierarchy's parallel build: the oriented boxes and DOP reaches are the same bits whether a node's
// vertices are read as its corners or as its distinct points (node_points.h), on one thread or several (the
// top levels then split each node's scan among the threads), and every node's centre, extents and reaches
// are what their definition gives from its corners (recomputed here by a plain scan). Then the answers: the
// hierarchy against every triangle pair on meshes large enough for split scans and point blocks.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "../abi/progress.h"
#include "../cpu/node_points.h"
#include "../cpu/node_bounds.h"
#include "../geometry/f12_bvh.h"
#include "../geometry/oriented_box_build.h"
#include "check.h"
#include "distance_walk.h"
#include "meshes.h"
#include "random_points.h"
#include "reach_check.h"
#include "xhd.h"

namespace {

using xhd::DopReaches;
using xhd::OrientedBox;

struct Shapes {
  std::vector<OrientedBox> boxes;
  std::vector<DopReaches> reaches;
};

Shapes build(const xhd::F12Mesh& mesh, const xhd::NodeVertexBlocks* blocks, int threads) {
  const xhd::Progress none(nullptr);
  Shapes s;
  s.boxes.resize(xhd::f12_node_count(mesh.shape));
  s.reaches.resize(s.boxes.size());
  xhd::build_oriented_shapes(
      mesh, blocks, true, threads, none,
      xhd::OrientedShapeSink{s.boxes.data(), sizeof(OrientedBox), s.reaches.data(), sizeof(DopReaches)});
  return s;
}

bool same_box(const OrientedBox& x, const OrientedBox& y) {
  bool same = true;
  for (int j = 0; j < 3; ++j) {
    same = same && x.c[j] == y.c[j] && x.e[j] == y.e[j];
    for (int k = 0; k < 3; ++k) same = same && x.u[j][k] == y.u[j][k];
  }
  return same;
}

bool same_reaches(const DopReaches& x, const DopReaches& y) {
  return x.r == y.r && std::memcmp(x.h, y.h, sizeof(x.h)) == 0;
}

// Node `node`'s box and reaches against their definition over its corners: the centre from the corners'
// interval along the axes measured from the node's first corner, the extents and reaches about that centre.
void check_definition(const xhd::F12Mesh& mesh, uint64_t node, const OrientedBox& box, const DopReaches& reaches) {
  const xhd::F12Shape& s = mesh.shape;
  const uint32_t level = xhd::f12_level(node), shift = s.depth - level;
  const uint64_t i = node - ((1ull << level) - 1);
  const uint64_t first = 3ull * xhd::f12_leaf_first(s, i << shift),
                 last = 3ull * xhd::f12_leaf_first(s, (i + 1) << shift);
  const float* c = mesh.corners.data();
  auto interval = [&](const double o[3], double lo[3], double hi[3]) {
    for (int j = 0; j < 3; ++j) lo[j] = INFINITY, hi[j] = -INFINITY;
    for (uint64_t v = first; v < last; ++v)
      for (int j = 0; j < 3; ++j) {
        const double p[3] = {c[3 * v] - o[0], c[3 * v + 1] - o[1], c[3 * v + 2] - o[2]};
        const double h = double(box.u[j][0]) * p[0] + double(box.u[j][1]) * p[1] + double(box.u[j][2]) * p[2];
        lo[j] = std::fmin(lo[j], h), hi[j] = std::fmax(hi[j], h);
      }
  };
  double o[3] = {c[3 * first], c[3 * first + 1], c[3 * first + 2]}, lo[3], hi[3];
  interval(o, lo, hi);
  double centre[3] = {o[0], o[1], o[2]};
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 3; ++k) centre[k] += 0.5 * (lo[j] + hi[j]) * box.u[j][k];
  for (int k = 0; k < 3; ++k) CHECK_EQ(box.c[k], static_cast<float>(centre[k]));
  // The extents: the same intervals moved to the float centre (one scan: oriented_box_build.cpp, finish_node).
  const double at[3] = {box.c[0], box.c[1], box.c[2]};
  const double to_centre[3] = {at[0] - o[0], at[1] - o[1], at[2] - o[2]};
  for (int j = 0; j < 3; ++j) {
    const double moved = double(box.u[j][0]) * to_centre[0] + double(box.u[j][1]) * to_centre[1] +
                         double(box.u[j][2]) * to_centre[2];
    const double e = std::fmax(-(lo[j] - moved), hi[j] - moved);
    CHECK_EQ(box.e[j], std::nextafter(static_cast<float>(e * (1.0 + 1e-12)), INFINITY));
  }
  // Every corner lies within its reach along each of the 26 directions (in the stored units, rounded up).
  bool within = true;
  for (uint64_t v = first; v < last; ++v) {
    double q[3];
    for (int j = 0; j < 3; ++j)
      q[j] = double(box.u[j][0]) * (c[3 * v] - at[0]) + double(box.u[j][1]) * (c[3 * v + 1] - at[1]) +
             double(box.u[j][2]) * (c[3 * v + 2] - at[2]);
    within = within && xhd_test::within_reaches(q, reaches);
  }
  CHECK(within);
}

xhd::F12Mesh f12_of(const std::vector<float>& xyz, const std::vector<uint32_t>& triangles) {
  return xhd::build_f12_mesh(xyz.data(), triangles.data(), triangles.size() / 3, 2, xhd::Progress(nullptr));
}


}  // namespace

TEST(f12_shapes_same_from_points_and_threads) {
  // A closed sphere large enough that the top levels split their scans (nodes of over 2 x 32k vertices), a
  // small one (every node within the point levels), a soup (no repeated vertices), and tiny meshes.
  const std::vector<xhd_test::Mesh> meshes{
      xhd_test::sphere(120, 160, 1.0, 0.0), xhd_test::sphere(7, 9, 2.0, 1.0), xhd_test::soup(5000, 7),
      xhd_test::soup(1, 3), xhd_test::soup(3, 4), xhd_test::sphere(2, 3, 1.0, 0.0)};
  for (const xhd_test::Mesh& m : meshes) {
    const std::vector<float> xyz = xhd_test::to_float(m.xyz);
    const xhd::F12Mesh mesh = f12_of(xyz, m.triangles);
    const Shapes reference = build(mesh, nullptr, 1);
    const xhd::NodePoints points = xhd::build_node_points(mesh, 256, 2, xhd::Progress(nullptr));
    const xhd::NodeVertexBlocks blocks{points.first_level, UINT32_MAX, points.start.data(), points.padded.data()};
    for (int threads : {1, 3, 8})
      for (const xhd::NodeVertexBlocks* b : {static_cast<const xhd::NodeVertexBlocks*>(nullptr), &blocks}) {
        const Shapes other = build(mesh, b, threads);
        bool boxes = true, reaches = true;
        for (size_t k = 0; k < reference.boxes.size(); ++k) {
          boxes = boxes && same_box(reference.boxes[k], other.boxes[k]);
          reaches = reaches && same_reaches(reference.reaches[k], other.reaches[k]);
        }
        CHECK(boxes);
        CHECK(reaches);
      }
    // The definition, on a sample of nodes of every level (all of them for the small meshes).
    const uint64_t nodes = reference.boxes.size(), step = nodes > 4000 ? nodes / 997 : 1;
    for (uint64_t node = 0; node < nodes; node += step)
      check_definition(mesh, node, reference.boxes[node], reference.reaches[node]);
    check_definition(mesh, 0, reference.boxes[0], reference.reaches[0]);
  }
}

TEST(f12_shapes_on_demand_same_bits) {
  // Every node's bounds made on demand (NodeBounds) against the level-by-level build: the same box and
  // reaches, and for the small nodes the same points as build_node_points lays out; and the bounds built all
  // at once (not on demand) the same again. The large sphere's top nodes are scanned in parts when
  // threads > 1 and read their moments from the top levels' table; 6 threads ask for the nodes at once, each
  // in its own order, so most nodes are asked for by several threads together.
  const std::vector<xhd_test::Mesh> meshes{xhd_test::sphere(120, 160, 1.0, 0.0), xhd_test::sphere(7, 9, 2.0, 1.0),
                                           xhd_test::soup(5000, 7), xhd_test::soup(1, 3), xhd_test::soup(3, 4)};
  for (const xhd_test::Mesh& m : meshes) {
    const std::vector<float> xyz = xhd_test::to_float(m.xyz);
    const xhd::F12Mesh mesh = f12_of(xyz, m.triangles);
    const Shapes reference = build(mesh, nullptr, 2);
    const xhd::NodePoints points = xhd::build_node_points(mesh, 256, 2, xhd::Progress(nullptr));
    for (int threads : {1, 3}) {
      const xhd::NodeBounds on_demand(mesh, 256, threads, true, xhd::Progress(nullptr));
      const uint64_t nodes = reference.boxes.size();
      std::vector<std::thread> askers;
      for (uint64_t t = 0; t < 6; ++t)
        askers.emplace_back([&, t] {
          for (uint64_t k = 0; k < nodes; ++k) {
            const uint32_t node = static_cast<uint32_t>((k * (2 * t + 1) + t) % nodes);
            on_demand.shape(node);
            if (on_demand.has_points(node)) on_demand.points(node);
          }
        });
      for (std::thread& a : askers) a.join();
      CHECK_EQ(on_demand.shapes_made(), nodes);
      bool boxes = true, reaches = true, same_points = true;
      uint64_t with_points = 0;
      for (uint32_t node = 0; node < nodes; ++node) {
        boxes = boxes && same_box(reference.boxes[node], on_demand.shape(node).box);
        reaches = reaches && same_reaches(reference.reaches[node], on_demand.shape(node).dop);
        CHECK_EQ(on_demand.has_points(node), points.first_level != UINT32_MAX && points.has(node));
        if (!on_demand.has_points(node) || !points.has(node)) continue;
        ++with_points;
        const xhd::NodePointsView got = on_demand.points(node);
        same_points = same_points && got.padded == points.count(node) &&
                      std::memcmp(got.xs, points.xs(node), 3ull * got.padded * sizeof(float)) == 0;
      }
      CHECK(boxes);
      CHECK(reaches);
      CHECK(same_points);
      CHECK_EQ(on_demand.points_made(), with_points);
    }
    const xhd::NodeBounds built(mesh, 256, 2, false, xhd::Progress(nullptr));
    bool boxes = true, reaches = true;
    for (uint32_t node = 0; node < reference.boxes.size(); ++node) {
      boxes = boxes && same_box(reference.boxes[node], built.shape(node).box);
      reaches = reaches && same_reaches(reference.reaches[node], built.shape(node).dop);
      CHECK_EQ(built.has_points(node), points.first_level != UINT32_MAX && points.has(node));
    }
    CHECK(boxes);
    CHECK(reaches);
  }
}

TEST(f12_parallel_build_answers_match_brute) {
  // Two bumpy spheres of about 2,000 triangles (node points on several levels), B turned and moved through
  // crossing, touching-close and apart, the hierarchy on 1 and 3 threads against every pair.
  const xhd_test::Mesh a = xhd_test::sphere(30, 36, 1.0, 0.0), b = xhd_test::sphere(28, 34, 0.6, 0.3);
  const std::vector<float> a32 = xhd_test::to_float(a.xyz), b32 = xhd_test::to_float(b.xyz);
  const xhd_mesh ma{a32.data(), a32.size() / 3, a.triangles.data(), a.triangles.size() / 3, nullptr};
  const xhd_mesh mb{b32.data(), b32.size() / 3, b.triangles.data(), b.triangles.size() / 3, nullptr};
  auto create = [&](int method, int threads, int32_t more = 0) {
    xhd_distance_options o{};
    o.which = XHD_DISTANCE_MIN | XHD_DISTANCE_MAX | more;
    o.method = method;
    o.threads = threads;
    xhd_distance_context* c = nullptr;
    CHECK_EQ(xhd_distance_context_create(&ma, &mb, &o, &c, nullptr, nullptr), int32_t(XHD_OK));
    return c;
  };
  xhd_distance_context* brute = create(XHD_DISTANCE_BRUTE, 2);
  xhd_distance_context* one = create(XHD_DISTANCE_BVH, 1);
  xhd_distance_context* three = create(XHD_DISTANCE_BVH, 3);
  // Bounds made on demand: each query makes the nodes it reaches first, the later ones reuse them.
  xhd_distance_context* on_demand = create(XHD_DISTANCE_BVH, 3, XHD_DISTANCE_ON_DEMAND);
  if (brute == nullptr || one == nullptr || three == nullptr || on_demand == nullptr) return;
  xhd_test::check_same_answers_along_walk({brute, one, three, on_demand}, 6);
  xhd_distance_context_destroy(brute);
  xhd_distance_context_destroy(one);
  xhd_distance_context_destroy(three);
  xhd_distance_context_destroy(on_demand);
}

namespace {

// The kd order's definition, one node at a time on one thread: the centroids' box, its longest side, and a
// full sort of the node's run by (coordinate, triangle). Each leaf's set of triangles must come out the same.
std::vector<std::vector<uint32_t>> reference_leaves(const std::vector<float>& xyz, const std::vector<uint32_t>& tri) {
  const uint64_t n = tri.size() / 3;
  const xhd::F12Shape s = xhd::f12_shape(static_cast<uint32_t>(n));
  struct C {
    float at[3];
    uint32_t t;
  };
  std::vector<C> c(n);
  for (uint64_t t = 0; t < n; ++t) {
    for (int i = 0; i < 3; ++i)
      c[t].at[i] = (xyz[3ull * tri[3 * t] + i] + xyz[3ull * tri[3 * t + 1] + i] + xyz[3ull * tri[3 * t + 2] + i]) / 3.f;
    c[t].t = static_cast<uint32_t>(t);
  }
  for (uint32_t level = 0; level < s.depth; ++level) {
    const uint32_t shift = s.depth - level;
    for (uint64_t i = 0; i < (1ull << level); ++i) {
      const uint64_t first = xhd::f12_leaf_first(s, i << shift), last = xhd::f12_leaf_first(s, (i + 1) << shift);
      float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
      for (uint64_t k = first; k < last; ++k)
        for (int j = 0; j < 3; ++j) lo[j] = std::fmin(lo[j], c[k].at[j]), hi[j] = std::fmax(hi[j], c[k].at[j]);
      int axis = 0;
      for (int j = 1; j < 3; ++j)
        if (hi[j] - lo[j] > hi[axis] - lo[axis]) axis = j;
      std::sort(c.begin() + first, c.begin() + last, [axis](const C& x, const C& y) {
        return x.at[axis] < y.at[axis] || (x.at[axis] == y.at[axis] && x.t < y.t);
      });
    }
  }
  std::vector<std::vector<uint32_t>> leaves(1ull << s.depth);
  for (uint64_t leaf = 0; leaf < leaves.size(); ++leaf) {
    for (uint64_t k = xhd::f12_leaf_first(s, leaf); k < xhd::f12_leaf_first(s, leaf + 1); ++k)
      leaves[leaf].push_back(c[k].t);
    std::sort(leaves[leaf].begin(), leaves[leaf].end());
  }
  return leaves;
}

// About 150k triangles (above the size split on every thread) with corners on a coarse integer grid: many
// centroids tie on the split axis (ties go by index), and some coordinates are -0 (equal to +0).
xhd_test::Mesh grid_soup(uint64_t n, uint64_t seed) {
  xhd_test::Random rng(seed);
  xhd_test::Mesh m{"grid soup", {}, {}};
  for (uint64_t v = 0; v < 3 * n; ++v) {
    for (int k = 0; k < 3; ++k) {
      const double x = double(rng.below(9)) - 4.0;
      m.xyz.push_back(x == 0.0 && rng.below(2) == 0 ? -0.0 : x);
    }
    m.triangles.push_back(static_cast<uint32_t>(v));
  }
  return m;
}

// A soup whose every 16th triangle lies far along x: the shared split's strided sample (every 16th at this size)
// then sees only those, its bracket misses the median, and the histograms must find it instead.
xhd_test::Mesh strided_outliers(uint64_t n, uint64_t seed) {
  xhd_test::Mesh m = xhd_test::soup(n, seed);
  for (uint64_t t = 0; t < n; t += 16)
    for (int k = 0; k < 3; ++k) m.xyz[9 * t + 3 * k] += 10.0;
  return m;
}

}  // namespace

TEST(f12_kd_order_same_leaves_on_any_threads) {
  // The first three are split on every thread at the root (over 131,072 triangles), the 270,000 on two levels
  // (the second level's centroid boxes from the first's partition).
  for (const xhd_test::Mesh& m : {grid_soup(150000, 11), xhd_test::sphere(300, 250, 1.0, 0.5),
                                  strided_outliers(150000, 13), grid_soup(270000, 17), xhd_test::soup(3000, 5)}) {
    const std::vector<float> xyz = xhd_test::to_float(m.xyz);
    const std::vector<std::vector<uint32_t>> expected = reference_leaves(xyz, m.triangles);
    std::vector<uint32_t> first_order;
    for (int threads : {1, 2, 5}) {
      const xhd::F12Mesh mesh =
          xhd::build_f12_mesh(xyz.data(), m.triangles.data(), m.triangles.size() / 3, threads, xhd::Progress(nullptr));
      const xhd::F12Shape& s = mesh.shape;
      bool same = true, permutation = true;
      std::vector<bool> seen(m.triangles.size() / 3, false);
      for (uint64_t leaf = 0; leaf < expected.size(); ++leaf) {
        std::vector<uint32_t> got;
        for (uint64_t k = xhd::f12_leaf_first(s, leaf); k < xhd::f12_leaf_first(s, leaf + 1); ++k) {
          got.push_back(mesh.triangle[k]);
          permutation = permutation && !seen[mesh.triangle[k]];
          seen[mesh.triangle[k]] = true;
        }
        same = same && got == expected[leaf];  // in index order within the leaf
      }
      CHECK(permutation);
      CHECK(same);
      const std::vector<uint32_t> order(mesh.triangle.begin(), mesh.triangle.end());
      if (first_order.empty()) first_order = order;
      CHECK(order == first_order);
    }
  }
}
