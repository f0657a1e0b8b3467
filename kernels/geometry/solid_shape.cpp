#include "solid_shape.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "point_triangle.h"

namespace xhd {
namespace {

uint32_t root(std::vector<uint32_t>& parent, uint32_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

}  // namespace

SolidTopology solid_topology(const uint32_t* triangles, uint64_t triangle_count, uint64_t vertex_count) {
  SolidTopology t;
  std::vector<bool> named(vertex_count, false);
  bool repeats = false;
  for (uint64_t i = 0; i < triangle_count; ++i) {
    const uint32_t* c = triangles + 3 * i;
    named[c[0]] = named[c[1]] = named[c[2]] = true;
    repeats = repeats || c[0] == c[1] || c[1] == c[2] || c[2] == c[0];
  }
  for (uint64_t v = 0; v < vertex_count; ++v)
    if (named[v]) t.used.push_back(static_cast<uint32_t>(v));
  if (repeats || triangle_count == 0 || triangle_count > UINT32_MAX / 3) return t;
  // Each directed edge as (start << 32 | end, its corner 3t + k); closed means each key once and its reverse once.
  std::vector<std::pair<uint64_t, uint32_t>> edges(3 * triangle_count);
  for (uint64_t i = 0; i < triangle_count; ++i)
    for (int k = 0; k < 3; ++k) {
      const uint64_t from = triangles[3 * i + k], to = triangles[3 * i + (k + 1) % 3];
      edges[3 * i + k] = {from << 32 | to, static_cast<uint32_t>(3 * i + k)};
    }
  std::sort(edges.begin(), edges.end());
  for (size_t e = 1; e < edges.size(); ++e)
    if (edges[e].first == edges[e - 1].first) return t;
  t.across.resize(3 * triangle_count);
  std::vector<uint32_t> parent(triangle_count);
  std::iota(parent.begin(), parent.end(), 0u);
  for (const auto& [key, corner] : edges) {
    const uint64_t reverse = (key << 32) | (key >> 32);
    const auto it = std::lower_bound(edges.begin(), edges.end(), std::make_pair(reverse, 0u));
    if (it == edges.end() || it->first != reverse) {
      t.across.clear();
      return t;
    }
    const uint32_t other = it->second;  // corner k' of triangle u runs the edge back; u's third corner is k' + 2
    t.across[corner] = triangles[3 * (other / 3) + (other % 3 + 2) % 3];
    parent[root(parent, corner / 3)] = root(parent, other / 3);
  }
  t.closed = true;
  t.piece.resize(triangle_count);
  std::vector<uint32_t> number(triangle_count, UINT32_MAX);
  for (uint32_t i = 0; i < triangle_count; ++i) {
    uint32_t& n = number[root(parent, i)];
    if (n == UINT32_MAX) n = t.pieces++;
    t.piece[i] = n;
  }
  return t;
}

double solid_scale(const SolidMesh& m, const SolidTopology& t) {
  double scale = 0.0;
  for (uint32_t v : t.used)
    for (int k = 0; k < 3; ++k) scale = std::max(scale, std::fabs(m.xyz[3ull * v + k]));
  return scale;
}

int solid_orientation(const SolidMesh& m, const SolidTopology& t) {
  if (!t.closed || t.used.empty()) return 0;
  // Six times each piece's signed volume, each tetrahedron measured from one of the mesh's own vertices (so the
  // terms are of the mesh's size, not of its distance from the origin), with the sum of the terms' magnitudes: a
  // sum's rounding is far below 1e-9 of that, while a piece that encloses a volume gives a sizeable share of it.
  const Dvec3 o = solid_vertex(m, t.used[0]);
  std::vector<double> volume(t.pieces, 0.0), magnitude(t.pieces, 0.0);
  for (uint64_t i = 0; i < m.triangle_count; ++i) {
    const uint32_t* c = m.triangles + 3 * i;
    const Dvec3 a = dsub(solid_vertex(m, c[0]), o), b = dsub(solid_vertex(m, c[1]), o), d = dsub(solid_vertex(m, c[2]), o);
    const double term = ddot(a, dcross(b, d));
    volume[t.piece[i]] += term;
    magnitude[t.piece[i]] += std::fabs(term);
  }
  double total = 0.0;
  for (uint32_t k = 0; k < t.pieces; ++k) {
    if (!(std::fabs(volume[k]) > 1e-9 * magnitude[k])) return 0;
    total += volume[k];
  }
  return total > 0.0 ? 1 : (total < 0.0 ? -1 : 0);
}

}  // namespace xhd
