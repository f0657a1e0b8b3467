// xhd_count_degenerate_triangles: the triangles of a mesh that repeat a vertex or whose corners are collinear,
// counted on every core for the readers' note (countDegenerateTriangles, src/io/build.ts, is the reference).
//
// "Collinear" is the cross product of (b - a) and (c - a) exactly zero in all three components, in double.
// The count must equal the TypeScript one, so the arithmetic is JavaScript's: each coordinate widened to
// double first, then the same subtractions and products in the same order, never fused (the library is built
// with -ffp-contract=off). A corner index beyond the vertices reads as undefined in JavaScript, which makes
// every component NaN, so such a triangle is not degenerate here either (the readers never hand one over).
#include <atomic>
#include <cstdint>

#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "xhd.h"

namespace {

// About 1.5 MB of indices a block: a small part of a large mesh, so every core gets many.
constexpr uint64_t kTrianglesPerBlock = uint64_t(1) << 17;

template <class T>
bool collinear(const T* xyz, uint32_t a, uint32_t b, uint32_t c) {
  const double ax = double(xyz[3 * uint64_t(a)]), ay = double(xyz[3 * uint64_t(a) + 1]),
               az = double(xyz[3 * uint64_t(a) + 2]);
  const double ux = double(xyz[3 * uint64_t(b)]) - ax, uy = double(xyz[3 * uint64_t(b) + 1]) - ay,
               uz = double(xyz[3 * uint64_t(b) + 2]) - az;
  const double vx = double(xyz[3 * uint64_t(c)]) - ax, vy = double(xyz[3 * uint64_t(c) + 1]) - ay,
               vz = double(xyz[3 * uint64_t(c) + 2]) - az;
  return uy * vz - uz * vy == 0 && uz * vx - ux * vz == 0 && ux * vy - uy * vx == 0;
}

template <class T>
uint64_t count_block(const T* xyz, uint64_t vertex_count, const uint32_t* triangles, uint64_t begin, uint64_t end) {
  uint64_t degenerate = 0;
  for (uint64_t t = begin; t < end; ++t) {
    const uint32_t a = triangles[3 * t], b = triangles[3 * t + 1], c = triangles[3 * t + 2];
    if (a == b || b == c || a == c) {
      ++degenerate;
      continue;
    }
    if (a >= vertex_count || b >= vertex_count || c >= vertex_count) continue;
    if (collinear(xyz, a, b, c)) ++degenerate;
  }
  return degenerate;
}

template <class T>
uint64_t count_degenerate(const T* xyz, uint64_t vertex_count, const uint32_t* triangles, uint64_t triangle_count,
                          int threads) {
  std::atomic<uint64_t> degenerate{0};
  xhd::parallel_blocks(triangle_count, kTrianglesPerBlock, threads, [&](size_t begin, size_t end, int) {
    degenerate.fetch_add(count_block(xyz, vertex_count, triangles, begin, end), std::memory_order_relaxed);
  });
  return degenerate.load();
}

}  // namespace

extern "C" XHD_API int32_t xhd_count_degenerate_triangles(const xhd_mesh* mesh, int32_t threads,
                                                          uint64_t* degenerate) {
  return xhd::guarded([&] {
    if (mesh == nullptr || degenerate == nullptr) throw xhd::InvalidArgument("mesh and degenerate must not be null");
    if (mesh->triangle_count > 0 && mesh->triangles == nullptr)
      throw xhd::InvalidArgument("mesh has triangles but no triangle indices");
    if (mesh->vertex_count > 0 && (mesh->xyz == nullptr) == (mesh->xyz64 == nullptr))
      throw xhd::InvalidArgument("mesh must have exactly one of xyz and xyz64");
    if (threads < 0) throw xhd::InvalidArgument("threads must be >= 0");
    const int workers = xhd::resolve_thread_count(threads);
    const uint64_t vertices = mesh->vertex_count, triangles = mesh->triangle_count;
    // Without vertices every triangle that repeats no index points outside them: only repeats count.
    *degenerate = mesh->xyz64 != nullptr ? count_degenerate(mesh->xyz64, vertices, mesh->triangles, triangles, workers)
                                         : count_degenerate(mesh->xyz, vertices, mesh->triangles, triangles, workers);
    return int32_t(XHD_OK);
  });
}
