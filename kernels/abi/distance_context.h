// The C ABI's distance context, the same in every backend library: an engine and the device it lives on
// (-1 on the CPU), with the checks and timing around creating and querying it. Each library passes what
// differs: how to make its engine, and what to do before queries (make its device current).
#pragma once

#include <chrono>
#include <memory>

#include "elapsed.h"
#include "../geometry/mesh_distance_common.h"
#include "../geometry/mesh_distance_engine.h"
#include "progress.h"
#include "status_guard.h"

struct xhd_distance_context {
  std::unique_ptr<xhd::MeshDistanceEngine> engine;
  int device = -1;
};

namespace xhd {

// make(options, progress) returns the engine (after any backend-specific refusal), reporting its build to
// progress and throwing Cancelled when the caller cancels; whatever it had built is freed as the exception
// unwinds, and *context stays null. device: where the engine lives, or -1.
template <class Make>
int32_t create_distance_context(const xhd_mesh* a, const xhd_mesh* b, const xhd_distance_options* options,
                                xhd_distance_context** context, double* build_ms, xhd_progress* progress_slot,
                                int device, Make make) {
  if (context != nullptr) *context = nullptr;
  return guarded(progress_slot, [&] {
    if (context == nullptr) throw InvalidArgument("context must not be null");
    check_distance_call(a, b, options);
    const Progress progress(progress_slot);
    progress.check_cancel();  // cancelled before it began: build nothing
    const auto start = std::chrono::steady_clock::now();
    auto made = std::make_unique<xhd_distance_context>();
    made->engine = make(*options, progress);
    made->device = device;
    if (build_ms != nullptr) *build_ms = elapsed_ms(start);
    *context = made.release();
    return int32_t(XHD_OK);
  });
}

// One query: what xhd_distance_query does for each call and xhd_distance_query_many for each pose, so the
// two cannot differ. before(context) runs after the checks, before the engine (e.g. to make the context's
// device current).
template <class Before>
void query_one(xhd_distance_context& context, const double* pose_b, xhd_distance_result& result, Before& before) {
  reset_distance_result(result);
  check_pose(pose_b);
  before(context);
  context.engine->query(pose_b, result);
  result.device = context.device;
}

template <class Before>
int32_t query_distance_context(xhd_distance_context* context, const double* pose_b, xhd_distance_result* result,
                               xhd_progress* progress_slot, Before before) {
  return guarded(progress_slot, [&] {
    if (context == nullptr || result == nullptr) throw InvalidArgument("context and result must not be null");
    query_one(*context, pose_b, *result, before);
    return int32_t(XHD_OK);
  });
}

// n queries in order, each exactly query_one: progress counts the poses done, and the caller's cancel is
// honoured before each pose (a pose is never stopped halfway, so a context cancelled between poses stays
// as usable as after single queries). On any failure the poses before it are answered and counted.
template <class Before>
int32_t query_many_distance_context(xhd_distance_context* context, const double* poses, uint64_t n,
                                    xhd_distance_result* results, xhd_progress* progress_slot, Before before) {
  return guarded(progress_slot, [&] {
    if (context == nullptr) throw InvalidArgument("context must not be null");
    if (n > 0 && (poses == nullptr || results == nullptr)) throw InvalidArgument("poses and results must not be null");
    const Progress progress(progress_slot);
    progress.set_total(n);
    for (uint64_t i = 0; i < n; ++i) {
      progress.check_cancel();
      query_one(*context, poses + 12 * i, results[i], before);
      progress.add(1);
    }
    return int32_t(XHD_OK);
  });
}

}  // namespace xhd
