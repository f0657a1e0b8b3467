// A uniform grid of triangles (after ../shared/papers/cuda-mesh-similarity.txt): each cell lists the
// triangles whose surface may cross it. Points near the surface, the common case when two surfaces are
// compared, find their nearest triangle among a handful of cells with no tree to descend; points far
// from it would need too many cells and are left to the triangle hierarchy. Built on the host, searched
// by every backend through the same function.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "large_buffer.h"
#include "triangle_bvh.h"

namespace xhd {

// Slack, in cells, added to every cell range and box so rounding never drops a cell a triangle crosses.
// The frame's pad (surface_frame.h) comes on top: the cells are placed by the float copies of the
// vertices and query points, and must still list every triangle whose true surface may cross them.
constexpr double kGridSlack = 1e-7;
// A search that would visit more cells than this goes to the hierarchy instead.
constexpr uint32_t kGridMaxCells = 64;
// A mesh whose triangles' boxes cover more cells than this per triangle (plus kGridBoxCellSlack) gets no
// grid: long slivers and degenerate triangles (segments across the mesh) would be listed in so many cells,
// and tested so many times per query, that the grid would be slower than checking every triangle. Ordinary
// meshes cover 8 to 30 cells a triangle and are listed in 3 to 5; such a mesh goes to the hierarchy alone.
constexpr double kGridMaxBoxCellsPerTriangle = 64.0;
constexpr double kGridBoxCellSlack = 4096.0;

struct GridView {
  double origin[3];
  double cell;                  // edge length of the cubic cells
  double slack;                 // widening of every cell and triangle box: kGridSlack cells plus the frame's pad
  uint32_t dims[3];
  const uint32_t* cell_start;   // dims[0]*dims[1]*dims[2] + 1 offsets into entries
  const uint32_t* entries;      // triangle indices, cell by cell
  const float* xyz;             // the float copies of the vertices the cells were placed by (borrowed)
  PointTruth truth;             // the vertices in the input's own coordinates, distances are evaluated over
  const uint32_t* triangles;
};

struct TriangleGrid {
  bool usable = true;  // false: too costly for this mesh (kGridMaxBoxCellsPerTriangle); cells are sized, not filled
  double origin[3] = {0.0, 0.0, 0.0};
  double cell = 1.0;
  double slack = 0.0;
  uint32_t dims[3] = {1, 1, 1};
  std::vector<uint32_t, LargeBufferAllocator<uint32_t>> cell_start;
  std::vector<uint32_t, LargeBufferAllocator<uint32_t>> entries;
  const float* xyz = nullptr;
  PointTruth truth;
  const uint32_t* triangles = nullptr;

