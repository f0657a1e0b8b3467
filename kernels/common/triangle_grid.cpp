#include "triangle_grid.h"

#include <algorithm>

#include "status_guard.h"

namespace xhd {
namespace {

// Dense grids cost 4 bytes a cell; beyond this many cells per triangle the cells grow instead.
constexpr double kMaxCellsPerTriangle = 16.0;
constexpr double kMinCellBudget = 4096.0;

Corners corners_of(const float* xyz, const uint32_t* triangle) {
  return {dload(xyz + 3ull * triangle[0]), dload(xyz + 3ull * triangle[1]), dload(xyz + 3ull * triangle[2])};
}

}  // namespace

void size_triangle_grid(TriangleGrid& g, const Box& bounds, double total_area, uint64_t count, double pad,
                        double cell_scale) {
  double extent[3];
  for (int k = 0; k < 3; ++k) extent[k] = static_cast<double>(bounds.max[k]) - bounds.min[k];
  const double largest = std::max({extent[0], extent[1], extent[2]});
  double h;
  if (total_area > 0.0) {
    h = 2.0 * std::sqrt(total_area / static_cast<double>(count));
  } else {
    // No area (points or segments only): spread the triangles over the box as if they filled it.
    double volume = 1.0;
    for (double e : extent) volume *= std::max(e, largest * 1e-3);
    h = std::cbrt(volume / static_cast<double>(count)) * 2.0;
  }
  h *= cell_scale;
  if (!(h > 0.0)) h = largest > 0.0 ? largest : 1.0;
  const double budget = std::max(kMaxCellsPerTriangle * static_cast<double>(count), kMinCellBudget);
  for (;;) {
    double cells = 1.0;
    for (int k = 0; k < 3; ++k) cells *= std::max(1.0, std::ceil(extent[k] / h));
    if (cells <= budget) break;
    h *= 1.25;
  }
  g.cell = h;
  g.slack = kGridSlack * h + pad;
  for (int k = 0; k < 3; ++k) {
    g.origin[k] = bounds.min[k];
    g.dims[k] = static_cast<uint32_t>(std::max(1.0, std::ceil(extent[k] / h)));
  }
}

TriangleGrid build_triangle_grid(const float* xyz, PointTruth truth, const uint32_t* triangles, uint64_t count, double pad,
                                 double cell_scale) {
  TriangleGrid g;
  g.xyz = xyz;
  g.truth = truth;
  g.triangles = triangles;
  Box bounds;
  box_make_empty(bounds);
  double total_area = 0.0;
  for (uint64_t t = 0; t < count; ++t) {
    for (int k = 0; k < 3; ++k) box_grow(bounds, xyz + 3ull * triangles[3 * t + k]);
    const Corners c = corners_of(xyz, triangles + 3 * t);
    const Dvec3 n = dcross(dsub(c.b, c.a), dsub(c.c, c.a));
    total_area += 0.5 * std::sqrt(ddot(n, n));
  }
  const float origin[3] = {0.f, 0.f, 0.f};
  if (count == 0) box_grow(bounds, origin);
  size_triangle_grid(g, bounds, total_area, count, pad, cell_scale);

  const GridView sizing = g.view();
  uint64_t box_cells = 0;
  for (uint64_t t = 0; t < count; ++t) box_cells += crossed_box_cells(sizing, corners_of(xyz, triangles + 3 * t));
  if (!grid_is_worthwhile(box_cells, count)) {
    g.usable = false;
    return g;
  }

  // Counting sort of (cell, triangle) pairs: count per cell, scan to the end of each cell's run, then
  // fill backwards (moving each end down to the start) so each cell lists its triangles in index order.
  const uint64_t cells = static_cast<uint64_t>(g.dims[0]) * g.dims[1] * g.dims[2];
  g.cell_start.assign(cells + 1, 0);
  for (uint64_t t = 0; t < count; ++t)
    for_each_crossed_cell(sizing, corners_of(xyz, triangles + 3 * t), [&](uint64_t cell) { ++g.cell_start[cell]; });
  uint64_t total = 0;
  for (uint64_t c = 0; c < cells; ++c) {
    total += g.cell_start[c];
    if (total > 0xffffffffull) throw OutOfMemory("the triangle grid would list more than 2^32 entries");
    g.cell_start[c] = static_cast<uint32_t>(total);
  }
  g.entries.resize(total);
  for (uint64_t t = count; t-- > 0;)
    for_each_crossed_cell(sizing, corners_of(xyz, triangles + 3 * t),
                          [&](uint64_t cell) { g.entries[--g.cell_start[cell]] = static_cast<uint32_t>(t); });
  g.cell_start[cells] = static_cast<uint32_t>(total);
  return g;
}

}  // namespace xhd
