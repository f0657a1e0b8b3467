#include "optix_directed.h"

#include <optix.h>
#include <optix_stubs.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "../cuda/cuda_check.h"
#include "../cuda/query_state.cuh"
#include "../cuda/search_radius.h"
#include "optix_check.h"
#include "optix_session.h"
#include "optix_tuning.h"
#include "search_params.h"
#include "target_chunks.h"
#include "target_spheres.h"

namespace xhd {

namespace {

// The typical distance between neighbouring points of n spread over `bounds`, over the axes they span.
double point_spacing(const Box& bounds, uint32_t n) {
  double volume = 1.0;
  int dims = 0;
  for (int i = 0; i < 3; ++i) {
    const double extent = static_cast<double>(bounds.max[i]) - bounds.min[i];
    if (extent > 0.0) {
      volume *= extent;
      ++dims;
    }
  }
  if (dims == 0 || n == 0) return 1.0;
  return std::pow(volume / n, 1.0 / dims);
}

}  // namespace

uint64_t optix_search_bytes(uint64_t n) {
  if (n == 0) return 0;
  int device = 0;
  XHD_CUDA(cudaGetDevice(&device));
  // The targets' structure, and the launch parameters and counters (well under 1 KiB). Runs of points are
  // sized at the search, from the nearest distances: the smallest runs hold the most.
  const OptixDeviceContext context = optix_session(device).context;
  const uint64_t structure =
      optix_use_spheres() ? target_spheres_bytes(n, context) : target_chunks_bytes(n, optix_chunk_points(0.0), context);
  return structure + 1024;
}

float search_box_half_side(float r2, double upper) {
  // A computed squared distance c of an exact X has c >= X (1 - K) - A (filter_bounds.h), so c <= r2 means
  // X <= (r2 + A) / (1 - K); each axis' difference is at most sqrt(X). The 2^-10 on top covers the double
  // arithmetic here and any slack of the traversal's box test.
  const double reach =
      std::isinf(r2) ? upper
                     : std::sqrt((static_cast<double>(r2) + FilterBounds::kAbsolute) / (1.0 - FilterBounds::kRelative));
  const double h = reach * (1.0 + 1.0 / 1024.0) + 1e-30;
  float f = static_cast<float>(h);
  if (static_cast<double>(f) < h) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  if (!std::isfinite(f)) throw std::runtime_error("OptiX search radius beyond the float range");
  return f;
}

DirectedStats run_directed_optix(DeviceMemory& memory, const DirectedRun& run, cudaStream_t stream) {
  DirectedStats stats;
  const uint32_t n = run.query_count;
  if (n == 0) return stats;
  int device = 0;
  XHD_CUDA(cudaGetDevice(&device));
  const OptixSession& session = optix_session(device);
  const GridView g = run.target->view();
  const GridFrame& f = g.frame;

  DeviceArray<float> cmin(memory, n);
  DeviceArray<uint32_t> list_a(memory, n), list_b(memory, n);
  DeviceArray<unsigned long long> counters(memory, kSearchCounterSlots);
  DeviceArray<SearchParams> device_params(memory, 1);

  SearchParams p{};
  p.targets = g.points;
  p.target_count = g.count;
  p.queries = run.queries;
  p.query_count = n;
  p.cmin = cmin.get();
  p.counters = counters.get();
  p.cmax = run.cmax;
  p.bounds = *run.bounds;
  p.survivors = run.survivors;
  p.loose = run.loose;

  // The hybrid of the paper: the grid (built anyway, for the queries' Morton order and the double-precision
  // refinement) seeds cmax with exact nearest distances of a spread sample of the queries, so early break
  // works from the first rays. Without it the first rays of sets far apart meet every target's box.
  seed_cmax_on_grid(run, stream);

  // One of the two, per XHD_OPTIX_PRIMITIVE (optix_tuning.h); runs of points sized by the nearest distance
  // the seeding proved against the targets' spacing.
  const double seeded = cmax_distance(run.cmax, stream);
  std::optional<TargetSpheres> spheres;
  std::optional<TargetChunks> chunks;
  if (optix_use_spheres())
    spheres.emplace(memory, session, g.points, g.count, stream);
  else
    chunks.emplace(memory, session, g.points, g.count,
                   optix_chunk_points(seeded / point_spacing(run.target->bounds, g.count)), stream);
  p.primitive = spheres ? SearchPrimitive::kSpheres : SearchPrimitive::kChunks;
  if (chunks) {
    p.chunk_mbrs = chunks->mbrs();
    p.chunk = chunks->chunk();
  }

  // XHD_CUDA_PROFILE (phase_log.h): a line per launch, what the search did at each radius.
  const bool profile = std::getenv("XHD_CUDA_PROFILE") != nullptr;
  if (profile)
    std::fprintf(stderr, "xhd-profile optix %s\n",
                 spheres ? "spheres" : ("runs of " + std::to_string(chunks->chunk()) + " points").c_str());

  auto launch = [&](SearchLaunch kind, uint32_t count) {
    p.launch = kind;
    p.launch_count = count;
    XHD_CUDA(cudaMemsetAsync(counters.get(), 0, kSearchCounterSlots * sizeof(unsigned long long), stream));
    // OptiX launches at most 2^30 rays at once: larger sets go in pieces, each with its parameters.
    constexpr uint64_t kMaxRays = 1u << 30;
    for (uint64_t first = 0; first < count; first += kMaxRays) {
      p.first = static_cast<uint32_t>(first);
      // From pageable memory the copy has taken p's bytes when it returns, so p may change for the next piece.
      XHD_CUDA(cudaMemcpyAsync(device_params.get(), &p, sizeof(p), cudaMemcpyHostToDevice, stream));
      XHD_OPTIX(optixLaunch(session.pipeline, stream, reinterpret_cast<CUdeviceptr>(device_params.get()), sizeof(p),
                            &session.sbt, static_cast<unsigned>(std::min<uint64_t>(kMaxRays, count - first)), 1, 1));
    }
    unsigned long long c[kSearchCounterSlots];
    XHD_CUDA(cudaMemcpyAsync(c, counters.get(), sizeof(c), cudaMemcpyDeviceToHost, stream));
    XHD_CUDA(cudaStreamSynchronize(stream));
    stats.distance_evals += c[kSearchEvals];
    stats.pruned_queries += c[kSearchPruned];
    if (profile)
      std::fprintf(stderr, "xhd-profile optix launch r2 %.6g: %u rays, %llu missed, %llu pruned, %llu distances\n",
                   static_cast<double>(p.r2), count, c[kSearchMisses], c[kSearchPruned], c[kSearchEvals]);
    return static_cast<uint32_t>(c[kSearchMisses]);
  };

  // The first radius and its growth are the grid search's (search_radius.h).
  SearchRadius radius(run.source_bounds, run.target->bounds, f);
  if (g.count == 0) radius.make_unbounded();  // nothing to find: one unbounded pass offers every query
  // Every pass here is a launch over all open queries and a refit: for sets far apart, where the grid's
  // radius would creep up cell by cell, the first pass starts at the seeded nearest distance, within which
  // a query either meets a point that settles it (early break) or finds its nearest.
  if (seeded_first_radius()) radius.start_at_least(seeded);

  uint32_t* in = list_a.get();
  uint32_t* out = list_b.get();
  uint32_t in_count = n;
  for (int iteration = 0;; ++iteration) {
    run.progress->check_cancel();
    const float r2 = radius.r2();
    const float reach = search_box_half_side(r2, radius.upper());
    p.handle = spheres ? spheres->at_radius(reach) : chunks->at_half_side(reach);
    p.sphere_radius = reach;
    p.r2 = r2;
    p.misses = out;
    uint32_t missed = 0;
    if (iteration == 0) {
      missed = launch(SearchLaunch::kFirst, n);
    } else {
      p.worklist = in;
      missed = launch(SearchLaunch::kAgain, in_count);
      stats.radius_queries += in_count;
    }
    stats.iterations = iteration + 1;
    run.progress->add(in_count - missed);
    if (missed == 0) break;
    if (std::isinf(r2)) throw std::runtime_error("OptiX X-HD search left queries unresolved at an unbounded radius");
    radius.grow(in_count, missed);
    std::swap(in, out);
    in_count = missed;
  }
  return stats;
}

}  // namespace xhd
