// Mesh distance contexts queried along one walk of poses and checked against each other.
#pragma once

#include <cmath>
#include <vector>

#include "check.h"
#include "xhd.h"

namespace xhd_test {

// Queries every context in turn for the first `poses` poses of a walk (B turned about z and moved along x, y
// and z: crossing, touching-close and apart for unit-sized meshes), and checks that each context's minimum and
// maximum (distance and triangle pair) are the first context's.
inline void check_same_answers_along_walk(const std::vector<xhd_distance_context*>& each, int poses) {
  for (int k = 0; k < poses; ++k) {
    const double t = 0.7 * k, c = std::cos(t), s = std::sin(t);
    const double pose[12] = {c, -s, 0, 0.45 * k, s, c, 0, -0.1 * k, 0, 0, 1, 0.05 * k};
    std::vector<xhd_distance_result> r(each.size());
    for (size_t j = 0; j < each.size(); ++j)
      CHECK_EQ(xhd_distance_query(each[j], pose, &r[j], nullptr), int32_t(XHD_OK));
    for (size_t j = 1; j < each.size(); ++j) {
      CHECK_EQ(r[j].min.distance, r[0].min.distance);
      CHECK_EQ(r[j].min.triangle_a, r[0].min.triangle_a);
      CHECK_EQ(r[j].min.triangle_b, r[0].min.triangle_b);
      CHECK_EQ(r[j].max.distance, r[0].max.distance);
      CHECK_EQ(r[j].max.triangle_a, r[0].max.triangle_a);
      CHECK_EQ(r[j].max.triangle_b, r[0].max.triangle_b);
    }
  }
}

}  // namespace xhd_test
