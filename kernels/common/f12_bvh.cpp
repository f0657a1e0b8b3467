#include "f12_bvh.h"

#include "triangle_bvh.h"

namespace xhd {

F12Mesh build_f12_mesh(const float* xyz, const uint32_t* triangles, uint64_t count) {
  std::vector<float> centroid(3 * count);
  for (uint64_t t = 0; t < count; ++t)
    for (int i = 0; i < 3; ++i)
      centroid[3 * t + i] =
          (xyz[3ull * triangles[3 * t] + i] + xyz[3ull * triangles[3 * t + 1] + i] + xyz[3ull * triangles[3 * t + 2] + i]) / 3.f;
  const std::vector<uint32_t> sorted = morton_order(centroid.data(), count);
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
