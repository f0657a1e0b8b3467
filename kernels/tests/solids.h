// Closed meshes for the penetration tests: boxes, a subdivided octahedron blown up to a sphere (convex), and a
// torus (closed, not convex). Every triangle winds counterclockwise seen from outside.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "meshes.h"

namespace xhd_test {

inline Mesh box(const double lo[3], const double hi[3]) {
  Mesh m{"box", {}, {}};
  for (int i = 0; i < 8; ++i) m.xyz.insert(m.xyz.end(), {(i & 1) ? hi[0] : lo[0], (i & 2) ? hi[1] : lo[1], (i & 4) ? hi[2] : lo[2]});
  // Two triangles a face, corners by their bits (x = 1, y = 2, z = 4).
  m.triangles = {0, 2, 1, 1, 2, 3,  4, 5, 6, 5, 7, 6,  0, 1, 4, 1, 5, 4,
                 2, 6, 3, 3, 6, 7,  0, 4, 2, 2, 4, 6,  1, 3, 5, 3, 7, 5};
  return m;
}

// An octahedron's faces split `levels` times into four, every vertex pushed out to the sphere.
inline Mesh ball(int levels, double radius, const double centre[3]) {
  Mesh m{"ball", {}, {}};
  std::vector<double> unit{1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1};
  std::vector<uint32_t> t{0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
  for (int level = 0; level < levels; ++level) {
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> middle;
    auto mid = [&](uint32_t a, uint32_t b) {
      const auto key = std::minmax(a, b);
      const auto it = middle.find(key);
      if (it != middle.end()) return it->second;
      double p[3], length = 0;
      for (int k = 0; k < 3; ++k) p[k] = unit[3 * a + k] + unit[3 * b + k], length += p[k] * p[k];
      for (int k = 0; k < 3; ++k) unit.push_back(p[k] / std::sqrt(length));
      return middle[key] = static_cast<uint32_t>(unit.size() / 3 - 1);
    };
    std::vector<uint32_t> next;
    for (size_t f = 0; f < t.size(); f += 3) {
      const uint32_t a = t[f], b = t[f + 1], c = t[f + 2], ab = mid(a, b), bc = mid(b, c), ca = mid(c, a);
      next.insert(next.end(), {a, ab, ca, ab, b, bc, ca, bc, c, ab, bc, ca});
    }
    t.swap(next);
  }
  for (size_t i = 0; i < unit.size(); ++i) m.xyz.push_back(centre[i % 3] + radius * unit[i]);
  m.triangles = t;
  return m;
}

// A torus round the z axis: `around` segments of the big circle (radius big), `across` of the tube (radius small).
inline Mesh torus(int around, int across, double big, double small, const double centre[3]) {
  Mesh m{"torus", {}, {}};
  for (int i = 0; i < around; ++i)
    for (int j = 0; j < across; ++j) {
      const double u = 2 * M_PI * i / around, v = 2 * M_PI * j / across, r = big + small * std::cos(v);
      m.xyz.insert(m.xyz.end(), {centre[0] + r * std::cos(u), centre[1] + r * std::sin(u), centre[2] + small * std::sin(v)});
    }
  for (int i = 0; i < around; ++i)
    for (int j = 0; j < across; ++j) {
      const uint32_t a = i * across + j, b = ((i + 1) % around) * across + j, c = ((i + 1) % around) * across + (j + 1) % across,
                     d = i * across + (j + 1) % across;
      m.triangles.insert(m.triangles.end(), {a, b, c, a, c, d});
    }
  return m;
}

}  // namespace xhd_test
