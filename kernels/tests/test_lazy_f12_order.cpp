// The f12 hierarchy ordered as searches reach it (cpu/lazy_f12_order.h): once every node has been reached, by
// several threads at once in their own orders, the slots, corners, input corners and boxes are exactly the full
// build's; every shape made above the frontier holds its node's corners within its box and reaches; and the
// one-pose contexts (XHD_DISTANCE_ON_DEMAND) give the full hierarchy's answers on meshes large enough for
// frontier levels, for top levels split at once, and for double inputs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>

#include "../abi/progress.h"
#include "../cpu/lazy_f12_order.h"
#include "../geometry/f12_bvh.h"
#include "../geometry/mesh_frame.h"
#include "../geometry/oriented_box_build.h"
#include "../geometry/oriented_dop.h"
#include "check.h"
#include "distance_walk.h"
#include "meshes.h"
#include "random_points.h"
#include "reach_check.h"
#include "xhd.h"

namespace {

using xhd::DopReaches;
using xhd::OrientedBox;

// Every corner of the node's triangles lies within the box's extents along its axes and within its reaches
// along the 26 directions (the stored units, rounded up), measured in double about the box's centre.
bool holds_corners(const xhd::F12Mesh& mesh, uint64_t node, const OrientedBox& box, const DopReaches& reaches) {
  const xhd::F12Slots run = xhd::f12_node_slots(mesh.shape, node);
  bool within = true;
  for (uint64_t v = 3ull * run.first; v < 3ull * run.last; ++v) {
    const float* p = mesh.corners.data() + 3 * v;
    double q[3];
    for (int j = 0; j < 3; ++j)
      q[j] = double(box.u[j][0]) * (double(p[0]) - box.c[0]) + double(box.u[j][1]) * (double(p[1]) - box.c[1]) +
             double(box.u[j][2]) * (double(p[2]) - box.c[2]);
    for (int j = 0; j < 3; ++j) within = within && std::fabs(q[j]) <= box.e[j];
    within = within && xhd_test::within_reaches(q, reaches);
  }
  return within;
}

bool same_box(const xhd::Box& x, const xhd::Box& y) {
  for (int k = 0; k < 3; ++k)
    if (x.min[k] != y.min[k] || x.max[k] != y.max[k]) return false;
  return true;
}


}  // namespace

TEST(lazy_f12_order_reached_everywhere_is_the_full_build) {
  // A sphere of 144,000 triangles (its root split at once: more than the shared splits' 131,072), one of 38,400
  // (frontier levels, nothing at once), a soup, and meshes smaller than a frontier node (the root is one). The
  // sphere is passed as doubles, so the input's corners are gathered too.
  const std::vector<xhd_test::Mesh> meshes{xhd_test::sphere(300, 240, 1.0, 0.0), xhd_test::sphere(120, 160, 2.0, 1.0),
                                           xhd_test::soup(9000, 7), xhd_test::soup(1, 3), xhd_test::soup(700, 4)};
  const xhd::Progress none(nullptr);
  for (size_t m = 0; m < meshes.size(); ++m) {
    const xhd_test::Mesh& input = meshes[m];
    const std::vector<float> xyz = xhd_test::to_float(input.xyz);
    const uint64_t n = input.triangles.size() / 3;
    const xhd_mesh mesh{m == 0 ? nullptr : xyz.data(), xyz.size() / 3, input.triangles.data(), n,
                        m == 0 ? input.xyz.data() : nullptr};
    xhd::MeshFrame frame;
    xhd::frame_mesh(mesh, 2, frame);
    const xhd::F12Mesh full = xhd::build_f12_mesh(frame.xyz(), input.triangles.data(), n, 2, none);
    const xhd::UninitLargeVector<double> full_truth = xhd::truth_corners(full, frame, 2);
    const xhd::UninitLargeVector<xhd::Box> full_boxes = xhd::f12_boxes(full, 2);
    for (int threads : {1, 3}) {
      xhd::F12Mesh lazy_mesh;
      xhd::UninitLargeVector<double> truth;
      xhd::UninitLargeVector<xhd::Box> boxes;
      xhd::LazyF12Order lazy(frame, mesh.vertex_count, lazy_mesh, truth, boxes, threads, none);
      const uint64_t nodes = xhd::f12_node_count(lazy_mesh.shape);
      CHECK_EQ(nodes, full_boxes.size());
      std::vector<OrientedBox> shapes(nodes);
      std::vector<DopReaches> reaches(nodes);
      lazy.set_shape_sink(
          xhd::OrientedShapeSink{shapes.data(), sizeof(OrientedBox), reaches.data(), sizeof(DopReaches)});
      std::vector<std::thread> askers;
      for (uint64_t t = 0; t < 6; ++t)
        askers.emplace_back([&, t] {
          for (uint64_t k = 0; k < nodes; ++k) {
            const uint32_t node = static_cast<uint32_t>((nodes - 1 - (k * (2 * t + 1) + t) % nodes));
            lazy.reach(node);
          }
        });
      for (std::thread& a : askers) a.join();
      const uint64_t tracked = xhd::f12_node_count({lazy_mesh.shape.triangles, lazy.frontier()});
      CHECK_EQ(lazy.nodes_made(), tracked);
      CHECK(std::equal(full.triangle.begin(), full.triangle.end(), lazy_mesh.triangle.begin()));
      CHECK(std::equal(full.corners.begin(), full.corners.end(), lazy_mesh.corners.begin()));
      CHECK_EQ(truth.size(), full_truth.size());
      CHECK(std::equal(full_truth.begin(), full_truth.end(), truth.begin()));
      bool boxes_same = true;
      for (uint64_t node = 0; node < nodes; ++node) boxes_same = boxes_same && same_box(boxes[node], full_boxes[node]);
      CHECK(boxes_same);
    }
  }
}

