// The C ABI entry points of the CPU backend: validate, dispatch, and turn every C++ exception into a
// status code plus a last-error message, since nothing may unwind into the FFI caller.
#include <cmath>
#include <cstring>
#include <new>
#include <string>

#include "directed.h"
#include "last_error.h"
#include "parallel.h"
#include "xhd.h"

namespace {

// Squared distances of coordinates beyond this would overflow single precision.
constexpr float kMaxAbsCoordinate = 1e18f;

struct InvalidArgument : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check_points(const xhd_points* set, const char* name) {
  if (set == nullptr) throw InvalidArgument(std::string("point set ") + name + " is null");
  if (set->count == 0) throw InvalidArgument(std::string("point set ") + name + " is empty");
  if (set->xyz == nullptr) throw InvalidArgument(std::string("point set ") + name + " has no coordinates");
  if (set->count >= UINT32_MAX)
    throw InvalidArgument(std::string("point set ") + name + " has more than 4294967294 points");
  for (uint64_t i = 0; i < set->count * 3; ++i) {
    const float v = set->xyz[i];
    if (!(std::fabs(v) <= kMaxAbsCoordinate))
      throw InvalidArgument(std::string("point ") + std::to_string(i / 3) + " of set " + name +
                            (std::isfinite(v) ? " has a coordinate beyond +-1e18" : " has a non-finite coordinate"));
  }
}

void run_method(const xhd::HausdorffJob& job, int method, xhd_hausdorff_result& result) {
  if (method == XHD_METHOD_GRID) return xhd::grid_hausdorff(job, result);
  void (*directed)(const xhd::DirectedJob&, xhd_directed&) = nullptr;
  if (method == XHD_METHOD_EB) directed = xhd::directed_eb;
  if (method == XHD_METHOD_BRUTE) directed = xhd::directed_brute;
  if (directed == nullptr) throw InvalidArgument("unknown method " + std::to_string(method));
  if (job.directions & XHD_DIRECTION_AB) directed(job.direction_ab(), result.ab);
  if (job.directions & XHD_DIRECTION_BA) directed(job.direction_ba(), result.ba);
}

int32_t hausdorff(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                  xhd_hausdorff_result* result, xhd_progress* progress_slot) {
  if (options == nullptr || result == nullptr) throw InvalidArgument("options and result must not be null");
  std::memset(result, 0, sizeof(*result));
  result->ab.from_index = result->ab.to_index = XHD_NO_INDEX;
  result->ba.from_index = result->ba.to_index = XHD_NO_INDEX;
  const int directions = options->directions;
  if ((directions & (XHD_DIRECTION_AB | XHD_DIRECTION_BA)) == 0 || (directions & ~3) != 0)
    throw InvalidArgument("directions must be XHD_DIRECTION_AB, XHD_DIRECTION_BA or both");
  if (options->threads < 0) throw InvalidArgument("threads must be >= 0");
  if (!(options->cell_size >= 0.0) || !std::isfinite(options->cell_size))
    throw InvalidArgument("cell_size must be a finite number >= 0");
  check_points(a, "A");
  check_points(b, "B");

  const xhd::Progress progress(progress_slot);
  progress.set_total(((directions & XHD_DIRECTION_AB) ? a->count : 0) +
                     ((directions & XHD_DIRECTION_BA) ? b->count : 0));
  const xhd::HausdorffJob job{a->xyz, a->count, b->xyz, b->count, directions,
                              xhd::resolve_thread_count(options->threads), options->seed, options->cell_size, &progress};
  run_method(job, options->method, *result);
  return XHD_OK;
}

}  // namespace

extern "C" {

XHD_API int32_t xhd_abi_version(void) { return XHD_ABI_VERSION; }

XHD_API const char* xhd_backend_name(void) { return "cpu"; }

XHD_API int32_t xhd_hausdorff(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                              xhd_hausdorff_result* result, xhd_progress* progress) {
  try {
    const int32_t status = hausdorff(a, b, options, result, progress);
    xhd::clear_last_error();
    return status;
  } catch (const InvalidArgument& e) {
    xhd::set_last_error(e.what());
    return XHD_ERROR_INVALID_ARGUMENT;
  } catch (const xhd::Cancelled& e) {
    xhd::set_last_error(e.what());
    return XHD_ERROR_CANCELLED;
  } catch (const std::bad_alloc&) {
    xhd::set_last_error("out of memory");
    return XHD_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    xhd::set_last_error(std::string("internal error: ") + e.what());
    return XHD_ERROR_INTERNAL;
  } catch (...) {
    xhd::set_last_error("internal error: unknown exception");
    return XHD_ERROR_INTERNAL;
  }
}

}  // extern "C"
