// The C ABI's distance context, the same in every backend library: an engine and the device it lives on
// (-1 on the CPU), with the checks and timing around creating and querying it. Each library passes what
// differs: how to make its engine, and what to do before a query (make its device current).
#pragma once

#include <chrono>
#include <memory>

#include "elapsed.h"
#include "mesh_distance_common.h"
#include "mesh_distance_engine.h"
#include "status_guard.h"

struct xhd_distance_context {
  std::unique_ptr<xhd::MeshDistanceEngine> engine;
  int device = -1;
};

namespace xhd {

// make(options) returns the engine (after any backend-specific refusal); device: where it lives, or -1.
template <class Make>
int32_t create_distance_context(const xhd_mesh* a, const xhd_mesh* b, const xhd_distance_options* options,
                                xhd_distance_context** context, double* build_ms, int device, Make make) {
  if (context != nullptr) *context = nullptr;
  return guarded([&] {
    if (context == nullptr) throw InvalidArgument("context must not be null");
    check_distance_call(a, b, options);
    const auto start = std::chrono::steady_clock::now();
    auto made = std::make_unique<xhd_distance_context>();
    made->engine = make(*options);
    made->device = device;
    if (build_ms != nullptr) *build_ms = elapsed_ms(start);
    *context = made.release();
    return int32_t(XHD_OK);
  });
}

// before(context) runs after the checks, before the engine (e.g. to make the context's device current).
template <class Before>
int32_t query_distance_context(xhd_distance_context* context, const double* pose_b, xhd_distance_result* result,
                               Before before) {
  return guarded([&] {
    if (context == nullptr || result == nullptr) throw InvalidArgument("context and result must not be null");
    reset_distance_result(*result);
    check_pose(pose_b);
    before(*context);
    context->engine->query(pose_b, *result);
    result->device = context->device;
    return int32_t(XHD_OK);
  });
}

}  // namespace xhd
