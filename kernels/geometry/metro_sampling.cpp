#include "metro_sampling.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "js_math.h"
#include "../abi/large_buffer.h"
#include "../abi/parallel.h"
#include "surface_sampling.h"

namespace xhd {
namespace {

constexpr size_t kBlock = 16384;

// The two ends of the edge in `slot` (3 k + e: triangle k's edge from corner e to corner e + 1), smaller first.
inline std::pair<uint32_t, uint32_t> edge_at(const uint32_t* triangles, uint64_t slot) {
  const uint64_t k = slot / 3 * 3;
  const int e = static_cast<int>(slot % 3);
  const uint32_t u = triangles[k + e], v = triangles[k + (e + 1) % 3];
  return {std::min(u, v), std::max(u, v)};
}

// Each undirected edge once as (lo, hi), in the order of its first slot, as uniqueEdges lists them (a
// JavaScript Set iterates in insertion order); edges of a repeated vertex (lo == hi) are skipped. A stable
// counting sort by lo puts each vertex's edges together; sorting those by (hi, slot) marks each edge's first
// slot; the marked slots, read in slot order, are the list. Linear but for the sorts of one vertex's few edges.
std::vector<uint32_t> unique_edges(const xhd_mesh& mesh, int threads) {
  const uint64_t slots = 3 * mesh.triangle_count, vertices = mesh.vertex_count;
  const uint32_t* t = mesh.triangles;
  std::vector<uint64_t> start(vertices + 1, 0);
  for (uint64_t s = 0; s < slots; ++s) {
    const auto [lo, hi] = edge_at(t, s);
    if (lo != hi) ++start[lo + 1];
  }
  for (uint64_t v = 0; v < vertices; ++v) start[v + 1] += start[v];
  UninitLargeVector<uint64_t> by_lo(start[vertices]);
  {
    std::vector<uint64_t> fill(start.begin(), start.end() - 1);
    for (uint64_t s = 0; s < slots; ++s) {
      const auto [lo, hi] = edge_at(t, s);
      if (lo != hi) by_lo[fill[lo]++] = s;
    }
  }
  LargeVector<uint8_t> first(slots, 0);
  parallel_blocks(vertices, kBlock, threads, [&](size_t begin, size_t end, int) {
    std::vector<std::pair<uint32_t, uint64_t>> here;  // (hi, slot)
    for (size_t v = begin; v < end; ++v) {
      here.clear();
      for (uint64_t k = start[v]; k < start[v + 1]; ++k) here.push_back({edge_at(t, by_lo[k]).second, by_lo[k]});
      std::sort(here.begin(), here.end());
      for (size_t i = 0; i < here.size(); ++i)
        if (i == 0 || here[i].first != here[i - 1].first) first[here[i].second] = 1;
    }
  });
  std::vector<uint32_t> edges;
  for (uint64_t s = 0; s < slots; ++s) {
    if (!first[s]) continue;
    const auto [lo, hi] = edge_at(t, s);
    edges.push_back(lo);
    edges.push_back(hi);
  }
  return edges;
}

template <class T>
MetroPlan plan_with(const xhd_mesh& mesh, const T* p, uint64_t count, int threads) {
  MetroPlan plan;
  plan.vertex_count = mesh.vertex_count;
  plan.edges = unique_edges(mesh, threads);
  const size_t edge_count = plan.edges.size() / 2;
  UninitLargeVector<double> lengths(edge_count);
  parallel_blocks(edge_count, kBlock, threads, [&](size_t begin, size_t end, int) {
    for (size_t e = begin; e < end; ++e) {
      const T* a = p + 3 * size_t(plan.edges[2 * e]);
      const T* b = p + 3 * size_t(plan.edges[2 * e + 1]);
      lengths[e] = js_hypot3(double(b[0]) - a[0], double(b[1]) - a[1], double(b[2]) - a[2]);
    }
  });
  // Both totals summed in order, as the TypeScript loops sum them.
  double total_length = 0;
  for (size_t e = 0; e < edge_count; ++e) total_length += lengths[e];
  const double total_area = mesh_surface_area(mesh);
  // Solve total_area t² + total_length t = what is left after the vertices, for the linear density t.
  const double left = std::max(double(count) - double(mesh.vertex_count), 0.0);
  double t = 0;
  if (total_area > 0)
    t = (-total_length + std::sqrt(total_length * total_length + 4 * total_area * left)) / (2 * total_area);
  else if (total_length > 0) t = left / total_length;
  plan.edge_first.resize(edge_count + 1);
  plan.edge_first[0] = 0;
  for (size_t e = 0; e < edge_count; ++e)
    plan.edge_first[e + 1] = plan.edge_first[e] + static_cast<uint64_t>(std::floor(lengths[e] * t));
  // left and the edge samples are integers far below 2^53: exact as doubles in TypeScript, and here.
  const uint64_t whole_left = static_cast<uint64_t>(left);
  if (total_area > 0 && whole_left > plan.edge_samples()) plan.face_samples = whole_left - plan.edge_samples();
  return plan;
}

// The vertices, then each edge's evenly spaced points; the face samples follow (sample_surface).
template <class T>
void draw_vertices_and_edges(const T* p, const MetroPlan& plan, int threads, T* out) {
  std::copy(p, p + 3 * plan.vertex_count, out);
  const size_t edge_count = plan.edges.size() / 2;
  parallel_blocks(edge_count, kBlock, threads, [&](size_t begin, size_t end, int) {
    for (size_t e = begin; e < end; ++e) {
      const T* a = p + 3 * size_t(plan.edges[2 * e]);
      const T* b = p + 3 * size_t(plan.edges[2 * e + 1]);
      const uint64_t m = plan.edge_first[e + 1] - plan.edge_first[e];
      T* at = out + 3 * (plan.vertex_count + plan.edge_first[e]);
      for (uint64_t j = 1; j <= m; ++j, at += 3) {
        const double s = double(j) / double(m + 1);
        for (int d = 0; d < 3; ++d) at[d] = T((1 - s) * a[d] + s * b[d]);
      }
    }
  });
}

}  // namespace

MetroPlan plan_metro_samples(const xhd_mesh& mesh, uint64_t count, int threads) {
  return mesh.xyz64 != nullptr ? plan_with(mesh, mesh.xyz64, count, threads)
                               : plan_with(mesh, mesh.xyz, count, threads);
}

void draw_metro_samples(const xhd_mesh& mesh, const MetroPlan& plan, uint32_t state[4], int threads, float* xyz,
                        double* xyz64) {
  if (mesh.xyz64 != nullptr) draw_vertices_and_edges(mesh.xyz64, plan, threads, xyz64);
  else draw_vertices_and_edges(mesh.xyz, plan, threads, xyz);
  if (plan.face_samples == 0) return;
  const uint64_t offset = 3 * (plan.vertex_count + plan.edge_samples());
  sample_surface(mesh, plan.face_samples, state, threads, xyz ? xyz + offset : nullptr,
                 xyz64 ? xyz64 + offset : nullptr);
}

}  // namespace xhd
