// The C ABI's distance context, the same in every backend library: an engine and the device it lives on
// (-1 on the CPU), with the checks and timing around creating and querying it. Each library passes what
// differs: how to make its engine, and what to do before queries (make its device current).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
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

// One query: what xhd_distance_query does for each call; xhd_distance_query_many does the same checks for each
// pose (query_batch), and an engine answers a batch's poses as it answers single queries. before(context) runs
// after the checks, before the engine (e.g. to make the context's device current).
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

// A batch of n poses (at most the engine's batch_size()), each answered as query_one answers it: results cleared,
// each pose checked, the engine asked. A refused pose ends the batch: those before it are answered, then the
// refusal is thrown. `answered` counts the poses answered, also when the engine fails part-way.
template <class Before>
void query_batch(xhd_distance_context& context, const double* poses, uint64_t n, xhd_distance_result* results,
                 uint64_t& answered, Before& before) {
  answered = 0;
  uint64_t valid = 0;
  std::exception_ptr refused;
  for (; valid < n; ++valid) {
    reset_distance_result(results[valid]);
    try {
      check_pose(poses + 12 * valid);
    } catch (...) {
      refused = std::current_exception();
      break;
    }
  }
  if (valid > 0) {
    before(context);
    struct Devices {  // the answered poses name their device, also when the engine throws
      xhd_distance_result* results;
      const uint64_t& answered;
      int device;
      ~Devices() {
        for (uint64_t i = 0; i < answered; ++i) results[i].device = device;
      }
    } devices{results, answered, context.device};
    context.engine->query_many(poses, valid, results, answered);
  }
  if (refused) std::rethrow_exception(refused);
}

// n queries in order, each exactly query_one, in the engine's batches (one pose each on the CPU): progress counts
// the poses done, and the caller's cancel is honoured before each batch (a batch is never stopped halfway, so a
// context cancelled between batches stays as usable as after single queries). On any failure the poses before it
// are answered and counted.
template <class Before>
int32_t query_many_distance_context(xhd_distance_context* context, const double* poses, uint64_t n,
                                    xhd_distance_result* results, xhd_progress* progress_slot, Before before) {
  return guarded(progress_slot, [&] {
    if (context == nullptr) throw InvalidArgument("context must not be null");
    if (n > 0 && (poses == nullptr || results == nullptr)) throw InvalidArgument("poses and results must not be null");
    const Progress progress(progress_slot);
    progress.set_total(n);
    const uint64_t batch = std::max<uint64_t>(1, context->engine->batch_size());
    for (uint64_t i = 0; i < n;) {
      progress.check_cancel();
      uint64_t answered = 0;
      struct Counted {  // the poses answered, also those before a failure
        const Progress& progress;
        const uint64_t& answered;
        ~Counted() { progress.add(answered); }
      } counted{progress, answered};
      query_batch(*context, poses + 12 * i, std::min(batch, n - i), results + i, answered, before);
      i += answered;
    }
    return int32_t(XHD_OK);
  });
}

}  // namespace xhd
