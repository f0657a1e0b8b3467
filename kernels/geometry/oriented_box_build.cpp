#include "oriented_box_build.h"

#include <algorithm>
#include <cmath>

#include "../abi/parallel.h"
#include "../abi/progress.h"

namespace xhd {
namespace {

// The eigenvectors of a symmetric 3x3 matrix (columns of v), by cyclic Jacobi rotations. Any orthonormal
// axes give a valid box; the principal ones give a thin one.
void principal_axes(double a[3][3], double v[3][3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) v[i][j] = i == j ? 1.0 : 0.0;
  // Rough axes do: a box along them is valid, only a little thicker.
  for (int sweep = 0; sweep < 6; ++sweep) {
    const double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    const double diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];
    if (!(off > 1e-12 * diag)) return;
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        if (a[p][q] == 0.0) continue;
        const double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
        const double t = std::fabs(theta) > 1e150
                             ? 0.5 / theta
                             : std::copysign(1.0, theta) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < 3; ++k) {
          const double kp = a[k][p], kq = a[k][q];
          a[k][p] = c * kp - s * kq;
          a[k][q] = s * kp + c * kq;
        }
        for (int k = 0; k < 3; ++k) {
          const double pk = a[p][k], qk = a[q][k];
          a[p][k] = c * pk - s * qk;
          a[q][k] = s * pk + c * qk;
        }
        for (int k = 0; k < 3; ++k) {
          const double kp = v[k][p], kq = v[k][q];
          v[k][p] = c * kp - s * kq;
          v[k][q] = s * kp + c * kq;
        }
      }
  }
}

Dvec3 unit(Dvec3 v) {
  const double n = std::sqrt(ddot(v, v));
  return {v.x / n, v.y / n, v.z / n};
}

// First and second moments of a node's vertices about a common origin: they add up the tree.
struct Moments {
  double n = 0.0;
  double s[3] = {0, 0, 0};
  double ss[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};

  void add(const Dvec3& p) {
    const double q[3] = {p.x, p.y, p.z};
    n += 1.0;
    for (int i = 0; i < 3; ++i) {
      s[i] += q[i];
      for (int j = 0; j < 3; ++j) ss[i][j] += q[i] * q[j];
    }
  }
  void add(const Moments& o) {
    n += o.n;
    for (int i = 0; i < 3; ++i) {
      s[i] += o.s[i];
      for (int j = 0; j < 3; ++j) ss[i][j] += o.ss[i][j];
    }
  }
};

// Axes u0 and (u1 made orthogonal to it), completed by their cross product; orthonormal in double, then
// rounded to float (the bounds allow for that). False where they do not span a plane.
bool set_axes(Dvec3 u0, Dvec3 u1, OrientedBox& box) {
  if (!(ddot(u0, u0) > 0.0)) return false;
  u0 = unit(u0);
  const double along = ddot(u1, u0);
  u1 = {u1.x - along * u0.x, u1.y - along * u0.y, u1.z - along * u0.z};
  if (!(ddot(u1, u1) > 1e-12 * ddot(u0, u0))) return false;
  u1 = unit(u1);
  const Dvec3 u[3] = {u0, u1, dcross(u0, u1)};
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 3; ++k) box.u[j][k] = static_cast<float>(dget(u[j], k));
  return true;
}

// The principal axes of the moments.
void principal_box_axes(const Moments& m, OrientedBox& box) {
  double cov[3][3], axes[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) cov[i][j] = m.ss[i][j] - m.s[i] * m.s[j] / m.n;
  principal_axes(cov, axes);
  if (!set_axes({axes[0][0], axes[1][0], axes[2][0]}, {axes[0][1], axes[1][1], axes[2][1]}, box))
    set_axes({1, 0, 0}, {0, 1, 0}, box);
}

