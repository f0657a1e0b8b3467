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

// Vectors of one block (GCC's vector extensions: lowered to what the target has).
typedef float PointFloats __attribute__((vector_size(4 * kPointBlock)));
typedef double PointDoubles __attribute__((vector_size(8 * kPointBlock)));
typedef int64_t PointInts __attribute__((vector_size(8 * kPointBlock)));

inline PointDoubles load_block(const float* p) {
  PointFloats f;
  __builtin_memcpy(&f, p, sizeof f);
  return __builtin_convertvector(f, PointDoubles);
}

inline Support node_support(const float* xs, uint32_t padded, double x, double y, double z) {
  const float *ys = xs + padded, *zs = ys + padded;
  // Each lane keeps its best and where: one pass, and no branch on the data.
  PointDoubles best = load_block(xs) * x + load_block(ys) * y + load_block(zs) * z;
  PointInts at, index;
  for (uint32_t l = 0; l < kPointBlock; ++l) at[l] = l;
  index = at;
  for (uint32_t i = kPointBlock; i < padded; i += kPointBlock) {
    index += static_cast<int64_t>(kPointBlock);
    const PointDoubles t = load_block(xs + i) * x + load_block(ys + i) * y + load_block(zs + i) * z;
    const PointInts more = t > best;
    best = more ? t : best;
    at = more ? index : at;
  }
  Support s{best[0], static_cast<uint32_t>(at[0])};
  for (uint32_t l = 1; l < kPointBlock; ++l)
    if (best[l] > s.h) s = {best[l], static_cast<uint32_t>(at[l])};
  return s;
}

}  // namespace xhd
