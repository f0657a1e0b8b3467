// The X-HD nearest-neighbour search as OptiX programs (compiled to PTX at build time and embedded in
// libxhd_optix.so). Each primitive is a run of sorted target points (target_chunks.h): an AABB of the run's
// MBR widened by r (a little more), so a zero-length ray from a query meets the boxes of every run holding a
// target point within r. The intersection program applies the estimators to the run's MBR (MinDist >= cmin
// skips it, MaxDist within the pruning threshold of cmax drops the query), then computes each point's
// squared distance exactly as the grid search does (box_math.h dist2, no fused multiply-add): one within
// the threshold drops the query (early break: the ray is terminated), one no nearer than cmin is skipped.
// Hits are never reported otherwise, so traversal visits every box the ray is in. The ray generation
// program then finishes the query as the grid kernels do (query_state.cuh): a survivor and cmax candidate
// when its cmin is within r, a miss for the next, wider radius otherwise.
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

// Payload words: 0 query slot, 1 cmin bits, 2 threshold bits, 3 distances computed, 4 state, 5 runs visited.
constexpr unsigned kRunning = 0, kDiscarded = 1, kAtZero = 2;
// The ray's interval is [0, kRayEnd]; the one hit ever reported (to stop the ray) lies strictly inside it.
constexpr float kRayEnd = 1e-16f, kHitT = 0.5e-16f;

__device__ __forceinline__ float refreshed_threshold() { return threshold_of(load_cmax(params.cmax), params.bounds); }

// What a new smallest distance d2 from query q (original index `source`) to target b settles: within the
// threshold the query is truly nearer than the query that set cmax, never the witness (discarded); at zero
// nothing lower exists (settled_at_zero says whether it is set aside); otherwise the search goes on.
__device__ __forceinline__ unsigned state_after(float d2, float threshold, const float q[3], const float4& b,
                                                uint32_t source) {
  if (!(d2 > threshold)) return kDiscarded;
  if (d2 == 0.f) return settled_at_zero(params.bounds, q, b, source) ? kDiscarded : kAtZero;
  return kRunning;
}

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
  unsigned p0 = slot, p1 = __float_as_uint(cmin), p2 = __float_as_uint(threshold), p3 = 0, p4 = kRunning, p5 = 0;
  if (params.primitive == SearchPrimitive::kChunks) {
    // A (nearly) zero-length ray: it is inside exactly the boxes that contain the query point.
    optixTrace(params.handle, make_float3(a.x, a.y, a.z), make_float3(1.f, 0.f, 0.f), 0.f, kRayEnd, 0.f,
               OptixVisibilityMask(255),
               OPTIX_RAY_FLAG_TERMINATE_ON_FIRST_HIT | OPTIX_RAY_FLAG_DISABLE_ANYHIT | OPTIX_RAY_FLAG_DISABLE_CLOSESTHIT,
               0, 1, 0, p0, p1, p2, p3, p4, p5);
  } else {
    // OptiX's sphere intersector reports no hit for a ray that starts inside a sphere (measured: such rays
    // found none of the spheres holding their query). So the ray starts outside every sphere that holds the
    // query, at least 2.01 radii before it on x (rounded down: further), and runs up to the query (rounded
    // up: past it): it enters each such sphere on the way. The spheres it merely crosses cost a distance each.
    const float start = __fsub_rd(a.x, params.sphere_radius * 2.01f);
    const float length = __fmul_ru(__fsub_ru(a.x, start), 1.001f);
    optixTrace(params.handle, make_float3(start, a.y, a.z), make_float3(1.f, 0.f, 0.f), 0.f, length, 0.f,
               OptixVisibilityMask(255), OPTIX_RAY_FLAG_DISABLE_CLOSESTHIT, 1, 1, 0, p0, p1, p2, p3, p4, p5);
  }
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

extern "C" __global__ void __intersection__chunk() {
  if (optixGetPayload_4() != kRunning) return;  // settled: only a hit still to be honoured stops the ray
  const uint32_t slot = optixGetPayload_0();
  const float4 a = params.queries[slot];
  const float q[3] = {a.x, a.y, a.z};
  const uint32_t chunk = optixGetPrimitiveIndex();
  const Box box = params.chunk_mbrs[chunk];
  float cmin = __uint_as_float(optixGetPayload_1());
  // MinDist of the run's MBR is at most every computed distance of its points (the same float operations,
  // each monotone): a run no nearer than cmin, or wholly beyond this radius, has nothing to teach. A point
  // beyond r is never needed: a query is settled at r only by what lies within r, and a later, wider
  // launch meets this run again.
  const float near2 = min_dist2(q, box);
  if (!(near2 < cmin) || near2 > params.r2) return;
  uint32_t evals = optixGetPayload_3();
  float threshold = __uint_as_float(optixGetPayload_2());
  // cmax is one word every ray reads: re-read at every 8th run visited; a stale threshold only prunes less.
  const uint32_t visits = optixGetPayload_5() + 1;
  optixSetPayload_5(visits);
  if ((visits & 7u) == 0) {
    threshold = refreshed_threshold();
    optixSetPayload_2(__float_as_uint(threshold));
  }
  unsigned state = kRunning;
  // MaxDist within the threshold: some point of the run is truly nearer than the query that set cmax, so
  // this query is never the witness (the grid's case 1).
  if (!(max_dist2(q, box) > threshold)) state = kDiscarded;
  const uint32_t begin = chunk * params.chunk;
  const uint32_t end = min(params.target_count, begin + params.chunk);
  for (uint32_t i = begin; state == kRunning && i < end; ++i) {
    const float4 b = params.targets[i];
    const float d2 = dist2(a.x, a.y, a.z, b.x, b.y, b.z);
    ++evals;
    if (!(d2 < cmin)) continue;
    cmin = d2;
    state = state_after(d2, threshold, q, b, __float_as_uint(a.w));
  }
  optixSetPayload_1(__float_as_uint(cmin));
  optixSetPayload_3(evals);
  if (state != kRunning) {
    optixSetPayload_4(state);
    optixReportIntersection(kHitT, 0);  // early break: the ray stops at its first hit
  }
}

// One target point met as a built-in sphere: its distance, and the same estimators as a run's points.
extern "C" __global__ void __anyhit__sphere() {
  const uint32_t slot = optixGetPayload_0();
  const float4 a = params.queries[slot];
  const float4 b = params.targets[optixGetPrimitiveIndex()];
  const float d2 = dist2(a.x, a.y, a.z, b.x, b.y, b.z);
  const uint32_t evals = optixGetPayload_3() + 1;
  optixSetPayload_3(evals);
  const float cmin = __uint_as_float(optixGetPayload_1());
  if (!(d2 < cmin)) {
    optixIgnoreIntersection();  // MinDist >= cmin: nothing to learn; traversal goes on
    return;
  }
  optixSetPayload_1(__float_as_uint(d2));
  // cmax is one word every ray reads: re-read every 8th distance, a stale threshold only prunes less.
  float threshold = __uint_as_float(optixGetPayload_2());
  if ((evals & 7u) == 0) {
    threshold = refreshed_threshold();
    optixSetPayload_2(__float_as_uint(threshold));
  }
  const float q[3] = {a.x, a.y, a.z};
  const unsigned state = state_after(d2, threshold, q, b, __float_as_uint(a.w));
  if (state == kRunning) {
    optixIgnoreIntersection();
    return;
  }
  optixSetPayload_4(state);
  optixTerminateRay();  // early break
}

extern "C" __global__ void __miss__none() {}
