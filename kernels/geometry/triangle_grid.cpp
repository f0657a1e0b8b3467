#include "triangle_grid.h"

#include <algorithm>
#include <cmath>

#include "../abi/status_guard.h"

namespace xhd {
namespace {

// Dense grids cost 4 bytes a cell; beyond this many cells per triangle the cells grow instead.
constexpr double kMaxCellsPerTriangle = 16.0;
constexpr double kMinCellBudget = 4096.0;

// The box of the vertices in the input's coordinates, rounded outward to float.
Box truth_bounds(PointTruth truth, const uint32_t* triangles, uint64_t count) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint64_t i = 0; i < 3 * count; ++i)
    for (int k = 0; k < 3; ++k) {
      const double v = truth.coord(triangles[i], k);
      lo[k] = std::min(lo[k], v);
      hi[k] = std::max(hi[k], v);
    }
  Box box;
  for (int k = 0; k < 3; ++k) {
    if (count == 0) lo[k] = hi[k] = 0.0;
    box.min[k] = round_down_to_float(lo[k]);
    box.max[k] = round_up_to_float(hi[k]);
  }
  return box;
}

}  // namespace

void size_triangle_grid(TriangleGrid& g, const Box& bounds, double total_area, uint64_t count, const MeshBulk& bulk,
                        double cell_scale) {
  // The grid spans the vertices' box, cut down to the bulk of the mesh where vertices lie far beyond it
  // (those sides are open: their border cells list what lies beyond). A closed side is moved out by the
  // largest pad a triangle can have, so every triangle's widened box stays inside it (surface_bounds.h).
  double whole = 0.0, magnitude = 0.0;
  for (int k = 0; k < 3; ++k) {
    whole = std::max(whole, static_cast<double>(bounds.max[k]) - bounds.min[k]);
    magnitude = std::max(
        {magnitude, std::fabs(static_cast<double>(bounds.min[k])), std::fabs(static_cast<double>(bounds.max[k]))});
  }
  const double closed_pad = 2.0 * triangle_pad(whole, magnitude);
  double lo[3], hi[3], extent[3];
  g.open = 0;
  for (int k = 0; k < 3; ++k) {
    lo[k] = bounds.min[k] - closed_pad;
    hi[k] = bounds.max[k] + closed_pad;
    if (!bulk.empty && bounds.min[k] < bulk.lo[k]) {
      lo[k] = bulk.lo[k];
      g.open |= kOpenLow << k;
    }
    if (!bulk.empty && bounds.max[k] > bulk.hi[k]) {
      hi[k] = bulk.hi[k];
      g.open |= kOpenHigh << k;
    }
    extent[k] = std::max(hi[k] - lo[k], 0.0);
  }
  const double largest = std::max({extent[0], extent[1], extent[2]});
  double h;
  if (total_area > 0.0) {
    // The typical triangle: the mean, unless a few huge triangles (to a wild vertex) inflate it.
    double area = total_area / static_cast<double>(count);
    if (bulk.median_area > 0.0) area = std::min(area, 4.0 * bulk.median_area);
    h = 2.0 * std::sqrt(area);
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
  double grid_magnitude = 0.0;
  for (int k = 0; k < 3; ++k) {
    g.origin[k] = lo[k];
    g.dims[k] = static_cast<uint32_t>(std::max(1.0, std::ceil(extent[k] / h)));
    grid_magnitude = std::max({grid_magnitude, std::fabs(lo[k]), std::fabs(lo[k] + g.dims[k] * h)});
  }
  // Cell edges are computed as origin + c * cell, and points placed by (x - origin) / cell: a few roundings
  // of 2^-53 of the grid's coordinates, which the magnitude term covers with room (as kGridSlack does for
  // the placement within the grid).
  g.slack = kGridSlack * h + kPlacementPerMagnitude * grid_magnitude;
}

TriangleGrid build_triangle_grid(PointTruth truth, const uint32_t* triangles, uint64_t count, const MeshBulk& bulk,
                                 double cell_scale) {
  TriangleGrid g;
  g.truth = truth;
  g.triangles = triangles;
  double total_area = 0.0;
  {
    const TriangleGridView reading = g.view();
    for (uint64_t t = 0; t < count; ++t) {
      const Corners c = grid_corners(reading, static_cast<uint32_t>(t));
      const Dvec3 n = dcross(dsub(c.b, c.a), dsub(c.c, c.a));
      total_area += 0.5 * std::sqrt(ddot(n, n));
    }
  }
  size_triangle_grid(g, truth_bounds(truth, triangles, count), total_area, count, bulk, cell_scale);

  const TriangleGridView sizing = g.view();
  uint64_t box_cells = 0;
  for (uint64_t t = 0; t < count; ++t)
    box_cells += crossed_box_cells(sizing, grid_corners(sizing, static_cast<uint32_t>(t)));
  if (!grid_is_worthwhile(box_cells, count)) {
    g.usable = false;
    return g;
  }

  // Counting sort of (cell, triangle) pairs: count per cell, scan to the end of each cell's run, then
  // fill backwards (moving each end down to the start) so each cell lists its triangles in index order.
  const uint64_t cells = static_cast<uint64_t>(g.dims[0]) * g.dims[1] * g.dims[2];
  g.cell_start.assign(cells + 1, 0);
  for (uint64_t t = 0; t < count; ++t)
    for_each_crossed_cell(sizing, grid_corners(sizing, static_cast<uint32_t>(t)),
                          [&](uint64_t cell) { ++g.cell_start[cell]; });
  uint64_t total = 0;
  for (uint64_t c = 0; c < cells; ++c) {
    total += g.cell_start[c];
    if (total > 0xffffffffull) throw OutOfMemory("the triangle grid would list more than 2^32 entries");
    g.cell_start[c] = static_cast<uint32_t>(total);
  }
  g.entries.resize(total);
  for (uint64_t t = count; t-- > 0;)
    for_each_crossed_cell(sizing, grid_corners(sizing, static_cast<uint32_t>(t)),
                          [&](uint64_t cell) { g.entries[--g.cell_start[cell]] = static_cast<uint32_t>(t); });
  g.cell_start[cells] = static_cast<uint32_t>(total);
  return g;
}

}  // namespace xhd
