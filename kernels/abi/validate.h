// Argument checks shared by every backend's xhd_hausdorff, so all backends refuse the same inputs
// with the same messages.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "parallel.h"
#include "xhd.h"

namespace xhd {

struct InvalidArgument : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Beyond this magnitude double precision no longer holds distances between nearby points usefully (its
// step at 1e15 is 0.125), and squared float distances could overflow.
constexpr double kMaxAbsCoordinate = 1e15;

// Refuses the set at its first point (the smallest index) with a coordinate that is not finite or beyond
// kMaxAbsCoordinate. Blocks of points are checked on `threads` threads, each block without an early exit so
// that it vectorizes (measured at 12.5M float points: 5.7 ms on one thread, where the early-exit loop took
// 21-40 ms).
template <class T>
void check_coordinates(const T* xyz, uint64_t count, const char* name, int threads) {
  constexpr size_t kPointsPerBlock = size_t(1) << 16;
  std::atomic<uint64_t> first_bad{UINT64_MAX};
  parallel_blocks(count, kPointsPerBlock, threads, [&](size_t begin, size_t end, int) {
    unsigned any_bad = 0;  // an OR over unsigned vectorizes, an AND over bool does not (gcc 12)
    for (size_t i = 3 * begin; i < 3 * end; ++i)
      any_bad |= !(std::fabs(static_cast<double>(xyz[i])) <= kMaxAbsCoordinate);
    if (any_bad == 0) return;
    size_t bad = begin;
    while (std::fabs(static_cast<double>(xyz[3 * bad])) <= kMaxAbsCoordinate &&
           std::fabs(static_cast<double>(xyz[3 * bad + 1])) <= kMaxAbsCoordinate &&
           std::fabs(static_cast<double>(xyz[3 * bad + 2])) <= kMaxAbsCoordinate)
      ++bad;
    uint64_t seen = first_bad.load(std::memory_order_relaxed);
    while (bad < seen && !first_bad.compare_exchange_weak(seen, bad, std::memory_order_relaxed)) {
    }
  });
  const uint64_t bad = first_bad.load(std::memory_order_relaxed);
  if (bad == UINT64_MAX) return;
  bool finite = true;
  for (int k = 0; k < 3; ++k) {
    const double v = xyz[3 * bad + k];
    if (!(std::fabs(v) <= kMaxAbsCoordinate)) {
      finite = std::isfinite(v);
      break;
    }
  }
  throw InvalidArgument(std::string("point ") + std::to_string(bad) + " of set " + name +
                        (finite ? " has a coordinate beyond +-1e15" : " has a non-finite coordinate"));
}

// allow_double: whether the call takes double coordinates (xyz64) as well as floats. scan_coordinates false: all
// but the coordinates' values, which the caller checks in a pass of its own (frame_points' check_coordinates).
inline void check_points(const xhd_points* set, const char* name, int threads, bool allow_double = true,
                         bool scan_coordinates = true) {
  if (set == nullptr) throw InvalidArgument(std::string("point set ") + name + " is null");
  if (set->count == 0) throw InvalidArgument(std::string("point set ") + name + " is empty");
  if ((set->xyz == nullptr) == (set->xyz64 == nullptr))
    throw InvalidArgument(std::string("point set ") + name + " must have exactly one of xyz and xyz64");
  if (set->xyz64 != nullptr && !allow_double)
    throw InvalidArgument(std::string("point set ") + name + ": this call takes float coordinates (xyz) only");
  if (set->count >= UINT32_MAX)
    throw InvalidArgument(std::string("point set ") + name + " has more than 4294967294 points");
  if (!scan_coordinates) return;
  if (set->xyz64 != nullptr) check_coordinates(set->xyz64, set->count, name, threads);
  else check_coordinates(set->xyz, set->count, name, threads);
}

// xhd_hausdorff_options::distinct is a yes or no, and reserved is 0 (every call that takes the options).
inline void check_distinct_flag(const xhd_hausdorff_options& options) {
  if ((options.distinct != 0 && options.distinct != 1) || options.reserved != 0)
    throw InvalidArgument("distinct must be 0 or 1, and reserved 0");
}

// Checks options and both sets, and resets result to "nothing computed".
// The options of a Hausdorff call, its result cleared to "nothing found" first.
inline void check_hausdorff_options(const xhd_hausdorff_options* options, xhd_hausdorff_result* result) {
  if (options == nullptr || result == nullptr) throw InvalidArgument("options and result must not be null");
  std::memset(result, 0, sizeof(*result));
  result->ab.from_index = result->ab.to_index = XHD_NO_INDEX;
  result->ba.from_index = result->ba.to_index = XHD_NO_INDEX;
  result->device = -1;
  result->query_chunks = 1;
  const int directions = options->directions;
  if ((directions & (XHD_DIRECTION_AB | XHD_DIRECTION_BA)) == 0 || (directions & ~3) != 0)
    throw InvalidArgument("directions must be XHD_DIRECTION_AB, XHD_DIRECTION_BA or both");
  if (options->threads < 0) throw InvalidArgument("threads must be >= 0");
  check_distinct_flag(*options);
  if (!(options->cell_size >= 0.0) || !std::isfinite(options->cell_size))
    throw InvalidArgument("cell_size must be a finite number >= 0");
  if (options->method < XHD_METHOD_GRID || options->method > XHD_METHOD_BRUTE)
    throw InvalidArgument("unknown method " + std::to_string(options->method));
}

// scan_coordinates false: the coordinates' values are left to the caller's frame_points (check_coordinates).
inline void check_hausdorff_call(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                                 xhd_hausdorff_result* result, bool scan_coordinates = true) {
  check_hausdorff_options(options, result);
  const int threads = resolve_thread_count(options->threads);
  check_points(a, "A", threads, true, scan_coordinates);
  check_points(b, "B", threads, true, scan_coordinates);
}

// Every caller takes double vertices (xyz64) as well as floats.
inline void check_mesh(const xhd_mesh* mesh, int threads = 1) {
  if (mesh == nullptr) throw InvalidArgument("mesh is null");
  if (mesh->triangle_count == 0) throw InvalidArgument("mesh has no triangles");
  if (mesh->triangles == nullptr) throw InvalidArgument("mesh has no triangle indices");
  if (mesh->triangle_count >= UINT32_MAX) throw InvalidArgument("mesh has more than 4294967294 triangles");
  const xhd_points vertices{mesh->xyz, mesh->vertex_count, mesh->xyz64};
  check_points(&vertices, "M (mesh vertices)", threads);
  for (uint64_t k = 0; k < 3 * mesh->triangle_count; ++k)
    if (mesh->triangles[k] >= mesh->vertex_count)
      throw InvalidArgument("triangle " + std::to_string(k / 3) + " uses vertex " + std::to_string(mesh->triangles[k]) +
                            ", outside 0.." + std::to_string(mesh->vertex_count - 1));
}

// Checks a point-to-surface call and resets result to "nothing computed".
inline void check_surface_call(const xhd_points* points, const xhd_mesh* mesh, const xhd_surface_options* options,
                               xhd_surface_result* result) {
  if (options == nullptr || result == nullptr) throw InvalidArgument("options and result must not be null");
  std::memset(result, 0, sizeof(*result));
  result->device = -1;
  if (options->threads < 0) throw InvalidArgument("threads must be >= 0");
  if (options->method != XHD_SURFACE_BVH && options->method != XHD_SURFACE_BRUTE && options->method != XHD_SURFACE_GRID)
    throw InvalidArgument("unknown surface method " + std::to_string(options->method));
  const int threads = resolve_thread_count(options->threads);
  check_points(points, "Q (query points)", threads);
  check_mesh(mesh, threads);
}

}  // namespace xhd
