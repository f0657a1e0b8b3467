#include "surface_compare.h"
#include "surface_islands.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "../abi/beside.h"
#include "../abi/elapsed.h"
#include "../abi/owned_buffer.h"
#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "brute_nearest_parallel.h"
#include "surface_queries.h"
#include "../abi/validate.h"

namespace xhd {
namespace {

using Clock = std::chrono::steady_clock;

void check_options(const xhd_surface_compare_options& o) {
  if (o.method != XHD_SURFACE_BVH && o.method != XHD_SURFACE_BRUTE && o.method != XHD_SURFACE_GRID)
    throw InvalidArgument("unknown surface method " + std::to_string(o.method));
  if (o.directions != XHD_DIRECTION_AB && o.directions != (XHD_DIRECTION_AB | XHD_DIRECTION_BA))
    throw InvalidArgument("directions must be XHD_DIRECTION_AB or XHD_DIRECTION_AB | XHD_DIRECTION_BA");
  if (o.sampling < XHD_SAMPLING_AREA || o.sampling > XHD_SAMPLING_METRO)
    throw InvalidArgument("unknown sampling " + std::to_string(o.sampling));
  if (o.threads < 0) throw InvalidArgument("threads must be >= 0");
  if (!(o.density >= 0.0) || !std::isfinite(o.density)) throw InvalidArgument("density must be a finite number >= 0");
  if (o.samples > 0 && o.density > 0) throw InvalidArgument("give samples or density, not both");
}

void check_input(const xhd_mesh* input, const char* name, int threads) {
  if (input == nullptr) throw InvalidArgument(std::string("input ") + name + " is null");
  if (has_faces(*input)) return check_mesh(input, threads);
  const xhd_points points{input->xyz, input->vertex_count, input->xyz64};
  check_points(&points, name, threads);
}

// An input as the other side's target: a mesh as it is, a point cloud as one-point triangles (i, i, i), so
// that the distance to it is the nearest-point distance.
struct Target {
  xhd_mesh mesh{};
  std::vector<uint32_t> point_triangles;

  explicit Target(const xhd_mesh& input) : mesh(input) {
    if (has_faces(input)) return;
    point_triangles.resize(3 * input.vertex_count);
    for (uint64_t i = 0; i < 3 * input.vertex_count; ++i) point_triangles[i] = static_cast<uint32_t>(i / 3);
    mesh.triangles = point_triangles.data();
    mesh.triangle_count = input.vertex_count;
  }
};

// One direction measured: its distances (handed to the caller at the end) and the search's report.
struct Measured {
  OwnedBuffer distances;
  xhd_surface_result search{};
};

void measure(const SurfaceBackend& backend, const SurfaceQueries& queries, const Target& target, int threads,
             GateLane* lane, const Progress& progress, Measured& out) {
  progress.check_cancel();
  out.distances = OwnedBuffer(sizeof(double) * queries.points.count);
  out.search = xhd_surface_result{};
  out.search.device = -1;
  const SurfaceMeasureJob job{queries.points, &target.mesh, threads, &progress, out.distances.as<double>(), lane};
  // Queries and triangles in groups far apart: an island at a time (surface_islands.h).
  if (!measure_by_islands(job, out.search, backend.measure)) backend.measure(job, out.search);
}

// The statistics in the TypeScript reduce's order (reduceDistances): one pass in sample order, the witness the
// first sample of the largest distance.
void reduce(const SurfaceQueries& queries, const double* d, xhd_surface_direction& out) {
  const uint64_t n = queries.points.count;
  uint64_t worst = 0;
  double min = INFINITY, sum = 0, sum2 = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const double v = d[i];
    if (v > d[worst]) worst = i;  // ties keep the smallest sample index
    if (v < min) min = v;
    sum += v;
    sum2 += v * v;
  }
  out.hd = d[worst];
  out.min = min;
  out.mean = sum / double(n);
  out.rms = std::sqrt(sum2 / double(n));
  out.e = sum2;
  out.samples = n;
  out.from_index = static_cast<int64_t>(worst);
  const PointTruth truth = truth_of(queries.points);
  for (int k = 0; k < 3; ++k) out.from_point[k] = truth.coord(worst, k);
}

// The witness's nearest triangle and closest point by the reference over every triangle: one point costs one
// pass over the mesh (on `threads`, the serial scan's answer), so the searches return distances alone.
void find_witness(const Target& target, xhd_surface_direction& out, int threads) {
  const xhd_mesh& m = target.mesh;
  const PointTruth vertices{m.xyz64 ? nullptr : m.xyz, m.xyz64, m.vertex_count};
  const Dvec3 p{out.from_point[0], out.from_point[1], out.from_point[2]};
  const BruteNearest nearest = nearest_triangle_brute_parallel(vertices, m.triangles, m.triangle_count, p, threads);
  out.to_index = nearest.triangle;
  out.to_point[0] = nearest.best.at.x;
  out.to_point[1] = nearest.best.at.y;
  out.to_point[2] = nearest.best.at.z;
}

// Hands a direction's arrays to the caller, with what its search reported.
void finish(SurfaceQueries& queries, Measured& measured, xhd_surface_direction& out) {
  out.queries_from = queries.from;
  const bool sampled = queries.from == XHD_QUERIES_SAMPLES;
  if (sampled) queries.samples.release();  // now reached through queries.points, which the caller frees
  out.queries = sampled ? queries.points.xyz : nullptr;
  out.queries64 = sampled ? queries.points.xyz64 : nullptr;
  out.distances = static_cast<const double*>(measured.distances.release());
  out.build_ms = measured.search.build_ms;
  out.query_ms = measured.search.query_ms;
  out.upload_ms = measured.search.upload_ms;
  out.download_ms = measured.search.download_ms;
  out.triangle_tests = measured.search.triangle_tests;
  out.peak_device_bytes = measured.search.peak_device_bytes;
}

}  // namespace

