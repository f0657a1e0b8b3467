// A mesh's input, copied: its float32 or double vertices (the truth every distance is measured over) and
// its triangles. The reference measures over it; the GPU recomputes its winning pairs' points from it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../abi/large_buffer.h"
#include "../abi/parallel.h"
#include "f12_bvh.h"
#include "xhd.h"

namespace xhd {

class MeshTruth {
 public:
  // Copied on `threads` threads into buffers no one clears first: at 7.5M triangles the copies are 135 MB a mesh,
  // and one thread faulting in and filling them took longer than the GPU's whole build.
  MeshTruth(const xhd_mesh& m, int threads) {
    if (m.xyz64 == nullptr) copy(m.xyz, 3 * m.vertex_count, f32_, threads);
    else copy(m.xyz64, 3 * m.vertex_count, f64_, threads);
    copy(m.triangles, 3 * m.triangle_count, triangles_, threads);
  }

  size_t triangle_count() const { return triangles_.size() / 3; }
  size_t vertex_count() const { return (f64_.empty() ? f32_.size() : f64_.size()) / 3; }
  bool is_float32() const { return f64_.empty(); }
  const uint32_t* triangles() const { return triangles_.data(); }

  // Triangle t as given (A).
  Corners3 corners(size_t t) const {
    Corners3 c;
    for (int k = 0; k < 3; ++k) c.v[k] = vertex(triangles_[3 * t + k]);
    return c;
  }

  // Triangle t posed (B): each corner as posed_corners (f12_bvh.h) poses it.
  Corners3 posed_corners(const double* pose, size_t t) const {
    if (f64_.empty()) {
      float c[9];
      for (int k = 0; k < 9; ++k) c[k] = f32_[3ull * triangles_[3 * t + k / 3] + k % 3];
      return xhd::posed_corners(pose, c);
    }
    double c[9];
    for (int k = 0; k < 9; ++k) c[k] = f64_[3ull * triangles_[3 * t + k / 3] + k % 3];
    return xhd::posed_corners(pose, c);
  }

  // Every vertex posed the same way, as doubles (3 a vertex): a float32 mesh's rounded to float, as posed_corners
  // does.
  std::vector<double> posed_vertices(const double* pose) const {
    if (!f64_.empty()) return posed_vertices64(pose);  // the same arithmetic: doubles are posed in double
    const size_t n = vertex_count();
    std::vector<double> out(3 * n);
    for (size_t v = 0; v < n; ++v) {
      float posed[3];
      pose_vertex(pose, &f32_[3 * v], posed);
      for (int k = 0; k < 3; ++k) out[3 * v + k] = posed[k];
    }
    return out;
  }

  // Every vertex posed in double, whatever the input's type (a float32 vertex converted exactly first): a rigid pose
  // of a convex mesh stays convex to double rounding, where posed_vertices' float rounding of a float32 mesh can
  // bend its flat faces by a float's step.
  std::vector<double> posed_vertices64(const double* pose) const {
    const size_t n = vertex_count();
    std::vector<double> out(3 * n);
    for (size_t v = 0; v < n; ++v) {
      double in[3];
      for (int k = 0; k < 3; ++k) in[k] = f64_.empty() ? static_cast<double>(f32_[3 * v + k]) : f64_[3 * v + k];
      pose_vertex64(pose, in, &out[3 * v]);
    }
    return out;
  }

  // Triangle t of vertices given as doubles (3 a vertex), in this mesh's triangle order.
  Corners3 corners_of(const std::vector<double>& xyz, size_t t) const {
    Corners3 c;
    for (int k = 0; k < 3; ++k) {
      const double* v = &xyz[3ull * triangles_[3 * t + k]];
      c.v[k] = {v[0], v[1], v[2]};
    }
    return c;
  }

 private:
  template <typename T>
  static void copy(const T* from, uint64_t count, UninitLargeVector<T>& to, int threads) {
    to.resize(count);
    parallel_blocks(count, 1 << 20, threads, [&](size_t begin, size_t end, int) {
      std::copy(from + begin, from + end, to.data() + begin);
    });
  }

  Dvec3 vertex(uint32_t i) const {
    if (f64_.empty()) return dload(&f32_[3ull * i]);
    const double* v = &f64_[3ull * i];
    return {v[0], v[1], v[2]};
  }

  UninitLargeVector<float> f32_;
  UninitLargeVector<double> f64_;  // exactly one of the two holds the vertices
  UninitLargeVector<uint32_t> triangles_;
};

}  // namespace xhd
