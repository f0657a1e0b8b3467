#include "mesh_frame.h"

#include <algorithm>
#include <cmath>

#include "../abi/parallel.h"

namespace xhd {
namespace {

constexpr size_t kGrain = 1 << 16;
constexpr double kIdentity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};

}  // namespace

void frame_mesh(const xhd_mesh& mesh, int threads, MeshFrame& frame) {
  const xhd_points vertices{mesh.xyz, mesh.vertex_count, mesh.xyz64};
  frame_points(vertices, nullptr, threads, frame.vertices);
  frame.triangles = mesh.triangles;
  frame.triangle_count = mesh.triangle_count;
  // frame_points found both magnitudes on its way: the copies' as it wrote them, the input's from its box.
  FrameInfo& info = frame.info;
  std::copy(frame.vertices.origin, frame.vertices.origin + 3, info.origin);
  info.copy_is_truth = mesh.xyz64 == nullptr;
  info.largest_truth = frame.vertices.largest_input;
  info.copy_error = info.copy_is_truth ? 0.0 : float_copy_error(frame.vertices.largest);
}

UninitLargeVector<double> truth_corners(const F12Mesh& mesh, const MeshFrame& frame, int threads) {
  UninitLargeVector<double> out;  // every entry written below
  if (frame.info.copy_is_truth) return out;
  const uint64_t slots = mesh.shape.triangles;
  out.resize(9 * slots);
  const double* xyz = frame.xyz64();
  parallel_blocks(slots, kGrain, threads, [&](size_t begin, size_t end, int) {
    for (size_t s = begin; s < end; ++s)
      for (int k = 0; k < 3; ++k) {
        const double* v = xyz + 3ull * frame.triangles[3ull * mesh.triangle[s] + k];
        for (int i = 0; i < 3; ++i) out[9 * s + 3 * k + i] = v[i];
      }
  });
  return out;
}

FramePose frame_pose(const double* pose, const FrameInfo& a, const FrameInfo& b) {
  FramePose out;
  std::copy(pose, pose + 12, out.m);
  out.displacement = 0.0;
  if (a.copy_is_truth && b.copy_is_truth) return out;  // origins 0: t' = t, nothing to widen (mesh_frame.h)
  const double* oa = a.origin;
  const double* ob = b.origin;
  double s = 0.0, t = 0.0, frobenius2 = 0.0;
  for (int r = 0; r < 3; ++r) {
    const double* row = pose + 4 * r;
    out.m[4 * r + 3] = (((row[0] * ob[0] + row[1] * ob[1]) + row[2] * ob[2]) + row[3]) - oa[r];
    const double spread = std::fabs(row[0]) + std::fabs(row[1]) + std::fabs(row[2]);
    s = std::max(s, spread * b.largest_truth + std::fabs(row[3]));
    t = std::max(t, spread * largest_abs(ob) + std::fabs(row[3]) + largest_abs(oa));
    frobenius2 += row[0] * row[0] + row[1] * row[1] + row[2] * row[2];
  }
  // A float B under the identity stays itself: ((1 x + 0 y) + 0 z) + 0 = x exactly, already a float.
  const bool identity = std::equal(pose, pose + 12, kIdentity);
  const double float_b = b.copy_is_truth && !identity
                             ? 1.75 * (std::ldexp(1.0 + std::ldexp(1.0, -50), -24) * s + std::ldexp(1.0, -149))
                             : 0.0;
  out.displacement =
      (std::ldexp(s + t, -49) + float_b + std::sqrt(frobenius2) * b.copy_error) * (1.0 + std::ldexp(1.0, -20));
  return out;
}

}  // namespace xhd