// Centre and extents from the interval [lo_j, hi_j] the node covers along each axis, measured from o.
template <typename Interval>
void set_extent(const Dvec3& o, OrientedBox& box, const Interval& interval) {
  double lo[3], hi[3];
  interval(o, lo, hi);
  Dvec3 c = o;
  for (int j = 0; j < 3; ++j) {
    const double mid = 0.5 * (lo[j] + hi[j]);
    c = {c.x + mid * box.u[j][0], c.y + mid * box.u[j][1], c.z + mid * box.u[j][2]};
  }
  box.c[0] = static_cast<float>(c.x), box.c[1] = static_cast<float>(c.y), box.c[2] = static_cast<float>(c.z);
  // Measured again about the rounded centre, then rounded up, with room for the double arithmetic.
  interval(fvec(box.c), lo, hi);
  for (int j = 0; j < 3; ++j) {
    const double e = larger(-lo[j], hi[j]);
    box.e[j] = std::nextafter(static_cast<float>(e * (1.0 + 1e-12)), INFINITY);
  }
}

// The node's vertices' interval along each axis: exact.
void vertex_extent(const float* v, uint64_t count, OrientedBox& box) {
  set_extent(dload(v), box, [&](const Dvec3& o, double* lo, double* hi) {
    for (int j = 0; j < 3; ++j) lo[j] = INFINITY, hi[j] = -INFINITY;
    for (uint64_t k = 0; k < count; ++k) {
      const Dvec3 p = dsub(dload(v + 3 * k), o);
      for (int j = 0; j < 3; ++j) {
        const double h = ddot(fvec(box.u[j]), p);
        lo[j] = smaller(lo[j], h);
        hi[j] = larger(hi[j], h);
      }
    }
  });
}

// The reaches of a node's vertices along the 26 directions of its oriented box's axes, from the box's
// centre, rounded up. The 13 directions whose first non-zero sign is + give the other 13 as their minima.
DopReaches vertex_reaches(const float* v, uint64_t count, const OrientedBox& box) {
  constexpr int kHalf = 13;
  int dirs[kHalf][3], n = 0;
  for (int s0 = -1; s0 <= 1; ++s0)
    for (int s1 = -1; s1 <= 1; ++s1)
      for (int s2 = -1; s2 <= 1; ++s2)
        if (s0 > 0 || (s0 == 0 && (s1 > 0 || (s1 == 0 && s2 > 0))))
          dirs[n][0] = s0, dirs[n][1] = s1, dirs[n][2] = s2, ++n;
  const Dvec3 c = fvec(box.c);
  const Dvec3 u[3] = {fvec(box.u[0]), fvec(box.u[1]), fvec(box.u[2])};
  double hi[kHalf], lo[kHalf];
  for (int k = 0; k < kHalf; ++k) hi[k] = -INFINITY, lo[k] = INFINITY;
  for (uint64_t i = 0; i < count; ++i) {
    const Dvec3 p = dsub(dload(v + 3 * i), c);
    const double q[3] = {ddot(u[0], p), ddot(u[1], p), ddot(u[2], p)};
    for (int k = 0; k < kHalf; ++k) {
      const double h = dirs[k][0] * q[0] + dirs[k][1] * q[1] + dirs[k][2] * q[2];
      hi[k] = larger(hi[k], h);
      lo[k] = smaller(lo[k], h);
    }
  }
  double reach[kDopSlots] = {};
  for (int k = 0; k < kHalf; ++k) {
    const int* s = dirs[k];
    const double room = 1e-12 * (std::fabs(hi[k]) + std::fabs(lo[k]));  // for the double arithmetic above
    reach[dop_slot(s[0], s[1], s[2])] = hi[k] + room;
    reach[dop_slot(-s[0], -s[1], -s[2])] = -lo[k] + room;
  }
  double radius2 = 0.0;
  for (int j = 0; j < 3; ++j) {
    const double e = larger(reach[13 + kDopFace[j]], reach[13 - kDopFace[j]]);
    radius2 += e * e;
  }
  DopReaches out;
  // Axes orthonormal to float precision: the radius from the three face reaches, with room.
  out.r = std::nextafter(static_cast<float>(std::sqrt(radius2) * (1.0 + 1e-6) + 1e-30), INFINITY);
  const double unit = dop_unit(out.r);
  for (int k = 0; k < kDopSlots; ++k)
    out.h[k] = static_cast<uint16_t>(std::fmin(65535.0, std::ceil(larger(reach[k], 0.0) / unit)));
  return out;
}

}  // namespace

