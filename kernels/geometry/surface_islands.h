// A surface compare's direction searched island by island (point_islands.h) where its query points and the target
// mesh part into groups far apart: a mesh of two objects 1e7 apart (fandisk and a copy of it) took 15.7 s against
// fandisk, and 0.33 s for fandisk alone, its triangle grid sized by the whole span. Each island's queries are
// measured against the island's own triangles, in a frame and grid of their own.
//
// Why the distances are the whole search's: an island's box holds its queries and every corner of its triangles, so
// each query has a triangle of its island within the box's diagonal, and every triangle of another island lies in
// that island's box. When every other box lies farther than the diagonal (island_compare_settled, with triangles as
// the targets), no query's nearest triangle lies outside its island. A triangle with corners in two islands keeps
// the direction whole.
#pragma once

#include "surface_compare.h"

namespace xhd {

// Measures `job` through `measure` island by island into job.distance and returns true; or returns false having
// measured nothing when the queries and the mesh do not part so (or XHD_ISLANDS=0 is set). result's times and
// tests are the islands' summed, its origin the largest island's.
bool measure_by_islands(const SurfaceMeasureJob& job, xhd_surface_result& result,
                        const std::function<void(const SurfaceMeasureJob&, xhd_surface_result&)>& measure);

}  // namespace xhd
