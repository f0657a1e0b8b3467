#include "f12_bvh.h"

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

}  // namespace xhd