  GridView view() const {
    return {{origin[0], origin[1], origin[2]}, cell, slack, {dims[0], dims[1], dims[2]}, cell_start.data(),
            entries.data(), xyz, truth, triangles};
  }
};

// Sets the cells (origin, edge, dims, slack) for triangles with these bounds and total area: cubic cells
// sized to the triangles, enlarged until the dense table fits its budget; pad is the frame's. Every
// backend sizes grids this way.
void size_triangle_grid(TriangleGrid& g, const Box& bounds, double total_area, uint64_t count, double pad,
                        double cell_scale = 1.0);

// The grid over the float copies `xyz` of the vertices, its distances evaluated over `truth`; it borrows
// both arrays and the triangles, which must outlive it. cell_scale multiplies the default cell edge (twice
// the square root of the mean triangle area, which puts a few triangles in each cell a surface crosses).
// Vertex indices must already be checked.
TriangleGrid build_triangle_grid(const float* xyz, PointTruth truth, const uint32_t* triangles, uint64_t triangle_count,
                                 double pad, double cell_scale = 1.0);

XHD_HD uint32_t grid_axis_cell(const GridView& g, int axis, double x) {
  const double u = floor((x - g.origin[axis]) / g.cell);
  const double top = static_cast<double>(g.dims[axis] - 1);
  return static_cast<uint32_t>(u < 0.0 ? 0.0 : (u > top ? top : u));
}

XHD_HD uint64_t grid_cell_index(const GridView& g, uint32_t x, uint32_t y, uint32_t z) {
  return (static_cast<uint64_t>(z) * g.dims[1] + y) * g.dims[0] + x;
}

// Squared distance from p to the triangle's bounding box widened by pad: a lower bound of its distance
// that the rounding of the distance's own evaluation cannot cross when pad covers it.
XHD_HD double triangle_box_dist2(Dvec3 p, Dvec3 a, Dvec3 b, Dvec3 c, double pad) {
  const double q[3] = {p.x, p.y, p.z}, u[3] = {a.x, a.y, a.z}, v[3] = {b.x, b.y, b.z}, w[3] = {c.x, c.y, c.z};
  double s = 0.0;
  for (int k = 0; k < 3; ++k) {
    // Plain comparisons: the coordinates are finite, and fmin/fmax would be library calls on the host.
    const double lo = u[k] < v[k] ? (u[k] < w[k] ? u[k] : w[k]) : (v[k] < w[k] ? v[k] : w[k]);
    const double hi = u[k] > v[k] ? (u[k] > w[k] ? u[k] : w[k]) : (v[k] > w[k] ? v[k] : w[k]);
    const double d = q[k] < lo - pad ? lo - pad - q[k] : (q[k] > hi + pad ? q[k] - hi - pad : 0.0);
    s += d * d;
  }
  return s;
}

// p in the input's own coordinates.
XHD_HD void offer_grid_triangle(const GridView& g, uint32_t t, Dvec3 p, NearestTriangle& best) {
  const uint32_t* v = g.triangles + 3ull * t;
  const Dvec3 a = truth_point(g.truth, v[0]), b = truth_point(g.truth, v[1]), c = truth_point(g.truth, v[2]);
  if (triangle_box_dist2(p, a, b, c, g.slack) > best.d2) return;  // cheap bound first: most listed triangles are farther
  const SurfacePoint s = closest_on_triangle(p, a, b, c);
  ++best.tests;
  if (s.d2 < best.d2 || (s.d2 == best.d2 && t < best.triangle)) {
    best.d2 = s.d2;
    best.at = s.at;
    best.triangle = t;
    best.slot = 0xffffffffu;  // not a hierarchy slot
  }
}

XHD_HD void offer_grid_cell(const GridView& g, uint64_t cell, Dvec3 p, NearestTriangle& best) {
  for (uint32_t e = g.cell_start[cell]; e < g.cell_start[cell + 1]; ++e) {
    const uint32_t t = g.entries[e];
    if (t != best.triangle) offer_grid_triangle(g, t, p, best);  // skips one listed in an earlier cell
  }
}

struct Corners {
  Dvec3 a, b, c;
};

// The cells [lo, hi] per axis of the triangle's box widened by the slack.
XHD_HD void crossed_box(const GridView& g, const Corners& t, uint32_t lo[3], uint32_t hi[3]) {
  const double a[3] = {t.a.x, t.a.y, t.a.z}, b[3] = {t.b.x, t.b.y, t.b.z}, c[3] = {t.c.x, t.c.y, t.c.z};
  for (int k = 0; k < 3; ++k) {
    const double low = a[k] < b[k] ? (a[k] < c[k] ? a[k] : c[k]) : (b[k] < c[k] ? b[k] : c[k]);
    const double high = a[k] > b[k] ? (a[k] > c[k] ? a[k] : c[k]) : (b[k] > c[k] ? b[k] : c[k]);
    lo[k] = grid_axis_cell(g, k, low - g.slack);
    hi[k] = grid_axis_cell(g, k, high + g.slack);
  }
}

// How many cells the triangle's widened box covers: what listing it costs at most.
XHD_HD uint64_t crossed_box_cells(const GridView& g, const Corners& t) {
  uint32_t lo[3], hi[3];
  crossed_box(g, t, lo, hi);
  return static_cast<uint64_t>(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
}

// Whether a grid is worth building for triangles whose boxes cover box_cells cells in all.
XHD_HD bool grid_is_worthwhile(uint64_t box_cells, uint64_t triangle_count) {
  return static_cast<double>(box_cells) <= kGridMaxBoxCellsPerTriangle * static_cast<double>(triangle_count) + kGridBoxCellSlack;
}

// Calls visit(cell) for every cell whose slightly widened box the triangle's plane crosses, within the
// triangle's own box. A triangle with no plane (degenerate) takes every cell of its box. Listing a
// triangle in every cell its surface may cross is what makes the search exact.
template <class Visit>
XHD_HD void for_each_crossed_cell(const GridView& g, const Corners& t, Visit visit) {
  uint32_t lo[3], hi[3];
  crossed_box(g, t, lo, hi);
  const Dvec3 n = dcross(dsub(t.b, t.a), dsub(t.c, t.a));
  const bool planar = ddot(n, n) > 0.0;
  const double half = 0.5 * g.cell + g.slack;
  const double reach = half * (fabs(n.x) + fabs(n.y) + fabs(n.z));
  for (uint32_t z = lo[2]; z <= hi[2]; ++z)
    for (uint32_t y = lo[1]; y <= hi[1]; ++y)
      for (uint32_t x = lo[0]; x <= hi[0]; ++x) {
        if (planar) {
          const Dvec3 centre = {g.origin[0] + (x + 0.5) * g.cell, g.origin[1] + (y + 0.5) * g.cell,
                                g.origin[2] + (z + 0.5) * g.cell};
          if (fabs(ddot(n, dsub(centre, t.a))) > reach) continue;
        }
        visit(grid_cell_index(g, x, y, z));
      }
}

// Lower bound of the squared distance from p to anything in cell (x, y, z), its box widened by the slack.
XHD_HD double grid_cell_dist2(const GridView& g, Dvec3 p, uint32_t x, uint32_t y, uint32_t z) {
  const double q[3] = {p.x, p.y, p.z};
  const uint32_t c[3] = {x, y, z};
  double s = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double lo = g.origin[k] + c[k] * g.cell - g.slack;
    const double hi = g.origin[k] + (c[k] + 1) * g.cell + g.slack;
    const double d = q[k] < lo ? lo - q[k] : (q[k] > hi ? q[k] - hi : 0.0);
    s += d * d;
  }
  return s;
}

// Searches p's own cell, then, when that is empty, the seed triangle (a neighbouring query's answer, or
// none) or else the 26 neighbouring cells, then every cell within the distance found. p is in the input's
// coordinates, p_frame its float copy (the cells' frame). Returns true when `best` is then the exact
// nearest triangle; false when nothing was found or the cells to search are more than kGridMaxCells.
XHD_HD bool grid_nearest_triangle(const GridView& g, Dvec3 p, Dvec3 p_frame, uint32_t seed, NearestTriangle& best) {
  const uint32_t own[3] = {grid_axis_cell(g, 0, p_frame.x), grid_axis_cell(g, 1, p_frame.y),
                           grid_axis_cell(g, 2, p_frame.z)};
  const uint64_t own_cell = grid_cell_index(g, own[0], own[1], own[2]);
  offer_grid_cell(g, own_cell, p, best);
  if (!(best.d2 < INFINITY) && seed != 0xffffffffu) offer_grid_triangle(g, seed, p, best);
  if (!(best.d2 < INFINITY)) {
    // An empty own cell: a point just off the surface, across a cell wall from it. Its neighbours decide.
    for (uint32_t z = own[2] > 0 ? own[2] - 1 : 0; z <= own[2] + 1 && z < g.dims[2]; ++z)
      for (uint32_t y = own[1] > 0 ? own[1] - 1 : 0; y <= own[1] + 1 && y < g.dims[1]; ++y)
        for (uint32_t x = own[0] > 0 ? own[0] - 1 : 0; x <= own[0] + 1 && x < g.dims[0]; ++x)
          offer_grid_cell(g, grid_cell_index(g, x, y, z), p, best);
  }
  if (!(best.d2 < INFINITY)) return false;
  const double q[3] = {p_frame.x, p_frame.y, p_frame.z};
  const double reach = sqrt(best.d2) + g.slack;
  uint32_t lo[3], hi[3];
  uint32_t volume = 1;
  for (int k = 0; k < 3; ++k) {
    lo[k] = grid_axis_cell(g, k, q[k] - reach);
    hi[k] = grid_axis_cell(g, k, q[k] + reach);
    volume *= hi[k] - lo[k] + 1;
  }
  if (volume > kGridMaxCells) return false;
  for (uint32_t z = lo[2]; z <= hi[2]; ++z)
    for (uint32_t y = lo[1]; y <= hi[1]; ++y)
      for (uint32_t x = lo[0]; x <= hi[0]; ++x) {
        const uint64_t cell = grid_cell_index(g, x, y, z);
        if (cell == own_cell || grid_cell_dist2(g, p_frame, x, y, z) > best.d2) continue;
        offer_grid_cell(g, cell, p, best);
      }
  return true;
}

}  // namespace xhd
