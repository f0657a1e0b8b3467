// The distinct vertices of an f12 hierarchy's small nodes, for exact support functions. Between two small
// nodes the minimum search bounds the distance by that of their convex hulls (Gilbert's iteration on the
// vertices): on the curved scenes it keeps 4-8x fewer node pairs than the oriented DOPs, whose 26
// directions overestimate a bent patch's reach in the directions between them. Larger nodes keep the DOPs:
// their vertices would cost more to scan than the pairs they save.
#pragma once

#include <cstdint>
#include <vector>

#include "../geometry/f12_bvh.h"
#include "../abi/large_buffer.h"

namespace xhd {

// Points are scanned in blocks of this many (a vector of doubles on AVX-512); a node's blocks are padded
// with copies of its first point.
constexpr uint32_t kPointBlock = 8;

struct NodePoints {
  uint32_t first_level = UINT32_MAX;  // the nodes of this level and every level below have points
  // Every entry written by the build's parallel loops (not zero-filled on one thread first).
  UninitLargeVector<const float*> start;  // per node from the first level's first: where its xs are in storage
  UninitLargeVector<uint32_t> padded;     // its points, rounded up to whole blocks; ys and zs follow its xs
  // The blocks stay where the threads that built them wrote them, a subtree's (or a node's) to a vector: copied
  // into one pool they were written twice, and the copy and its fresh pages were a tenth of a full build.
  std::vector<std::vector<float>> storage;

  bool has(uint32_t node) const { return f12_level(node) >= first_level; }
  uint32_t index(uint32_t node) const { return node - ((1u << first_level) - 1); }
  const float* xs(uint32_t node) const { return start[index(node)]; }
  uint32_t count(uint32_t node) const { return padded[index(node)]; }  // a whole number of blocks
};

class Progress;

// Points for every node of the deepest levels whose nodes hold at most `max_triangles` triangles. Honours
// the caller's cancel between blocks of subtrees (throwing Cancelled).
NodePoints build_node_points(const F12Mesh& mesh, uint32_t max_triangles, int threads, const Progress& progress);

// Points for the nodes of one level alone (NodePoints::has is then true below it too: read only that level's).
// The larger nodes' scans read them instead of their corners (oriented_box_build.h's NodeVertexBlocks).
NodePoints build_level_points(const F12Mesh& mesh, uint32_t level, int threads);

// The first level whose nodes hold at most max_triangles triangles (UINT32_MAX: none do).
uint32_t node_points_first_level(const F12Shape& shape, uint32_t max_triangles);

// One node's points and padding as build_node_points lays them out (xs, then ys, then zs; a whole number of
// blocks each), from its corners on the calling thread: for nodes made when a search first reaches them.
std::vector<float> node_point_blocks(const F12Mesh& mesh, uint64_t node);

// The largest x·p over a node's points, and the point where it is found (its index in the node's list).
struct Support {
  double h;
  uint32_t at;
};

// A block's lanes in vectors the target holds in one register (GCC's vector extensions): the whole block of 8
// doubles on AVX-512, halves of 4 elsewhere. A block-wide vector on an AVX2 target (x86-64-v3) was lowered
// through the stack, lane by lane: the mesh distance's hull gaps, whose time is in these scans, took 2-6 times as
// long as on an AVX-512 build of the same code (docs/benchmarks.md, stop 67).
#ifdef __AVX512F__
constexpr uint32_t kSupportLanes = 8;
#else
constexpr uint32_t kSupportLanes = 4;
#endif
constexpr uint32_t kSupportParts = kPointBlock / kSupportLanes;
static_assert(kPointBlock % kSupportLanes == 0, "a block is whole vectors");
typedef float PointFloats __attribute__((vector_size(4 * kSupportLanes)));
typedef double PointDoubles __attribute__((vector_size(8 * kSupportLanes)));
typedef int64_t PointInts __attribute__((vector_size(8 * kSupportLanes)));

inline PointDoubles load_lanes(const float* p) {
  PointFloats f;
  __builtin_memcpy(&f, p, sizeof f);
  return __builtin_convertvector(f, PointDoubles);
}

// Lane l of the block (l < kPointBlock) keeps the largest product of the points at l, l + kPointBlock, ...,
// the first where equal, and the lanes are then taken in order, the first where equal: the same answer
// whatever the vectors' width.
inline Support node_support(const float* xs, uint32_t padded, double x, double y, double z) {
  const float *ys = xs + padded, *zs = ys + padded;
  // Each lane keeps its best and where: one pass, and no branch on the data.
  PointDoubles best[kSupportParts];
  PointInts at[kSupportParts], index[kSupportParts];
  for (uint32_t k = 0; k < kSupportParts; ++k) {
    const uint32_t o = k * kSupportLanes;
    best[k] = load_lanes(xs + o) * x + load_lanes(ys + o) * y + load_lanes(zs + o) * z;
    for (uint32_t l = 0; l < kSupportLanes; ++l) at[k][l] = o + l;
    index[k] = at[k];
  }
  for (uint32_t i = kPointBlock; i < padded; i += kPointBlock)
    for (uint32_t k = 0; k < kSupportParts; ++k) {
      const uint32_t o = i + k * kSupportLanes;
      index[k] += static_cast<int64_t>(kPointBlock);
      const PointDoubles t = load_lanes(xs + o) * x + load_lanes(ys + o) * y + load_lanes(zs + o) * z;
      const PointInts more = t > best[k];
      best[k] = more ? t : best[k];
      at[k] = more ? index[k] : at[k];
    }
  Support s{best[0][0], static_cast<uint32_t>(at[0][0])};
  for (uint32_t l = 1; l < kPointBlock; ++l) {
    const double h = best[l / kSupportLanes][l % kSupportLanes];
    if (h > s.h) s = {h, static_cast<uint32_t>(at[l / kSupportLanes][l % kSupportLanes])};
  }
  return s;
}

}  // namespace xhd