LargeVector<OrientedBox> build_oriented_boxes(const F12Mesh& mesh, int threads, const Progress& progress) {
  const F12Shape& s = mesh.shape;
  LargeVector<OrientedBox> boxes(f12_node_count(s));
  const float* corners = mesh.corners.data();
  const Dvec3 origin = dload(corners);
  // Moments of one level at a time, leaves first.
  LargeVector<Moments> below(1ull << s.depth), here;
  for (uint32_t level = s.depth + 1; level-- > 0;) {
    progress.check_cancel();
    const uint64_t count = 1ull << level;
    const uint32_t shift = s.depth - level;
    if (level < s.depth) here = LargeVector<Moments>(count);
    LargeVector<Moments>& moments = level == s.depth ? below : here;
    parallel_blocks(count, std::max<uint64_t>(1, 4096 >> shift), threads, [&](size_t begin, size_t end, int) {
      for (size_t i = begin; i < end; ++i) {
        const uint32_t first = f12_leaf_first(s, static_cast<uint64_t>(i) << shift);
        const uint32_t last = f12_leaf_first(s, static_cast<uint64_t>(i + 1) << shift);
        Moments& m = moments[i];
        if (level == s.depth) {
          for (uint64_t v = 3ull * first; v < 3ull * last; ++v) m.add(dsub(dload(corners + 3 * v), origin));
        } else {
          m = below[2 * i];
          m.add(below[2 * i + 1]);
        }
        OrientedBox& box = boxes[f12_node(level, i)];
        principal_box_axes(m, box);
        // Exact extents at every level (children's boxes would be cheaper, but measured 1.2–3x more pairs).
        vertex_extent(corners + 9ull * first, 3ull * (last - first), box);
      }
    });
    if (level < s.depth) below.swap(here);
  }
  return boxes;
}

LargeVector<DopReaches> build_dop_reaches(const F12Mesh& mesh, const LargeVector<OrientedBox>& boxes, int threads,
                                          const Progress& progress) {
  const F12Shape& s = mesh.shape;
  LargeVector<DopReaches> reaches(f12_node_count(s));
  const float* corners = mesh.corners.data();
  for (uint32_t level = 0; level <= s.depth; ++level) {
    progress.check_cancel();
    const uint32_t shift = s.depth - level;
    parallel_blocks(1ull << level, std::max<uint64_t>(1, 4096 >> shift), threads, [&](size_t begin, size_t end, int) {
      for (size_t i = begin; i < end; ++i) {
        const uint32_t first = f12_leaf_first(s, static_cast<uint64_t>(i) << shift);
        const uint32_t last = f12_leaf_first(s, static_cast<uint64_t>(i + 1) << shift);
        const uint64_t node = f12_node(level, i);
        reaches[node] = vertex_reaches(corners + 9ull * first, 3ull * (last - first), boxes[node]);
      }
    });
  }
  return reaches;
}

}  // namespace xhd

namespace xhd {

// The pose's 3x3 part is orthogonal to within 1e-9 (a rigid motion, perhaps a reflection).
bool is_rigid(const double* pose) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const double dot = pose[i] * pose[j] + pose[4 + i] * pose[4 + j] + pose[8 + i] * pose[8 + j];
      if (std::fabs(dot - (i == j ? 1.0 : 0.0)) > 1e-9) return false;
    }
  return true;
}

}  // namespace xhd
