#include "surface_queries.h"

#include <algorithm>
#include <string>

#include "js_math.h"
#include "metro_sampling.h"
#include "surface_sampling.h"
#include "../abi/validate.h"

namespace xhd {
namespace {

// defaultSampleCount in src/sampling/sample-mesh.ts: the vertex count, and at least 100,000 so that small
// meshes are measured finely.
constexpr uint64_t kMinDefaultSamples = 100000;

// The samples go to the searches as a point set, whose count must stay below 2^32 - 1.
void check_count(double count) {
  if (!(count < double(UINT32_MAX)))
    throw InvalidArgument("a mesh can give at most 4294967294 samples; " + std::to_string(count) + " were asked for");
}

// The count asked for, as the TypeScript orchestration computed it (queryPoints in src/surface-compare.ts).
uint64_t sample_count(const xhd_mesh& mesh, const xhd_surface_compare_options& options, double area) {
  if (options.samples > 0) return options.samples;
  if (options.density > 0) {
    const double count = std::max(1.0, js_round(options.density * area));
    check_count(count);
    return static_cast<uint64_t>(count);
  }
  return std::max<uint64_t>(mesh.vertex_count, kMinDefaultSamples);
}

}  // namespace

SurfaceQueries surface_queries(const xhd_mesh& input, const xhd_surface_compare_options& options, uint64_t seed,
                               int threads) {
  SurfaceQueries q;
  q.points = xhd_points{input.xyz64 ? nullptr : input.xyz, input.vertex_count, input.xyz64};
  if (!has_faces(input) || options.sampling == XHD_SAMPLING_VERTICES) return q;
  const double area = mesh_surface_area(input);
  if (!(area > 0)) {
    q.from = XHD_QUERIES_NO_AREA;
    return q;
  }
  const uint64_t count = sample_count(input, options, area);
  uint32_t state[4];
  seed_state(seed, state);
  MetroPlan plan;
  uint64_t total = count;
  if (options.sampling == XHD_SAMPLING_METRO) {
    plan = plan_metro_samples(input, count, threads);
    total = plan.total();
  }
  check_count(double(total));
  // Samples of a double mesh are doubles, of a float32 one floats: the type of the truth they came from.
  const bool doubles = input.xyz64 != nullptr;
  q.samples = OwnedBuffer(3 * total * (doubles ? sizeof(double) : sizeof(float)));
  float* xyz = doubles ? nullptr : q.samples.as<float>();
  double* xyz64 = doubles ? q.samples.as<double>() : nullptr;
  if (options.sampling == XHD_SAMPLING_METRO) draw_metro_samples(input, plan, state, threads, xyz, xyz64);
  else sample_surface(input, count, state, threads, xyz, xyz64);
  q.from = XHD_QUERIES_SAMPLES;
  q.points = xhd_points{xyz, total, xyz64};
  return q;
}

}  // namespace xhd
