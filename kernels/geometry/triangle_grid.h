// A uniform grid of triangles (after ../shared/papers/cuda-mesh-similarity.txt): each cell lists the
// triangles whose surface may cross it. Points near the surface, the common case when two surfaces are
// compared, find their nearest triangle among a handful of cells with no tree to descend; points far
// from it would need too many cells and are left to the triangle hierarchy. Built on the host, searched
// by every backend through the same function.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "../abi/large_buffer.h"
#include "mesh_bulk.h"
#include "surface_bounds.h"
#include "triangle_bvh.h"

namespace xhd {

// Slack, in cells, added to every cell range and box so the rounding of a cell's edges never drops a cell.
// The grid lives in the input's own coordinates (no float copies, no origin); each triangle also brings its
// own pad (surface_bounds.h) and each query reaches surface_reach2 of its best, so no margin depends on the
// input's largest coordinate.
constexpr double kGridSlack = 1e-7;
// A search that would visit more cells than this goes to the hierarchy instead.
constexpr uint32_t kGridMaxCells = 64;
// A mesh whose triangles' boxes cover more cells than this per triangle (plus kGridBoxCellSlack) gets no
// grid: long slivers and degenerate triangles (segments across the mesh) would be listed in so many cells,
// and tested so many times per query, that the grid would be slower than checking every triangle. Ordinary
// meshes cover 8 to 30 cells a triangle and are listed in 3 to 5; such a mesh goes to the hierarchy alone.
constexpr double kGridMaxBoxCellsPerTriangle = 64.0;
constexpr double kGridBoxCellSlack = 4096.0;

// Bits of TriangleGridView::open: the grid stops short of some vertices on that side (it covers the bulk of the
// mesh, mesh_bulk.h), so the border cells on it reach on to infinity and list whatever lies beyond.
constexpr uint32_t kOpenLow = 1u;   // << axis
constexpr uint32_t kOpenHigh = 8u;  // << axis

struct TriangleGridView {
  double origin[3];  // the grid's low corner, in the input's coordinates
  double cell;       // edge length of the cubic cells
  double slack;      // widening of every cell: kGridSlack cells plus the rounding of its edges
  uint32_t dims[3];
  uint32_t open;               // kOpenLow / kOpenHigh bits per axis
  const uint32_t* cell_start;  // dims[0]*dims[1]*dims[2] + 1 offsets into entries
  const uint32_t* entries;     // triangle indices, cell by cell
  PointTruth truth;            // the vertices in the input's own coordinates (borrowed)
  const uint32_t* triangles;
};

struct TriangleGrid {
  bool usable = true;  // false: too costly for this mesh (kGridMaxBoxCellsPerTriangle); cells are sized, not filled
  double origin[3] = {0.0, 0.0, 0.0};
  double cell = 1.0;
  double slack = 0.0;
  uint32_t dims[3] = {1, 1, 1};
  uint32_t open = 0;
  std::vector<uint32_t, LargeBufferAllocator<uint32_t>> cell_start;
  std::vector<uint32_t, LargeBufferAllocator<uint32_t>> entries;
  PointTruth truth;
  const uint32_t* triangles = nullptr;

