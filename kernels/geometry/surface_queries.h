// A surface compare's query points for one input: a mesh's samples by the requested mode (area or
// vertices+edges+faces, the count given, by density or the default, seeded as new Random(seed) in
// src/sampling/random.ts), else its own points: a point cloud's, a mesh's vertices when asked for, or when the
// mesh has no area to sample.
#pragma once

#include <cstdint>

#include "../abi/owned_buffer.h"
#include "xhd.h"

namespace xhd {

struct SurfaceQueries {
  int32_t from = XHD_QUERIES_POINTS;  // XHD_QUERIES_*
  xhd_points points{};                // what the searches read: the samples, or the input's own vertices
  OwnedBuffer samples;                // the samples (XHD_QUERIES_SAMPLES): floats for a float32 mesh, else doubles
};

// A mesh has faces; a point cloud is passed with triangle_count = 0.
inline bool has_faces(const xhd_mesh& input) { return input.triangle_count > 0; }

SurfaceQueries surface_queries(const xhd_mesh& input, const xhd_surface_compare_options& options, uint64_t seed,
                               int threads);

}  // namespace xhd
