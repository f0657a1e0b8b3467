#include "f12_bvh.h"

#include <algorithm>

#include "../abi/parallel.h"
#include "../abi/progress.h"

namespace xhd {
namespace {

struct Centroid {
  float at[3];
  uint32_t triangle;
};

// The triangles in the order of a kd-tree with the f12 tree's shape: every node's run of slots is split
// where the f12 layout puts its children's boundary, along the longest side of its centroids' box. Every
// subtree is then a compact set of triangles. (A Morton order, cut at the fixed f12 boundaries, puts
// far-apart triangles in one node wherever the curve jumps, and those nodes' boxes stay large.)
UninitLargeVector<uint32_t> triangle_kd_order(const float* xyz, const uint32_t* triangles, const F12Shape& s,
                                              int threads, const Progress& progress) {
  const uint64_t count = s.triangles;
  UninitLargeVector<Centroid> c(count);  // every entry written below
  parallel_blocks(count, 65536, threads, [&](size_t begin, size_t end, int) {
    for (size_t t = begin; t < end; ++t) {
      for (int i = 0; i < 3; ++i)
        c[t].at[i] = (xyz[3ull * triangles[3 * t] + i] + xyz[3ull * triangles[3 * t + 1] + i] +
                      xyz[3ull * triangles[3 * t + 2] + i]) /
                     3.f;
      c[t].triangle = static_cast<uint32_t>(t);
    }
  });
  for (uint32_t level = 0; level < s.depth; ++level) {
    progress.check_cancel();  // each level partitions every triangle: at most a few hundred ms at millions
    const uint32_t shift = s.depth - level;
    parallel_blocks(1ull << level, std::max<uint64_t>(1, 65536 >> shift), threads, [&](size_t begin, size_t end, int) {
      for (size_t i = begin; i < end; ++i) {
        const uint64_t first = f12_leaf_first(s, i << shift), last = f12_leaf_first(s, (i + 1) << shift);
        const uint64_t middle = f12_leaf_first(s, (2 * i + 1) << (shift - 1));
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint64_t k = first; k < last; ++k)
          for (int j = 0; j < 3; ++j) lo[j] = std::min(lo[j], c[k].at[j]), hi[j] = std::max(hi[j], c[k].at[j]);
        int axis = 0;
        for (int j = 1; j < 3; ++j)
          if (hi[j] - lo[j] > hi[axis] - lo[axis]) axis = j;
        // Ties go by triangle index, so the order is the same on every platform.
        std::nth_element(c.begin() + first, c.begin() + middle, c.begin() + last,
                         [axis](const Centroid& x, const Centroid& y) {
                           return x.at[axis] < y.at[axis] || (x.at[axis] == y.at[axis] && x.triangle < y.triangle);
                         });
      }
    });
  }
  UninitLargeVector<uint32_t> order(count);
  parallel_blocks(count, 65536, threads, [&](size_t begin, size_t end, int) {
    for (size_t k = begin; k < end; ++k) order[k] = c[k].triangle;
  });
  return order;
}

}  // namespace

F12Mesh build_f12_mesh(const float* xyz, const uint32_t* triangles, uint64_t count, int threads,
                       const Progress& progress) {
  F12Mesh m;
  m.shape = f12_shape(static_cast<uint32_t>(count));
  const UninitLargeVector<uint32_t> sorted = triangle_kd_order(xyz, triangles, m.shape, threads, progress);
  m.triangle.resize(count);
  m.corners.resize(9 * count);  // left unwritten: the threads below touch its pages first
  parallel_blocks(count, 65536, threads, [&](size_t begin, size_t end, int) {
    for (size_t s = begin; s < end; ++s) {
      m.triangle[s] = sorted[s];
      for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 3; ++i) m.corners[9 * s + 3 * k + i] = xyz[3ull * triangles[3ull * sorted[s] + k] + i];
    }
  });
  return m;
}

UninitLargeVector<Box> f12_boxes(const F12Mesh& mesh, int threads) {
  constexpr size_t kBlock = 16384;
  const F12Shape& s = mesh.shape;
  const uint64_t leaves = 1ull << s.depth, first_leaf = leaves - 1;
  const float* corners = mesh.corners.data();
  UninitLargeVector<Box> boxes(f12_node_count(s));
  parallel_blocks(leaves, kBlock, threads, [&](size_t begin, size_t end, int) {
    for (size_t i = begin; i < end; ++i) {
      Box box;
      box_make_empty(box);
      for (uint32_t slot = f12_leaf_first(s, i); slot < f12_leaf_first(s, i + 1); ++slot)
        for (int k = 0; k < 3; ++k) box_grow(box, corners + 9ull * slot + 3 * k);
      boxes[first_leaf + i] = box;
    }
  });
  for (uint32_t level = s.depth; level-- > 0;) {
    const uint64_t count = 1ull << level, first = count - 1;
    parallel_blocks(count, kBlock, count >= 2 * kBlock ? threads : 1, [&](size_t begin, size_t end, int) {
      for (size_t i = begin; i < end; ++i) {
        Box box = boxes[f12_node(level + 1, 2 * i)];
        box_merge(box, boxes[f12_node(level + 1, 2 * i + 1)]);
        boxes[first + i] = box;
      }
    });
  }
  return boxes;
}

}  // namespace xhd