  TriangleGridView view() const {
    return {{origin[0], origin[1], origin[2]},
            cell,
            slack,
            {dims[0], dims[1], dims[2]},
            open,
            cell_start.data(),
            entries.data(),
            truth,
            triangles};
  }
};

// Sets the cells (origin, edge, dims, slack, open sides) for triangles whose vertices span `bounds` (in the
// input's coordinates, rounded outward) with this total area: cubic cells sized to the typical triangle,
// over the bulk of the mesh, enlarged until the dense table fits its budget. Every backend sizes grids so.
void size_triangle_grid(TriangleGrid& g, const Box& bounds, double total_area, uint64_t count, const MeshBulk& bulk,
                        double cell_scale = 1.0);

// The grid over the vertices `truth` (the input's own coordinates); it borrows them and the triangles,
// which must outlive it. cell_scale multiplies the default cell edge (twice the square root of the typical
// triangle area, which puts a few triangles in each cell a surface crosses). Vertex indices must already
// be checked.
TriangleGrid build_triangle_grid(PointTruth truth, const uint32_t* triangles, uint64_t triangle_count,
                                 const MeshBulk& bulk, double cell_scale = 1.0);

XHD_HD uint32_t grid_axis_cell(const TriangleGridView& g, int axis, double x) {
  const double u = floor((x - g.origin[axis]) / g.cell);
  const double top = static_cast<double>(g.dims[axis] - 1);
  return static_cast<uint32_t>(u < 0.0 ? 0.0 : (u > top ? top : u));
}

XHD_HD uint64_t grid_cell_index(const TriangleGridView& g, uint32_t x, uint32_t y, uint32_t z) {
  return (static_cast<uint64_t>(z) * g.dims[1] + y) * g.dims[0] + x;
}

struct Corners {
  Dvec3 a, b, c;
};

XHD_HD Corners grid_corners(const TriangleGridView& g, uint32_t t) {
  const uint32_t* v = g.triangles + 3ull * t;
  return {truth_point(g.truth, v[0]), truth_point(g.truth, v[1]), truth_point(g.truth, v[2])};
}

// The triangle's box and its own pad (surface_bounds.h).
struct TriangleBox {
  double lo[3], hi[3];
  double pad;
};

XHD_HD TriangleBox triangle_box(const Corners& t) {
  const double a[3] = {t.a.x, t.a.y, t.a.z}, b[3] = {t.b.x, t.b.y, t.b.z}, c[3] = {t.c.x, t.c.y, t.c.z};
  TriangleBox box;
  double extent = 0.0, magnitude = 0.0;
  for (int k = 0; k < 3; ++k) {
    // corner_box's values (point_triangle.h), which the surface value's box square is measured over.
    box.lo[k] = least_of(a[k], b[k], c[k]);
    box.hi[k] = greatest_of(a[k], b[k], c[k]);
    const double e = box.hi[k] - box.lo[k], m = fabs(box.lo[k]) > fabs(box.hi[k]) ? fabs(box.lo[k]) : fabs(box.hi[k]);
    extent = e > extent ? e : extent;
    magnitude = m > magnitude ? m : magnitude;
  }
  box.pad = triangle_pad(extent, magnitude);
  return box;
}

// Squared distance from p to the triangle's box widened by its pad: within surface_reach2 of the best
// for every triangle that can still win (surface_bounds.h, Lemma W).
XHD_HD double triangle_box_dist2(Dvec3 p, const TriangleBox& box) {
  const double q[3] = {p.x, p.y, p.z};
  double s = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double lo = box.lo[k] - box.pad, hi = box.hi[k] + box.pad;
    const double d = q[k] < lo ? lo - q[k] : (q[k] > hi ? q[k] - hi : 0.0);
    s += d * d;
  }
  return s;
}

// p in the input's own coordinates.
XHD_HD void offer_grid_triangle(const TriangleGridView& g, uint32_t t, Dvec3 p, NearestTriangle& best) {
  const Corners c = grid_corners(g, t);
  const TriangleBox box = triangle_box(c);
  // Cheap bounds first: most listed triangles are farther, and a rounding tie of a larger index cannot win.
  if (triangle_box_dist2(p, box) > surface_reach2(best.d2)) return;
  const double box_d2 = corner_box_dist2(p, box.lo, box.hi);
  if (cannot_win(box_d2, t, best.d2, best.triangle)) return;
  const SurfacePoint s = surface_value(p, c.a, c.b, c.c, box_d2);
  ++best.tests;
  if (s.d2 < best.d2 || (s.d2 == best.d2 && t < best.triangle)) {
    best.d2 = s.d2;
    best.at = s.at;
    best.triangle = t;
    best.slot = 0xffffffffu;  // not a hierarchy slot
  }
}

XHD_HD void offer_grid_cell(const TriangleGridView& g, uint64_t cell, Dvec3 p, NearestTriangle& best) {
  for (uint32_t e = g.cell_start[cell]; e < g.cell_start[cell + 1]; ++e) {
    const uint32_t t = g.entries[e];
    if (t != best.triangle) offer_grid_triangle(g, t, p, best);  // skips one listed in an earlier cell
  }
}

// The cells [lo, hi] per axis of the triangle's box widened by its pad and the grid's slack; returns that
// widening. A triangle beyond the grid is clamped into the border cells.
XHD_HD double crossed_box(const TriangleGridView& g, const Corners& t, uint32_t lo[3], uint32_t hi[3]) {
  const TriangleBox box = triangle_box(t);
  const double widen = box.pad + g.slack;
  for (int k = 0; k < 3; ++k) {
    lo[k] = grid_axis_cell(g, k, box.lo[k] - widen);
    hi[k] = grid_axis_cell(g, k, box.hi[k] + widen);
  }
  return widen;
}

