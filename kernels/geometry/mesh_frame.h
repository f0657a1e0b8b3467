// The frames the mesh-distance searches run in: each mesh's float32 copy relative to an origin near it,
// beside the input's own coordinates (the truth), and how far the copies can be from the truth.
//
// The truth. A's vertices a as the input states them; B's posed vertices q(b): for a double B the pose
// evaluated in double, P^(b) = ((m0 x + m1 y) + m2 z) + t per row; for a float32 B that value rounded to
// float (xhd.h). Every reported distance is triangle_pair_min / triangle_pair_max evaluated in double over
// those corners (triangle_pair.h), as the brute-force reference does.
//
// The filters. Each mesh's hierarchy (boxes, oriented boxes, DOPs, hull points) is built once from a float
// copy x' = fl32(fl64(x - o)) of its vertices, relative to its own origin o (the centre of its box; a float32
// mesh keeps o = 0 and x' = x, nothing rounded). The searches see B in A's frame through the frame pose
// [M | t'], t' = fl64(fl64(M o_B + t) - o_A): the filter's point for b is M b' + t', which the searches
// evaluate in double with the widening they always had (the moved boxes' eps, kMovedSlack).
//
// How far apart they are (u = 2^-53, gamma_n = n u / (1 - n u), R_B the largest |coordinate| of B's input):
//  1. Copy rounding. |x' - (x - o)| <= E = float_copy_error(largest |coordinate| of the copy)
//     (filter_bounds.h); E = 0 for a float32 mesh.
//  2. Posing. Four terms summed left to right, three of them rounded products, land within gamma_4 of the
//     sum of their magnitudes (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., §3.1):
//     |P^(b) - (M b + t)| <= gamma_4 S_r per row, S_r = sum_k |m_rk| R_B + |t_r|. A float B rounds once more,
//     by at most 2^-24 |P^(b)| <= 2^-24 (1 + gamma_4) S_r (plus 2^-149 below float's normal range); not under
//     the identity pose, where ((1 x + 0 y) + 0 z) + 0 = x exactly, already a float.
//     t' sums five terms: |t' - (M o_B + t - o_A)| <= gamma_5 T_r, T_r = sum_k |m_rk| |o_Bk| + |t_r| + |o_Ar|.
//  3. Together: (q(b) - o_A) - (M b' + t') = (q(b) - (M b + t)) + M (b - o_B - b') + ((M o_B + t - o_A) - t'),
//     whose norm is at most sqrt(3) max_r [(gamma_4 + [float B] 2^-24 (1 + gamma_4)) S_r + gamma_5 T_r + 2^-149]
//     + ||M||_2 E_B, with ||M||_2 <= ||M||_F. Since sqrt(3) gamma_5 < 9u < 2^-49 and sqrt(3) < 1.75:
//        D_B = (2^-49 (S + T) + [float B] 1.75 (2^-24 (1 + 2^-50) S + 2^-149) + ||M||_F E_B) (1 + 2^-20),
//     S = max_r S_r, T = max_r T_r; the last factor covers this formula's own few roundings.
//  4. A triangle is the convex hull of its corners, and moving each corner by at most d moves every convex
//     combination by at most d. So a true triangle of A lies within E_A of its filter triangle, a true posed
//     triangle of B within D_B of its filter one: any lower bound L the filters prove for a pair's distance
//     gives L - (E_A + D_B) for the truth, any upper bound U gives U + (E_A + D_B).
// The CPU's bounds are all over these filters, and it prunes against exact distances only: its slack adds
// E_A + D_B. The GPU refits B's boxes per query to the float copy of B's posed truth (within its own
// float_copy_error of it) and widens B's moved oriented boxes by D_B (mesh_distance_gpu.cu).
// The exact evaluation's own rounding (in double over coordinates as large as the truth's) is covered as
// before by the pruning slack (mesh_distance_common.h), now taken from the truth's magnitude.
//
// Float32 inputs on both sides keep everything as it was: origins 0, t' = t, and the truth fl32(P^(b)) is
// within the moved boxes' eps of M b + t, so D_B = 0 and nothing is widened.
#pragma once

#include <cmath>
#include <cstdint>

#include "f12_bvh.h"
#include "../abi/large_buffer.h"
#include "point_frame.h"
#include "xhd.h"

namespace xhd {

// The largest absolute value of three (an origin's, say).
inline double largest_abs(const double* v) {
  return std::fmax(std::fabs(v[0]), std::fmax(std::fabs(v[1]), std::fabs(v[2])));
}

// What the searches keep of a mesh's frame once its hierarchy is built.
struct FrameInfo {
  double origin[3] = {0, 0, 0};
  double copy_error = 0.0;     // E
  double largest_truth = 0.0;  // the largest |coordinate| of the input
  bool copy_is_truth = true;   // a float32 mesh: its copy is its input, its hierarchy's corners are the truth
};

struct MeshFrame {
  PointFrame vertices;  // the vertices as a point set framed alone: origin, float copy, truth
  const uint32_t* triangles = nullptr;
  uint64_t triangle_count = 0;
  FrameInfo info;

  const float* xyz() const { return vertices.a.xyz; }
  const double* xyz64() const { return vertices.a.truth.f64; }
};

// Frames a checked mesh (see above).
void frame_mesh(const xhd_mesh& mesh, int threads, MeshFrame& frame);

// The input's corners (9 doubles a slot) in the f12 order of `mesh`, built from frame's copy; empty when the
// copy is the truth.
UninitLargeVector<double> truth_corners(const F12Mesh& mesh, const MeshFrame& frame, int threads);

struct FramePose {
  double m[12];         // [M | t']
  double displacement;  // D_B
};

// The pose of B (12 doubles, row by row) carried into A's frame, and D_B.
FramePose frame_pose(const double* pose, const FrameInfo& a, const FrameInfo& b);

}  // namespace xhd
