// The X-HD nearest-neighbour search as OptiX programs (compiled to PTX at build time and embedded in
// libxhd_optix.so). Each target point is a custom primitive: an AABB of half-side r (a little more) around
// it, so a zero-length ray from a query meets the boxes of every target point within r. The intersection
// program computes the squared distance exactly as the grid search does (box_math.h dist2, no fused
// multiply-add) and applies the estimators per point: a distance within the pruning threshold of cmax
// drops the query (early break: the ray is terminated), anything no nearer than cmin is skipped. Hits are
// never reported otherwise, so traversal visits every box the ray is in. The ray generation program then
// finishes the query as the grid kernels do (query_state.cuh): a survivor and cmax candidate when its cmin is
// within r, a miss for the next, wider radius otherwise.
#include <optix.h>

#include "../search_params.h"

using namespace xhd;

// The launch parameters, as bytes: SearchParams' members have default initializers (FilterBounds,
// LooseGate), which a __constant__ variable may not have; optixLaunch copies the host's struct here.
extern "C" {
__constant__ __align__(16) unsigned char params[sizeof(SearchParams)];
}

namespace {

#define params (*reinterpret_cast<const SearchParams*>(::params))

// Payload words: 0 query slot, 1 cmin bits, 2 threshold bits, 3 distances computed, 4 state.
constexpr unsigned kRunning = 0, kDiscarded = 1, kAtZero = 2;
// The ray's interval is [0, kRayEnd]; the one hit ever reported (to stop the ray) lies strictly inside it.
constexpr float kRayEnd = 1e-16f, kHitT = 0.5e-16f;

__device__ __forceinline__ float refreshed_threshold() { return threshold_of(load_cmax(params.cmax), params.bounds); }

}  // namespace

extern "C" __global__ void __raygen__search() {
  const uint32_t i = params.first + optixGetLaunchIndex().x;
  if (i >= params.launch_count) return;
  const uint32_t slot = params.launch == SearchLaunch::kAgain ? params.worklist[i] : i;
  const float4 a = params.queries[slot];
  const uint32_t source_index = __float_as_uint(a.w);
  float cmin = params.launch == SearchLaunch::kAgain ? params.cmin[slot] : __int_as_float(0x7f800000);
  const float threshold = refreshed_threshold();
  // A resumed query's cmin is a computed distance to a target: if cmax has risen past it since, it is settled.
  if (!(cmin > threshold)) {
    atomicAdd(&params.counters[kSearchPruned], 1ull);
    return;
  }
  unsigned p0 = slot, p1 = __float_as_uint(cmin), p2 = __float_as_uint(threshold), p3 = 0, p4 = kRunning;
  // A (nearly) zero-length ray: it is inside exactly the boxes that contain the query point.
  optixTrace(params.handle, make_float3(a.x, a.y, a.z), make_float3(1.f, 0.f, 0.f), 0.f, kRayEnd, 0.f,
             OptixVisibilityMask(255),
             OPTIX_RAY_FLAG_TERMINATE_ON_FIRST_HIT | OPTIX_RAY_FLAG_DISABLE_ANYHIT | OPTIX_RAY_FLAG_DISABLE_CLOSESTHIT,
             0, 1, 0, p0, p1, p2, p3, p4);
  cmin = __uint_as_float(p1);
  if (p3 > 0) atomicAdd(&params.counters[kSearchEvals], static_cast<unsigned long long>(p3));
  if (p4 == kDiscarded) {
    atomicAdd(&params.counters[kSearchPruned], 1ull);
    return;
  }
  // Found within r (a zero ends the search too): every target point whose computed distance is within r
  // was seen, so cmin is the computed nearest distance. The same offer as the grid kernels'.
  if (p4 == kAtZero || cmin <= params.r2) {
    const float p[3] = {a.x, a.y, a.z};
    const bool raise = !params.loose.may_reach(p, params.bounds.upper(cmin));
    offer_result(params.cmax, params.survivors, cmin, source_index, true, raise);
    return;
  }
  params.cmin[slot] = cmin;
  const uint32_t at = static_cast<uint32_t>(atomicAdd(&params.counters[kSearchMisses], 1ull));
  params.misses[at] = slot;
}

extern "C" __global__ void __intersection__point() {
  if (optixGetPayload_4() != kRunning) return;  // settled: only a hit still to be honoured stops the ray
  const uint32_t slot = optixGetPayload_0();
  const float4 a = params.queries[slot];
  const float4 b = params.targets[optixGetPrimitiveIndex()];
  const float d2 = dist2(a.x, a.y, a.z, b.x, b.y, b.z);
  const uint32_t evals = optixGetPayload_3() + 1;
  optixSetPayload_3(evals);
  float cmin = __uint_as_float(optixGetPayload_1());
  if (!(d2 < cmin)) return;  // MinDist >= cmin: nothing to learn from this point
  cmin = d2;
  optixSetPayload_1(__float_as_uint(cmin));
  // cmax is one word every ray reads: re-read every 8th distance, a stale threshold only prunes less.
  float threshold = __uint_as_float(optixGetPayload_2());
  if ((evals & 7u) == 0) {
    threshold = refreshed_threshold();
    optixSetPayload_2(__float_as_uint(threshold));
  }
  unsigned state = kRunning;
  if (!(d2 > threshold)) {
    state = kDiscarded;  // MaxDist <= cmax: truly nearer than the query that set cmax, never the witness
  } else if (d2 == 0.f) {
    const float p[3] = {a.x, a.y, a.z};
    state = settled_at_zero(params.bounds, p, b, __float_as_uint(a.w)) ? kDiscarded : kAtZero;  // nothing lower
  }
  if (state != kRunning) {
    optixSetPayload_4(state);
    optixReportIntersection(kHitT, 0);  // early break: the ray stops at its first hit
  }
}

extern "C" __global__ void __miss__none() {}