// How many cells the triangle's widened box covers: what listing it costs at most.
XHD_HD uint64_t crossed_box_cells(const TriangleGridView& g, const Corners& t) {
  uint32_t lo[3], hi[3];
  crossed_box(g, t, lo, hi);
  return static_cast<uint64_t>(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
}

// Whether cell (x, y, z) is a border cell on an open side: it stands for everything beyond the grid too.
XHD_HD bool grid_cell_is_open(const TriangleGridView& g, uint32_t x, uint32_t y, uint32_t z) {
  const uint32_t c[3] = {x, y, z};
  for (int k = 0; k < 3; ++k)
    if (((g.open & (kOpenLow << k)) && c[k] == 0) || ((g.open & (kOpenHigh << k)) && c[k] == g.dims[k] - 1))
      return true;
  return false;
}

// Whether a grid is worth building for triangles whose boxes cover box_cells cells in all.
XHD_HD bool grid_is_worthwhile(uint64_t box_cells, uint64_t triangle_count) {
  return static_cast<double>(box_cells) <=
         kGridMaxBoxCellsPerTriangle * static_cast<double>(triangle_count) + kGridBoxCellSlack;
}

// Calls visit(cell) for every cell whose slightly widened box the triangle (widened by its pad) may
// cross, within the triangle's widened box; listing a triangle in every such cell is what makes the search
// exact. The plane test is skipped for triangles with no plane (degenerate: every cell of their box) and
// for open border cells (they stand for space beyond their box). Its margin `unsure` covers the computed
// normal's error (each component within 6 * 2^-53 |ab|inf |ac|inf, so its dot with a point of the triangle
// within 18 * 2^-53 |ab|inf |ac|inf extent, which for a sliver is far more than the pad) and the rounding
// of the dot with the cell's centre, all within 2^-48 of the terms below.
template <class Visit>
XHD_HD void for_each_crossed_cell(const TriangleGridView& g, const Corners& t, Visit visit) {
  uint32_t lo[3], hi[3];
  const double widen = crossed_box(g, t, lo, hi);
  const Dvec3 ab = dsub(t.b, t.a), ac = dsub(t.c, t.a);
  const Dvec3 n = dcross(ab, ac);
  const bool planar = ddot(n, n) > 0.0;
  const double n1 = fabs(n.x) + fabs(n.y) + fabs(n.z);
  const double mab = fmax(fabs(ab.x), fmax(fabs(ab.y), fabs(ab.z)));
  const double mac = fmax(fabs(ac.x), fmax(fabs(ac.y), fabs(ac.z)));
  const double half = 0.5 * g.cell + widen;
  const double extent = fmax(mab, mac) + 2.0 * half;  // bounds |centre - a|inf for every cell visited
  const double unsure = (1.0 / (1ull << 48)) * (mab * mac * extent + n1 * extent);
  const double reach = half * n1 + unsure;
  for (uint32_t z = lo[2]; z <= hi[2]; ++z)
    for (uint32_t y = lo[1]; y <= hi[1]; ++y)
      for (uint32_t x = lo[0]; x <= hi[0]; ++x) {
        if (planar && !grid_cell_is_open(g, x, y, z)) {
          const Dvec3 centre = {g.origin[0] + (x + 0.5) * g.cell, g.origin[1] + (y + 0.5) * g.cell,
                                g.origin[2] + (z + 0.5) * g.cell};
          if (fabs(ddot(n, dsub(centre, t.a))) > reach) continue;
        }
        visit(grid_cell_index(g, x, y, z));
      }
}

// Lower bound of the squared distance from p to anything listed in cell (x, y, z): its box widened by the
// slack, reaching to infinity on an open side of the grid.
XHD_HD double grid_cell_dist2(const TriangleGridView& g, Dvec3 p, uint32_t x, uint32_t y, uint32_t z) {
  const double q[3] = {p.x, p.y, p.z};
  const uint32_t c[3] = {x, y, z};
  double s = 0.0;
  for (int k = 0; k < 3; ++k) {
    const bool open_low = (g.open & (kOpenLow << k)) && c[k] == 0;
    const bool open_high = (g.open & (kOpenHigh << k)) && c[k] == g.dims[k] - 1;
    const double lo = open_low ? -static_cast<double>(INFINITY) : g.origin[k] + c[k] * g.cell - g.slack;
    const double hi = open_high ? static_cast<double>(INFINITY) : g.origin[k] + (c[k] + 1) * g.cell + g.slack;
    const double d = q[k] < lo ? lo - q[k] : (q[k] > hi ? q[k] - hi : 0.0);
    s += d * d;
  }
  return s;
}

// Searches p's own cell, then, when that is empty, the seed triangle (a neighbouring query's answer, or
// none) or else the 26 neighbouring cells, then every cell within surface_reach2 of the distance found (p
// in the input's coordinates, as the cells are; the reach adds 2^-50 of |p| for the rounding of p -+ reach,
// which the slack covers only inside the grid). Returns true when `best` is then the exact
// nearest triangle; false when nothing was found or the cells to search are more than kGridMaxCells.
XHD_HD bool grid_nearest_triangle(const TriangleGridView& g, Dvec3 p, uint32_t seed, NearestTriangle& best) {
  const uint32_t own[3] = {grid_axis_cell(g, 0, p.x), grid_axis_cell(g, 1, p.y), grid_axis_cell(g, 2, p.z)};
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
  const double q[3] = {p.x, p.y, p.z};
  const double magnitude = fmax(fabs(p.x), fmax(fabs(p.y), fabs(p.z)));
  const double reach2 = surface_reach2(best.d2);
  const double reach = sqrt(reach2) + g.slack + kPlacementPerMagnitude * magnitude;
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
        if (cell == own_cell || grid_cell_dist2(g, p, x, y, z) > surface_reach2(best.d2)) continue;
        offer_grid_cell(g, cell, p, best);
      }
  return true;
}

}  // namespace xhd
