// Area-weighted random points on a mesh's surface, drawn from the documented xoshiro128** stream
// (src/sampling/random.ts). The same state gives the same points, bit for bit, as the TypeScript
// sampler, whatever the thread count: each block of samples starts from the stream's state at its
// first sample, found by a cheap sequential pass that only steps the generator.
#pragma once

#include <cstdint>

#include "xhd.h"

namespace xhd {

// The generator state new Random(seed) starts from (src/sampling/random.ts): four SplitMix32 steps from the
// seed's low 32 bits, the high 32 bits mixed into the second; an all-zero state (which never leaves zero)
// becomes 1, 0, 0, 0. Seeds are the integers below 2^53, as in TypeScript.
void seed_state(uint64_t seed, uint32_t state[4]);

// Σ of every triangle's area, each computed in double from the vertices as given, summed in triangle order.
double mesh_surface_area(const xhd_mesh& mesh);

// Writes count points (3 coordinates each) and advances state past the draws (6 words per sample): to xyz
// for a float32 mesh, to xyz64 for a double one (each sample is computed in double either way).
// Throws InvalidArgument when the mesh has no area (or an infinite one).
void sample_surface(const xhd_mesh& mesh, uint64_t count, uint32_t state[4], int threads, float* xyz, double* xyz64);

}  // namespace xhd
