#include "f12_bvh.h"

#include "parallel.h"
#include "triangle_bvh.h"

namespace xhd {

F12Mesh build_f12_mesh(const float* xyz, const uint32_t* triangles, uint64_t count) {
  const std::vector<uint32_t> sorted = triangle_morton_order(xyz, triangles, count);
  F12Mesh m;
  m.shape = f12_shape(static_cast<uint32_t>(count));
  m.triangle.assign(sorted.begin(), sorted.end());
  m.corners.resize(9 * count);
  for (uint64_t s = 0; s < count; ++s)
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 3; ++i) m.corners[9 * s + 3 * k + i] = xyz[3ull * triangles[3ull * sorted[s] + k] + i];
  return m;
}

LargeVector<Box> f12_boxes(const F12Mesh& mesh, int threads) {
  constexpr size_t kBlock = 16384;
  const F12Shape& s = mesh.shape;
  const uint64_t leaves = 1ull << s.depth, first_leaf = leaves - 1;
  const float* corners = mesh.corners.data();
  LargeVector<Box> boxes(f12_node_count(s));
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
