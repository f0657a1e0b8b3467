// The reference's nearest triangle to one point (surface_brute_point.h) on several threads: the triangles in blocks,
// each block's first nearest kept, and the blocks' answers taken in block order, the earlier kept on equal distances.
// That is the serial scan's answer to the bit (the same evaluation of every triangle, the first of the nearest), in a
// share of its time: a surface compare finds each direction's witness this way, a pass over the other mesh's every
// triangle, which on a mesh of millions of triangles took one core a tenth of a second.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../abi/parallel.h"
#include "surface_brute_point.h"

namespace xhd {

// Triangles a block: below this a thread's start costs more than the block's scan.
constexpr uint64_t kBruteNearestBlock = 16384;

inline BruteNearest nearest_triangle_brute_parallel(const PointTruth& vertices, const uint32_t* triangles,
                                                    uint64_t count, Dvec3 p, int threads,
                                                    uint64_t block = kBruteNearestBlock) {
  block = std::max<uint64_t>(block, 1);
  const uint64_t blocks = (count + block - 1) / block;
  if (threads <= 1 || blocks <= 1) return nearest_triangle_brute(vertices, triangles, count, p);
  std::vector<BruteNearest> found(blocks);
  parallel_blocks(blocks, 1, threads, [&](size_t begin, size_t end, int) {
    for (size_t k = begin; k < end; ++k) {
      const uint64_t first = k * block, n = std::min(block, count - first);
      found[k] = nearest_triangle_brute(vertices, triangles + 3 * first, n, p);
      found[k].triangle += static_cast<uint32_t>(first);
    }
  });
  BruteNearest out = found[0];
  for (uint64_t k = 1; k < blocks; ++k)
    if (found[k].best.d2 < out.best.d2) out = found[k];
  return out;
}

}  // namespace xhd
