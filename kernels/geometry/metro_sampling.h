// The vertices+edges+faces sampler (as Metro does), ported from metroSamples in src/sampling/sample-mesh.ts
// operation for operation, so it gives the TypeScript sampler's points bit for bit: every vertex, then points
// evenly spaced along every edge (each edge once, in first-seen order), then area samples inside the faces
// (sample_surface), with one density t per unit length and t² per unit area chosen so that the total is the
// count asked for (the faces take what the edges' rounding leaves; a count below the vertex count still gives
// every vertex). Two steps, because the total is known only once the edges are counted: plan, then draw into
// the caller's array of plan.total() points.
#pragma once

#include <cstdint>
#include <vector>

#include "xhd.h"

namespace xhd {

struct MetroPlan {
  uint64_t vertex_count = 0;
  std::vector<uint32_t> edges;  // (lo, hi) vertex pairs
  std::vector<uint64_t>
      edge_first;             // edge e's points are samples [edge_first[e], edge_first[e + 1]) after the vertices
  uint64_t face_samples = 0;  // area samples (0 when the mesh has no area)

  uint64_t edge_samples() const { return edge_first.empty() ? 0 : edge_first.back(); }
  uint64_t total() const { return vertex_count + edge_samples() + face_samples; }
};

MetroPlan plan_metro_samples(const xhd_mesh& mesh, uint64_t count, int threads);

// Writes plan.total() points to xyz (float32 mesh) or xyz64 (double mesh), each computed in double; the face
// samples are the next draws of state, which is advanced past them (6 words a sample).
void draw_metro_samples(const xhd_mesh& mesh, const MetroPlan& plan, uint32_t state[4], int threads, float* xyz,
                        double* xyz64);

}  // namespace xhd
