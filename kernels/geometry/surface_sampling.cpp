#include "surface_sampling.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "../abi/large_buffer.h"
#include "../abi/parallel.h"
#include "../abi/validate.h"

namespace xhd {
namespace {

// Samples per block: each block costs one recorded state, and the stepping pass is ~1 ns a word.
constexpr uint64_t kSampleBlock = 4096;
constexpr size_t kTriangleBlock = 16384;

// xoshiro128** (Blackman and Vigna), exactly as Random.nextUint32 in src/sampling/random.ts.
struct Xoshiro128 {
  uint32_t s[4];

  static uint32_t rotl(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

  uint32_t next() {
    const uint32_t result = rotl(s[1] * 5, 7) * 9;
    const uint32_t t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  // Uniform in [0, 1) from 53 bits of two draws, as Random.nextDouble.
  double next_double() {
    const uint32_t high = next() >> 5;
    const uint32_t low = next() >> 6;
    return (static_cast<double>(high) * 67108864.0 + static_cast<double>(low)) / 9007199254740992.0;
  }
};

// The same expression, in the same order, as triangleAreas in src/sampling/sample-mesh.ts. T is the
// vertices' own type (float32 or double): every operation is in double either way.
template <class T>
double triangle_area(const T* p, const uint32_t* tri) {
  const T* a = p + 3 * size_t(tri[0]);
  const T* b = p + 3 * size_t(tri[1]);
  const T* c = p + 3 * size_t(tri[2]);
  const double ux = double(b[0]) - a[0], uy = double(b[1]) - a[1], uz = double(b[2]) - a[2];
  const double vx = double(c[0]) - a[0], vy = double(c[1]) - a[1], vz = double(c[2]) - a[2];
  const double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
  return 0.5 * std::sqrt(nx * nx + ny * ny + nz * nz);
}

// Samples per batch in draw_batch: enough misses in flight to hide memory latency.
constexpr int kBatch = 32;

// n (<= kBatch) samples, the next draws of random, written to xyz: vertices of type T, samples of type
// Out (float for float32 meshes, double for double ones), each computed in double.
template <class T, class Out>
void draw_batch(const xhd_mesh& mesh, const T* p, const double* cumulative, const uint32_t* guide, int n,
                Xoshiro128& random, Out* xyz) {
  const size_t G = mesh.triangle_count;
  const double total = cumulative[G - 1];
  const uint32_t* tri = mesh.triangles;
  double u[kBatch][3];  // three uniforms per sample: which triangle, then two for the point inside it
  size_t chosen[kBatch];
  const auto guide_slot = [&](double target) { return size_t(std::floor((target / total) * double(G))); };
  for (int j = 0; j < n; ++j) {
    for (double& v : u[j]) v = random.next_double();
    __builtin_prefetch(guide + guide_slot(u[j][0] * total));
  }
  for (int j = 0; j < n; ++j) {
    chosen[j] = guide[guide_slot(u[j][0] * total)];
    __builtin_prefetch(cumulative + chosen[j]);
  }
  for (int j = 0; j < n; ++j) {
    // The first triangle whose running total exceeds the target (zero-area triangles are never chosen).
    const double target = u[j][0] * total;
    size_t t = chosen[j];
    while (t < G - 1 && !(cumulative[t] > target)) ++t;
    chosen[j] = t;
    __builtin_prefetch(tri + 3 * t);
  }
  for (int j = 0; j < n; ++j)
    for (int v = 0; v < 3; ++v) __builtin_prefetch(p + 3 * size_t(tri[3 * chosen[j] + v]));
  for (int j = 0; j < n; ++j) {
    // A uniform point of the triangle: the square-root warp of two uniforms.
    const uint32_t* corner = tri + 3 * chosen[j];
    const T* a = p + 3 * size_t(corner[0]);
    const T* b = p + 3 * size_t(corner[1]);
    const T* c = p + 3 * size_t(corner[2]);
    const double r1 = std::sqrt(u[j][1]), r2 = u[j][2];
    const double wa = 1 - r1, wb = r1 * (1 - r2), wc = r1 * r2;
    for (int d = 0; d < 3; ++d) xyz[3 * j + d] = Out(wa * a[d] + wb * b[d] + wc * c[d]);
  }
}

template <class T>
double area_of(const T* p, const xhd_mesh& mesh) {
  double sum = 0;
  for (uint64_t k = 0; k < mesh.triangle_count; ++k) sum += triangle_area(p, mesh.triangles + 3 * k);
  return sum;
}

template <class T, class Out>
void sample_with(const xhd_mesh& mesh, const T* p, uint64_t count, uint32_t state[4], int threads, Out* xyz) {
  const size_t G = mesh.triangle_count;
  // Running totals of the areas: triangle k covers (cumulative[k-1], cumulative[k]]. The areas are
  // computed in parallel; the running sum stays sequential so it rounds as the TypeScript one does.
  LargeVector<double> cumulative(G);
  parallel_blocks(G, kTriangleBlock, threads, [&](size_t begin, size_t end, int) {
    for (size_t k = begin; k < end; ++k) cumulative[k] = triangle_area(p, mesh.triangles + 3 * k);
  });
  double running = 0;
  for (size_t k = 0; k < G; ++k) cumulative[k] = running += cumulative[k];
  const double total = cumulative[G - 1];
  if (!(total > 0) || !std::isfinite(total))
    throw InvalidArgument("the mesh has no area to sample (every triangle is degenerate)");

  // The guide table: guide[k] is the first triangle whose running total exceeds k/G of the total (the
  // last triangle if none). Each block finds its first entry by binary search, then scans forward as the
  // TypeScript sampler does over the whole table; the levels only grow, so both find the same entries.
  LargeVector<uint32_t> guide(G + 1);
  parallel_blocks(G + 1, kTriangleBlock, threads, [&](size_t begin, size_t end, int) {
    const auto level = [&](size_t k) { return (double(k) / double(G)) * total; };
    size_t t = std::upper_bound(cumulative.begin(), cumulative.end() - 1, level(begin)) - cumulative.begin();
    for (size_t k = begin; k < end; ++k) {
      const double here = level(k);
      while (t < G - 1 && !(cumulative[t] > here)) ++t;
      guide[k] = uint32_t(t);
    }
  });

  // Each block's starting state, by stepping the generator 6 words a sample.
  const uint64_t blocks = (count + kSampleBlock - 1) / kSampleBlock;
  std::vector<Xoshiro128> starts(blocks);
  Xoshiro128 stream{{state[0], state[1], state[2], state[3]}};
  for (uint64_t b = 0; b < blocks; ++b) {
    starts[b] = stream;
    const uint64_t n = std::min(kSampleBlock, count - b * kSampleBlock);
    for (uint64_t i = 0; i < 6 * n; ++i) stream.next();
  }
  std::copy(stream.s, stream.s + 4, state);

  // Each sample reads four scattered places (guide entry, running total, triangle, vertices): a batch
  // of samples goes through them stage by stage, prefetching the next stage's memory for the whole batch,
  // so the cache misses overlap instead of queueing one behind another.
  parallel_blocks(blocks, 1, threads, [&](size_t begin, size_t end, int) {
    for (size_t b = begin; b < end; ++b) {
      Xoshiro128 random = starts[b];
      const uint64_t first = b * kSampleBlock, last = std::min(count, first + kSampleBlock);
      for (uint64_t i = first; i < last; i += kBatch) {
        const int n = int(std::min<uint64_t>(kBatch, last - i));
        draw_batch(mesh, p, cumulative.data(), guide.data(), n, random, xyz + 3 * i);
      }
    }
  });
}

// One SplitMix32 step, as splitmix32 in src/sampling/random.ts: advances state, returns the next word.
uint32_t splitmix32(uint32_t& state) {
  state += 0x9e3779b9u;
  uint32_t z = state;
  z = (z ^ (z >> 16)) * 0x85ebca6bu;
  z = (z ^ (z >> 13)) * 0xc2b2ae35u;
  return z ^ (z >> 16);
}

}  // namespace

void seed_state(uint64_t seed, uint32_t state[4]) {
  uint32_t mix = static_cast<uint32_t>(seed);
  const uint32_t high = static_cast<uint32_t>(seed >> 32);
  for (int i = 0; i < 4; ++i) {
    if (i == 1) mix ^= high;
    state[i] = splitmix32(mix);
  }
  if ((state[0] | state[1] | state[2] | state[3]) == 0) state[0] = 1;
}

double mesh_surface_area(const xhd_mesh& mesh) {
  return mesh.xyz64 != nullptr ? area_of(mesh.xyz64, mesh) : area_of(mesh.xyz, mesh);
}

void sample_surface(const xhd_mesh& mesh, uint64_t count, uint32_t state[4], int threads, float* xyz, double* xyz64) {
  if (mesh.xyz64 != nullptr) sample_with(mesh, mesh.xyz64, count, state, threads, xyz64);
  else sample_with(mesh, mesh.xyz, count, state, threads, xyz);
}

}  // namespace xhd