void surface_compare(const xhd_mesh* a, const xhd_mesh* b, const xhd_surface_compare_options* options,
                     xhd_surface_compare_result* result, xhd_progress* progress_slot, const SurfaceBackend& backend) {
  if (options == nullptr || result == nullptr) throw InvalidArgument("options and result must not be null");
  std::memset(result, 0, sizeof(*result));
  result->device = -1;
  const xhd_surface_compare_options o = *options;
  check_options(o);
  const int threads = resolve_thread_count(o.threads);
  check_input(a, "A", threads);
  check_input(b, "B", threads);
  const bool both = (o.directions & XHD_DIRECTION_BA) != 0;
  // On the CPU the two directions run side by side, and B is sampled while A's distances are measured: on few
  // cores this overlaps the single-threaded parts of each search. Each build (and B's sampling) holds half the
  // threads; the query loops share all of them through the gate, so the costlier direction takes the cores the
  // other leaves (core_gate.h).
  const bool side = both && threads >= 2 && backend.on_host;
  const int first_half = side ? (threads + 1) / 2 : threads, second_half = side ? threads / 2 : threads;
  CoreGate gate(threads);
  std::optional<GateLane> lane_a, lane_b;  // both open before either direction starts
  if (side) lane_a.emplace(gate), lane_b.emplace(gate);
  const Progress progress(progress_slot);

  const Target target_b(*b);
  std::vector<Target> target_a;  // only when B -> A is measured (a cloud's triangles cost memory)
  if (both) target_a.emplace_back(*a);

  auto start = Clock::now();
  SurfaceQueries queries_a = surface_queries(*a, o, o.seed, threads);
  double sample_ms = elapsed_ms(start);
  // Until B is sampled, its count is taken to be A's.
  progress.set_total(both ? 2 * queries_a.points.count : queries_a.points.count);
  SurfaceQueries queries_b;
  Measured ab, ba;
  double sample_b_ms = 0;
  // B's stream differs from A's, so two copies of one mesh are not sampled at the same points.
  const auto sample_b = [&](int with) {
    progress.check_cancel();
    const auto b_start = Clock::now();
    GateHold hold(lane_b ? &*lane_b : nullptr, with);
    queries_b = surface_queries(*b, o, o.seed + 1, with);
    sample_b_ms = elapsed_ms(b_start);
    progress.set_total(queries_a.points.count + queries_b.points.count);
  };
  const auto measure_start = Clock::now();
  if (!both) {
    measure(backend, queries_a, target_b, threads, nullptr, progress, ab);
  } else if (side) {
    // Each lane closes when its direction is done (or has thrown), giving its share to the other.
    Beside first([&] {
      const LaneScope done(&*lane_a);
      measure(backend, queries_a, target_b, first_half, &*lane_a, progress, ab);
    });
    {
      const LaneScope done(&*lane_b);
      sample_b(second_half);
      measure(backend, queries_b, target_a[0], second_half, &*lane_b, progress, ba);
    }
    first.join();
  } else if (backend.on_host) {
    // One CPU thread means one: B is sampled only after A's distances are in.
    measure(backend, queries_a, target_b, threads, nullptr, progress, ab);
    sample_b(threads);
    measure(backend, queries_b, target_a[0], threads, nullptr, progress, ba);
  } else {
    // The device measures A's distances while the host samples B.
    Beside first([&] { measure(backend, queries_a, target_b, threads, nullptr, progress, ab); });
    sample_b(threads);
    first.join();
    measure(backend, queries_b, target_a[0], threads, nullptr, progress, ba);
  }
  // Wall times. One after the other, the directions' times add up; side by side they overlap (and B's sampling
  // overlaps A's measuring), so the build is the longer of the two and the query the rest of the measuring's
  // wall time. On a device, B is sampled while A is measured, so the query is clamped to the wall time left
  // after the builds. Either way the timings never add up to more than the total.
  const double wall = elapsed_ms(measure_start) - sample_b_ms;
  sample_ms += sample_b_ms;
  if (side) {
    result->build_ms = std::min(std::max(ab.search.build_ms, ba.search.build_ms), wall);
    result->query_ms = std::max(0.0, wall - result->build_ms);
  } else {
    result->build_ms = std::min(ab.search.build_ms + ba.search.build_ms, std::max(0.0, wall));
    result->query_ms = std::min(ab.search.query_ms + ba.search.query_ms, std::max(0.0, wall - result->build_ms));
  }
  result->sample_ms = sample_ms;

  reduce(queries_a, ab.distances.as<double>(), result->ab);
  if (both) reduce(queries_b, ba.distances.as<double>(), result->ba);
  if (both && threads >= 2) {
    // Each witness is a pass over the other input's every triangle: the two side by side, on half the threads each.
    Beside other([&] { find_witness(target_a[0], result->ba, threads / 2); });
    find_witness(target_b, result->ab, (threads + 1) / 2);
    other.join();
  } else {
    find_witness(target_b, result->ab, threads);
    if (both) find_witness(target_a[0], result->ba, threads);
  }
  result->upload_ms = ab.search.upload_ms + ba.search.upload_ms;
  result->download_ms = ab.search.download_ms + ba.search.download_ms;
  result->peak_device_bytes = std::max(ab.search.peak_device_bytes, ba.search.peak_device_bytes);
  result->device = ab.search.device;
  result->threads = backend.on_host ? threads : 0;
  for (int k = 0; k < 3; ++k) result->origin[k] = ab.search.origin[k];
  // Nothing can fail from here on: the arrays become the caller's.
  finish(queries_a, ab, result->ab);
  if (both) finish(queries_b, ba, result->ba);
}

}  // namespace xhd

extern "C" XHD_API void xhd_surface_compare_free(xhd_surface_compare_result* result) {
  if (result == nullptr) return;
  for (xhd_surface_direction* d : {&result->ab, &result->ba}) {
    std::free(const_cast<float*>(d->queries));
    std::free(const_cast<double*>(d->queries64));
    std::free(const_cast<double*>(d->distances));
    d->queries = nullptr;
    d->queries64 = nullptr;
    d->distances = nullptr;
  }
}