TEST(lazy_f12_shapes_hold_their_nodes) {
  // The shapes above the frontier, made from a sample's axes and a scan (or, on the top levels, the boxes of
  // their descendants): each checked over its node's corners before anything below it is split, by reaching
  // the nodes level by level on one thread (a node's run is final only while nothing below it is split).
  const std::vector<xhd_test::Mesh> meshes{xhd_test::sphere(300, 240, 1.0, 0.0), xhd_test::soup(40000, 5)};
  const xhd::Progress none(nullptr);
  for (const xhd_test::Mesh& input : meshes) {
    const std::vector<float> xyz = xhd_test::to_float(input.xyz);
    const uint64_t n = input.triangles.size() / 3;
    const xhd_mesh mesh{xyz.data(), xyz.size() / 3, input.triangles.data(), n, nullptr};
    xhd::MeshFrame frame;
    xhd::frame_mesh(mesh, 2, frame);
    for (int threads : {1, 3}) {
      xhd::F12Mesh lazy_mesh;
      xhd::UninitLargeVector<double> truth;
      xhd::UninitLargeVector<xhd::Box> boxes;
      xhd::LazyF12Order lazy(frame, mesh.vertex_count, lazy_mesh, truth, boxes, threads, none);
      const uint64_t above = xhd::f12_node_count({lazy_mesh.shape.triangles, lazy.frontier()}) -
                             (uint64_t(1) << lazy.frontier());
      CHECK(lazy.frontier() >= 2);
      std::vector<OrientedBox> shapes(above);
      std::vector<DopReaches> reaches(above);
      lazy.set_shape_sink(
          xhd::OrientedShapeSink{shapes.data(), sizeof(OrientedBox), reaches.data(), sizeof(DopReaches)});
      bool held = true;
      // Breadth first: when node k is reached, only nodes above it (and beside it) have been split.
      for (uint32_t node = 0; node < above; ++node) {
        lazy.reach(node);
        held = held && holds_corners(lazy_mesh, node, shapes[node], reaches[node]);
        const xhd::F12Slots run = xhd::f12_node_slots(lazy_mesh.shape, node);
        xhd::Box box;
        xhd::box_make_empty(box);
        for (uint64_t v = 3ull * run.first; v < 3ull * run.last; ++v)
          xhd::box_grow(box, lazy_mesh.corners.data() + 3 * v);
        held = held && same_box(box, boxes[node]);
      }
      CHECK(held);
    }
  }
}

TEST(lazy_f12_answers_match_the_full_hierarchy) {
  // Two bumpy spheres of 38,400 and 33,600 triangles (frontier levels) and a pair of 144,000 (top levels split
  // at once), float inputs and (the first pair) double ones, along distance_walk.h's poses: the one-pose contexts
  // on 1 and 3 threads, each queried in turn (later queries reuse the nodes made), against the full hierarchy's
  // minimum and maximum (the large pair's minimum alone).
  struct Pair {
    xhd_test::Mesh a, b;
  };
  const std::vector<Pair> pairs{{xhd_test::sphere(120, 160, 1.0, 0.0), xhd_test::sphere(112, 150, 0.6, 0.3)},
                                {xhd_test::sphere(300, 240, 1.0, 0.0), xhd_test::sphere(300, 240, 0.7, 0.2)}};
  for (const Pair& p : pairs)
    for (bool doubles : {false, true}) {
      if (doubles && &p != &pairs[0]) continue;  // the large pair once: the sanitizers' build is slow
      const std::vector<float> a32 = xhd_test::to_float(p.a.xyz), b32 = xhd_test::to_float(p.b.xyz);
      const xhd_mesh ma{doubles ? nullptr : a32.data(), a32.size() / 3, p.a.triangles.data(), p.a.triangles.size() / 3,
                        doubles ? p.a.xyz.data() : nullptr};
      const xhd_mesh mb{doubles ? nullptr : b32.data(), b32.size() / 3, p.b.triangles.data(), p.b.triangles.size() / 3,
                        doubles ? p.b.xyz.data() : nullptr};
      const bool large = &p != &pairs[0];
      auto create = [&](int threads, int32_t more) {
        xhd_distance_options o{};
        o.which = XHD_DISTANCE_MIN | (large ? 0 : XHD_DISTANCE_MAX) | more;  // the large pair's maximum: slow here
        o.method = XHD_DISTANCE_BVH;
        o.threads = threads;
        xhd_distance_context* c = nullptr;
        const int32_t status = xhd_distance_context_create(&ma, &mb, &o, &c, nullptr, nullptr);
        if (status != XHD_OK) std::fprintf(stderr, "%s\n", xhd_last_error());
        CHECK_EQ(status, int32_t(XHD_OK));
        return c;
      };
      const std::vector<xhd_distance_context*> each{create(3, 0), create(1, XHD_DISTANCE_ON_DEMAND),
                                                    create(3, XHD_DISTANCE_ON_DEMAND)};
      if (each[0] == nullptr || each[1] == nullptr || each[2] == nullptr) return;
      xhd_test::check_same_answers_along_walk(each, large ? 3 : 5);
      for (xhd_distance_context* c : each) xhd_distance_context_destroy(c);
    }
}
