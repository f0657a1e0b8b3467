#include "surface_islands.h"

#include <algorithm>
#include <vector>

#include "island_compare.h"
#include "point_islands.h"
#include "../abi/env_switch.h"
#include "../abi/parallel.h"

namespace xhd {
namespace {

constexpr size_t kTriangleGrain = size_t(1) << 16;

// Each island's triangle count, or false when a triangle has corners in two islands.
bool triangles_per_island(const xhd_mesh& mesh, const std::vector<uint8_t>& vertex_island, int islands, int threads,
                          std::vector<uint64_t>& count) {
  const size_t blocks = (mesh.triangle_count + kTriangleGrain - 1) / kTriangleGrain;
  std::vector<uint64_t> in_block(blocks * islands, 0);
  std::vector<uint8_t> straddles(blocks, 0);
  parallel_blocks(mesh.triangle_count, kTriangleGrain, threads, [&](size_t begin, size_t end, int) {
    const size_t block = begin / kTriangleGrain;
    uint64_t* counts = &in_block[block * islands];
    for (size_t t = begin; t < end; ++t) {
      const uint32_t* c = &mesh.triangles[3 * t];
      const uint8_t w = vertex_island[c[0]];
      if (vertex_island[c[1]] != w || vertex_island[c[2]] != w) straddles[block] = 1;
      ++counts[w];
    }
  });
  if (std::find(straddles.begin(), straddles.end(), 1) != straddles.end()) return false;
  count.assign(islands, 0);
  for (size_t b = 0; b < blocks; ++b)
    for (int w = 0; w < islands; ++w) count[w] += in_block[b * islands + w];
  return true;
}

// Every island's triangles in the mesh's order, in one pass, their corners as the mesh numbers them.
std::vector<std::vector<uint32_t>> triangles_by_island(const xhd_mesh& mesh, const std::vector<uint8_t>& vertex_island,
                                                       const std::vector<uint64_t>& count) {
  std::vector<std::vector<uint32_t>> out(count.size());
  for (size_t w = 0; w < count.size(); ++w) out[w].reserve(3 * count[w]);
  for (uint64_t t = 0; t < mesh.triangle_count; ++t) {
    const uint32_t* c = &mesh.triangles[3 * t];
    out[vertex_island[c[0]]].insert(out[vertex_island[c[0]]].end(), c, c + 3);
  }
  return out;
}

// An island's triangles renumbered into the island's vertices, which keep the mesh's order: a triangle's corners
// keep their order by index too.
void renumber_corners(std::vector<uint32_t>& triangles, const IslandPoints& vertices, std::vector<uint32_t>& renumber) {
  for (size_t i = 0; i < vertices.index.size(); ++i)
    renumber[static_cast<size_t>(vertices.index[i])] = static_cast<uint32_t>(i);
  for (uint32_t& corner : triangles) corner = renumber[corner];
}

}  // namespace

bool measure_by_islands(const SurfaceMeasureJob& job, xhd_surface_result& result,
                        const std::function<void(const SurfaceMeasureJob&, xhd_surface_result&)>& measure) {
  const xhd_points& queries = job.queries;
  const xhd_mesh& mesh = *job.target;
  if (queries.count + mesh.vertex_count < kIslandMinPoints || !switched_on("XHD_ISLANDS")) return false;
  const xhd_points vertices{mesh.xyz64 == nullptr ? mesh.xyz : nullptr, mesh.vertex_count, mesh.xyz64};
  // Far groups only, not rows: every backend measures surfaces through here, a GPU among them (plan_islands).
  const IslandPlan plan = plan_islands(queries, &vertices, false);
  if (plan.islands < 2 || !island_compare_settled(plan.sample, XHD_DIRECTION_AB)) return false;
  const int threads = std::max(job.threads, 1);
  IslandAssignment islands = assign_islands(queries, vertices, plan, threads);
  // The targets are triangles: an island without any holds no target, whatever vertices it has.
  std::vector<uint64_t> triangle_count;
  if (!triangles_per_island(mesh, islands.b_island, islands.islands, threads, triangle_count)) return false;
  const IslandCensus census{islands.a_count, triangle_count, islands.box};
  if (!island_compare_settled(census, XHD_DIRECTION_AB)) return false;

  std::vector<std::vector<uint32_t>> triangles = triangles_by_island(mesh, islands.b_island, triangle_count);
  std::vector<uint32_t> renumber(mesh.vertex_count);
  uint64_t largest = 0;
  for (int w = 0; w < islands.islands; ++w) {
    if (islands.a_count[w] == 0) continue;  // targets alone: no query's nearest lies here
    const IslandPoints q =
        island_points(queries, islands.a_island, islands.a_first, islands.a_count[w], islands.islands, w, threads);
    const IslandPoints v =
        island_points(vertices, islands.b_island, islands.b_first, islands.b_count[w], islands.islands, w, threads);
    renumber_corners(triangles[w], v, renumber);
    const xhd_points v_view = v.view();
    const xhd_mesh island_mesh{v_view.xyz, v_view.count, triangles[w].data(), triangle_count[w], v_view.xyz64};
    std::vector<double> distance(q.index.size());
    xhd_surface_result r{};
    r.device = -1;
    measure(SurfaceMeasureJob{q.view(), &island_mesh, job.threads, job.progress, distance.data(), job.lane}, r);
    parallel_blocks(distance.size(), kTriangleGrain, threads, [&](size_t begin, size_t end, int) {
      for (size_t i = begin; i < end; ++i) job.distance[static_cast<size_t>(q.index[i])] = distance[i];
    });
    result.build_ms += r.build_ms;
    result.query_ms += r.query_ms;
    result.upload_ms += r.upload_ms;
    result.download_ms += r.download_ms;
    result.triangle_tests += r.triangle_tests;
    result.peak_device_bytes = std::max(result.peak_device_bytes, r.peak_device_bytes);
    if (q.index.size() > largest) {  // the largest island's frame and device
      largest = q.index.size();
      result.device = r.device;
      for (int k = 0; k < 3; ++k) result.origin[k] = r.origin[k];
    }
  }
  return true;
}

}  // namespace xhd
