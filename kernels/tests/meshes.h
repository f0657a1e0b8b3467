// Small meshes for the native tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "random_points.h"

namespace xhd_test {

struct Mesh {
  std::string name;
  std::vector<double> xyz;
  std::vector<uint32_t> triangles;
};

// A bumpy sphere of (rings x sectors) quads, split into triangles.
inline Mesh sphere(int rings, int sectors, double radius, double centre) {
  Mesh m{"sphere", {}, {}};
  for (int r = 0; r <= rings; ++r)
    for (int s = 0; s < sectors; ++s) {
      const double theta = M_PI * r / rings, phi = 2 * M_PI * s / sectors;
      const double bump = radius * (1 + 0.1 * std::sin(5 * phi) * std::sin(3 * theta));
      m.xyz.insert(m.xyz.end(), {centre + bump * std::sin(theta) * std::cos(phi),
                                 centre + bump * std::sin(theta) * std::sin(phi), centre + bump * std::cos(theta)});
    }
  for (int r = 0; r < rings; ++r)
    for (int s = 0; s < sectors; ++s) {
      const uint32_t a = r * sectors + s, b = r * sectors + (s + 1) % sectors, c = a + sectors, d = b + sectors;
      m.triangles.insert(m.triangles.end(), {a, b, c, b, d, c});  // the poles give degenerate triangles
    }
  return m;
}

// A soup of n small random triangles in the unit cube: no shared vertices.
inline Mesh soup(uint64_t n, uint64_t seed) {
  Random rng(seed);
  Mesh m{"soup", {}, {}};
  for (uint64_t t = 0; t < n; ++t) {
    const double x = rng.uniform(0, 1), y = rng.uniform(0, 1), z = rng.uniform(0, 1);
    for (int k = 0; k < 3; ++k) {
      m.xyz.insert(m.xyz.end(), {x + rng.uniform(0, 0.02), y + rng.uniform(0, 0.02), z + rng.uniform(0, 0.02)});
      m.triangles.push_back(static_cast<uint32_t>(3 * t + k));
    }
  }
  return m;
}

}  // namespace xhd_test
