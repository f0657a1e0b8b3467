// The C ABI entry points of the CUDA backend: validate (shared with the CPU backend), pick the device,
// run, and turn every exception into a status code plus a last-error message.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "../abi/distance_context.h"
#include "../abi/host_phases.h"
#include "../abi/measured_distances.h"
#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "../geometry/island_compare.h"
#include "../geometry/surface_compare.h"
#include "../abi/progress.h"
#include "../abi/validate.h"
#include "backend_identity.h"
#include "cuda_check.h"
#include "device_session.h"
#include "distance_stats_gpu.h"
#include "hausdorff_gpu.h"
#include "placement.h"
#include "staged_upload.h"
#include "points_gpu.h"
#include "../abi/per_point.h"
#include "mesh_distance_gpu.h"
#include "surface_gpu.h"
#include "xhd.h"

namespace {

// Makes `device` current, or says why it cannot be.
void use_device(int device) {
  const int count = xhd::usable_device_count();
  if (device < 0 || device >= count)
    throw xhd::InvalidArgument("device " + std::to_string(device) + " does not exist (" + std::to_string(count) +
                               " CUDA device" + (count == 1 ? "" : "s") + " found)");
  XHD_CUDA(cudaSetDevice(device));
}

xhd::DirectedSearch search_on(int device) { return xhd::backend_directed_search(device); }

// Every point measured with its nearest kept over tiles of the target (points_gpu.h), the witnesses alone:
// those of xhd_hausdorff (per_point.h's rule). Where a resident target does not fit.
void hausdorff_in_tiles(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                        xhd_hausdorff_result* result, const xhd::Progress& progress, const xhd::Placement& placement,
                        xhd::PlacementReport& report) {
  xhd::check_hausdorff_call(a, b, options, result);  // clears what a failed attempt left
  const xhd_per_point none{};
  xhd::gpu_points_compare(*a, *b, *options, none, progress, *result, placement, report);
}

int32_t hausdorff_placed(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                         xhd_hausdorff_result* result, xhd_progress* progress_slot, const xhd::Placement& placement,
                         xhd::PlacementReport& report) {
  xhd::HostPhases phases("call");
  // The coordinates are checked in the framing's pass over them (frame_both), where every path below but the
  // tiles (which checks them itself) starts: a billion points a side are then read once for both. Without a GPU
  // to run the call they are checked here, so that a bad one is named before the missing GPU is, as the other
  // backends name it.
  int gpus = 0;
  const bool gpu_present = cudaGetDeviceCount(&gpus) == cudaSuccess && gpus > 0;
  if (!gpu_present) cudaGetLastError();
  xhd::check_hausdorff_call(a, b, options, result, /*scan_coordinates=*/!gpu_present);
  phases.mark("checks");
  if (options->method == XHD_METHOD_BRUTE)
    throw xhd::InvalidArgument("the brute method is the CPU reference implementation; use the CPU backend");
  xhd::check_devices(placement);
  use_device(placement.devices[0]);
  const xhd::Progress progress(progress_slot);
  const int directions = options->directions;
  progress.set_total(((directions & XHD_DIRECTION_AB) ? a->count : 0) +
                     ((directions & XHD_DIRECTION_BA) ? b->count : 0));
  const bool alone = placement.devices.size() == 1 && placement.memory_limit == 0;
  try {
    if (alone) {
      // The X-HD search is what the libraries built from these sources differ in (backend_identity.h); EB and
      // the rest are the CUDA backend's in every one of them.
      xhd::DirectedSearch search = xhd::grid_search();
      if (options->method != XHD_METHOD_EB) search = xhd::backend_directed_search(options->device);
      // Sets in islands far apart: an island at a time, each in a frame of its own (island_compare.h).
      const auto island = [&](const xhd_points& ia, const xhd_points& ib, const xhd_per_point&,
                              xhd_hausdorff_result& r, xhd_progress* p) {
        const xhd::Progress island_progress(p);
        island_progress.set_total(((directions & XHD_DIRECTION_AB) ? ia.count : 0) +
                                  ((directions & XHD_DIRECTION_BA) ? ib.count : 0));
        xhd::gpu_hausdorff(ia, ib, *options, island_progress, r, search);
      };
      if (!xhd::compare_by_islands(*a, *b, *options, nullptr, *result, progress_slot, island, !gpu_present, false))
        xhd::gpu_hausdorff(*a, *b, *options, progress, *result, search);
    } else if (options->method == XHD_METHOD_EB) {
      // EB has no split of its own: every point measured, which gives its answers (xhd.h).
      hausdorff_in_tiles(a, b, options, result, progress, placement, report);
    } else {
      xhd::gpu_hausdorff_split(*a, *b, *options, progress, *result, search_on, placement, report);
    }
  } catch (const xhd::OutOfMemory&) {  // DeviceMemoryShort, or a worker's, which work_split.h labels
    // A target too large for a worker's memory, or an allocation refused mid-run: the same answer from the
    // target in tiles, never a crash. A shortage there too is reported as such.
    progress.restart(((directions & XHD_DIRECTION_AB) ? a->count : 0) +
                     ((directions & XHD_DIRECTION_BA) ? b->count : 0));
    hausdorff_in_tiles(a, b, options, result, progress, placement, report);
  }
  return XHD_OK;
}

int32_t hausdorff(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                  xhd_hausdorff_result* result, xhd_progress* progress_slot) {
  if (options == nullptr) throw xhd::InvalidArgument("options and result must not be null");
  xhd::PlacementReport report;
  return hausdorff_placed(a, b, options, result, progress_slot, xhd::Placement{{options->device}, 0}, report);
}

// Without per-point outputs, xhd_hausdorff itself; with them, every point measured on the device (points_gpu.h).
int32_t points_compare(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                       const xhd_per_point* per_point, xhd_hausdorff_result* result, xhd_progress* progress_slot) {
  if (!xhd::wants_per_point(per_point)) return hausdorff(a, b, options, result, progress_slot);
  xhd::check_hausdorff_call(a, b, options, result);
  xhd::check_per_point(*per_point, options->directions);
  if (options->method == XHD_METHOD_BRUTE)
    throw xhd::InvalidArgument("the brute method is the CPU reference implementation; use the CPU backend");
  use_device(options->device);
  const xhd::Placement one{{options->device}, 0};
  xhd::PlacementReport report;
  const auto island = [&](const xhd_points& ia, const xhd_points& ib, const xhd_per_point& outputs,
                          xhd_hausdorff_result& r, xhd_progress* p) {
    xhd::gpu_points_compare(ia, ib, *options, outputs, xhd::Progress(p), r, one, report);
  };
  if (!xhd::compare_by_islands(*a, *b, *options, per_point, *result, progress_slot, island, true, false))
    xhd::gpu_points_compare(*a, *b, *options, *per_point, xhd::Progress(progress_slot), *result, one, report);
  return XHD_OK;
}

// The search with its distances kept on the device, where the statistics are then computed (points_gpu.h's
// KeptDistances): nothing comes back but what per_point asks for and the statistics. Distances that would take
// more than an eighth of the device's memory are not kept (the statistics hold them, three sorted copies with the
// pooled percentile and a sort's scratch: four times as much), nor more than a percentile's sort takes (2^31 - 1):
// they come back and are summed up on the host, with the same bits.
int32_t points_compare_stats(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                             const xhd_per_point* per_point, const xhd_distance_stats_options* stats_options,
                             xhd_distance_stats_result* stats, xhd_hausdorff_result* result,
                             xhd_progress* progress_slot) {
  xhd::check_hausdorff_call(a, b, options, result);
  const xhd::MeasuredDistances measured(*a, *b, *options, per_point, stats_options, stats);
  if (options->method == XHD_METHOD_BRUTE)
    throw xhd::InvalidArgument("the brute method is the CPU reference implementation; use the CPU backend");
  use_device(options->device);
  const xhd::Progress progress(progress_slot);
  xhd::PlacementReport report;
  const xhd::Placement one{{options->device}, 0};
  const uint64_t n_ab = measured.n_ab, n_ba = measured.n_ba;
  // Sets in islands far apart: an island at a time (island_compare.h), the distances summed up on the host, which
  // gives the device's statistics bit for bit.
  const auto island = [&](const xhd_points& ia, const xhd_points& ib, const xhd_per_point& outputs,
                          xhd_hausdorff_result& r, xhd_progress* p) {
    xhd::gpu_points_compare(ia, ib, *options, outputs, xhd::Progress(p), r, one, report);
  };
  if (xhd::compare_by_islands(*a, *b, *options, &measured.outputs, *result, progress_slot, island, true, false)) {
    xhd::host_distance_stats(measured.outputs.distance_ab, n_ab, measured.outputs.distance_ba, n_ba, *stats_options,
                             xhd::resolve_thread_count(options->threads), *stats);
    return XHD_OK;
  }
  std::unique_ptr<xhd::GpuStats> on_device;
  xhd::KeptDistances kept;
  const uint64_t n = n_ab + n_ba;
  if (n <= uint64_t(INT32_MAX) && 8 * n <= xhd::device_memory_budget(options->device) / 8) {
    on_device = std::make_unique<xhd::GpuStats>(options->device);
    double* all = on_device->reserve(n_ab, n_ba);
    kept.device[0] = n_ab > 0 ? all : nullptr;
    kept.device[1] = n_ba > 0 ? all + n_ab : nullptr;
    kept.returned[0] = measured.returned_ab;
    kept.returned[1] = measured.returned_ba;
  }
  xhd::HostPhases phases("points+stats");
  try {
    xhd::gpu_points_compare(*a, *b, *options, measured.outputs, progress, *result, one, report,
                            on_device ? &kept : nullptr);
  } catch (...) {
    // A search that failed between its launches and its wait may still have kernels writing into the kept
    // array, which the statistics' stream would free unordered with them: wait for the device first.
    if (on_device) cudaDeviceSynchronize();
    throw;
  }
  if (on_device) result->peak_device_bytes += 8 * n;  // the kept array, beside the search's own peak
  phases.mark(on_device ? "search, distances kept" : "search, distances back");
  const double* host[2] = {measured.outputs.distance_ab, measured.outputs.distance_ba};
  if (on_device) {
    const uint64_t first[2] = {0, n_ab}, count[2] = {n_ab, n_ba};
    for (int side = 0; side < 2; ++side) {
      if (kept.whole_on_host[side]) on_device->upload(first[side], host[side], count[side]);
      else on_device->patch(first[side], kept.settled[side].index.data(), kept.settled[side].value.data(),
                            kept.settled[side].index.size());
    }
    phases.mark(kept.whole_on_host[0] || kept.whole_on_host[1] ? "tiled distances up" : "host-settled patched");
    on_device->compute(*stats_options, *stats);
    stats->device = options->device;
    stats->threads = 1;
  } else {
    // Back on the host already, and the device may have no room for them and their sorted copies (device stays
    // -1, as check_stats_request left it: they were not summed up on a GPU).
    xhd::host_distance_stats(host[0], n_ab, host[1], n_ba, *stats_options, xhd::resolve_thread_count(options->threads),
                             *stats);
  }
  phases.mark(on_device ? "statistics on the device" : "statistics on the host");
  return XHD_OK;
}

// On the placement's workers (work_split.h), the memory limit bounding each.
int32_t points_compare_placed(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                              xhd_placement* placement, const xhd_per_point* per_point, xhd_hausdorff_result* result,
                              xhd_progress* progress_slot) {
  if (options == nullptr || result == nullptr) throw xhd::InvalidArgument("options and result must not be null");
  const xhd::Placement where{xhd::placement_devices(placement, options->device),
                             placement != nullptr ? placement->memory_limit : 0};
  xhd::PlacementReport report;
  if (!xhd::wants_per_point(per_point)) {
    hausdorff_placed(a, b, options, result, progress_slot, where, report);
  } else {
    xhd::check_hausdorff_call(a, b, options, result);
    xhd::check_per_point(*per_point, options->directions);
    if (options->method == XHD_METHOD_BRUTE)
      throw xhd::InvalidArgument("the brute method is the CPU reference implementation; use the CPU backend");
    xhd::check_devices(where);
    use_device(where.devices[0]);
    const xhd::Progress progress(progress_slot);
    xhd::gpu_points_compare(*a, *b, *options, *per_point, progress, *result, where, report);
  }
  if (placement != nullptr) {
    placement->target_tiles = report.target_tiles;
    placement->workers = report.workers;
    placement->spatial_directions = report.spatial_directions;
  }
  return XHD_OK;
}

int32_t point_surface_distance(const xhd_points* points, const xhd_mesh* mesh, const xhd_surface_options* options,
                               double* distance, uint32_t* nearest_triangle, double* closest,
                               xhd_surface_result* result, xhd_progress* progress_slot) {
  xhd::check_surface_call(points, mesh, options, result);
  if (options->method == XHD_SURFACE_BRUTE)
    throw xhd::InvalidArgument("the brute surface method is the CPU reference implementation; use the CPU backend");
  use_device(options->device);
  const xhd::Progress progress(progress_slot);
  progress.set_total(points->count);
  xhd::gpu_point_surface_distance(*points, *mesh, *options, progress, distance, nearest_triangle, closest, *result);
  return XHD_OK;
}

// A surface compare through the GPU search: each direction's distances alone, on the device, one direction at a
// time while the host samples. The device is made current on every thread that measures (it is per thread).
int32_t surface_compare(const xhd_mesh* a, const xhd_mesh* b, const xhd_surface_compare_options* options,
                        xhd_surface_compare_result* result, xhd_progress* progress) {
  if (options != nullptr && options->method == XHD_SURFACE_BRUTE)
    throw xhd::InvalidArgument("the brute surface method is the CPU reference implementation; use the CPU backend");
  if (options != nullptr) use_device(options->device);
  const xhd_surface_options search{options != nullptr ? options->method : XHD_SURFACE_GRID,
                                   options != nullptr ? options->threads : 0, options != nullptr ? options->device : 0,
                                   0};
  const xhd::SurfaceBackend gpu{[search](const xhd::SurfaceMeasureJob& m, xhd_surface_result& r) {
                                  use_device(search.device);
                                  xhd::gpu_point_surface_distance(m.queries, *m.target, search, *m.progress, m.distance,
                                                                  nullptr, nullptr, r);
                                },
                                false};
  xhd::surface_compare(a, b, options, result, progress, gpu);
  return XHD_OK;
}

}  // namespace

extern "C" {

XHD_API int32_t xhd_abi_version(void) { return XHD_ABI_VERSION; }

XHD_API int32_t xhd_host_pin(const void* memory, uint64_t bytes) {
  return xhd::guarded([&]() -> int32_t {
    xhd::pin_host_memory(memory, bytes);
    return XHD_OK;
  });
}

XHD_API void xhd_host_unpin(const void* memory) { xhd::unpin_host_memory(memory); }

XHD_API const char* xhd_backend_name(void) { return xhd::backend_name(); }

// Devices alone: the optional host-side entries are exported as unavailable (absent_entries.cpp) and the
// brute-force references are refused, both being the CPU library's.
XHD_API uint64_t xhd_capabilities(void) { return XHD_CAP_DEVICES; }

XHD_API int32_t xhd_device_count(void) {
  int32_t count = 0;
  xhd::guarded([&] {
    count = xhd::usable_device_count();
    return XHD_OK;
  });
  return count;
}

XHD_API int32_t xhd_device_info_get(int32_t ordinal, xhd_device_info* info) {
  return xhd::guarded([&] {
    if (info == nullptr) throw xhd::InvalidArgument("info must not be null");
    const int count = xhd::usable_device_count();
    if (ordinal < 0 || ordinal >= count) throw xhd::InvalidArgument("no CUDA device " + std::to_string(ordinal));
    std::memset(info, 0, sizeof(*info));
    cudaDeviceProp prop{};
    XHD_CUDA(cudaGetDeviceProperties(&prop, ordinal));
    std::snprintf(info->name, sizeof(info->name), "%s", prop.name);
    info->ordinal = ordinal;
    info->compute_major = prop.major;
    info->compute_minor = prop.minor;
    info->multiprocessors = prop.multiProcessorCount;
    info->total_memory = prop.totalGlobalMem;
    XHD_CUDA(cudaSetDevice(ordinal));
    size_t free_bytes = 0, total_bytes = 0;
    XHD_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    info->free_memory = free_bytes;
    XHD_CUDA(cudaDriverGetVersion(&info->driver_version));
    XHD_CUDA(cudaRuntimeGetVersion(&info->runtime_version));
    return XHD_OK;
  });
}

XHD_API int32_t xhd_hausdorff(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                              xhd_hausdorff_result* result, xhd_progress* progress) {
  return xhd::guarded(progress, [&] { return hausdorff(a, b, options, result, progress); });
}

XHD_API int32_t xhd_points_compare(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                                   const xhd_per_point* per_point, xhd_hausdorff_result* result,
                                   xhd_progress* progress) {
  return xhd::guarded(progress, [&] { return points_compare(a, b, options, per_point, result, progress); });
}

XHD_API int32_t xhd_points_compare_stats(const xhd_points* a, const xhd_points* b, const xhd_hausdorff_options* options,
                                         const xhd_per_point* per_point,
                                         const xhd_distance_stats_options* stats_options,
                                         xhd_distance_stats_result* stats, xhd_hausdorff_result* result,
                                         xhd_progress* progress) {
  return xhd::guarded(progress, [&] {
    return points_compare_stats(a, b, options, per_point, stats_options, stats, result, progress);
  });
}

XHD_API int32_t xhd_points_compare_placed(const xhd_points* a, const xhd_points* b,
                                          const xhd_hausdorff_options* options, xhd_placement* placement,
                                          const xhd_per_point* per_point, xhd_hausdorff_result* result,
                                          xhd_progress* progress) {
  return xhd::guarded(progress,
                      [&] { return points_compare_placed(a, b, options, placement, per_point, result, progress); });
}

XHD_API int32_t xhd_point_surface_distance(const xhd_points* points, const xhd_mesh* mesh,
                                           const xhd_surface_options* options, double* distance,
                                           uint32_t* nearest_triangle, double* closest, xhd_surface_result* result,
                                           xhd_progress* progress) {
  return xhd::guarded(progress, [&] {
    return point_surface_distance(points, mesh, options, distance, nearest_triangle, closest, result, progress);
  });
}

XHD_API int32_t xhd_surface_compare(const xhd_mesh* a, const xhd_mesh* b, const xhd_surface_compare_options* options,
                                    xhd_surface_compare_result* result, xhd_progress* progress) {
  return xhd::guarded(progress, [&] { return surface_compare(a, b, options, result, progress); });
}

XHD_API int32_t xhd_distance_context_create(const xhd_mesh* a, const xhd_mesh* b, const xhd_distance_options* options,
                                            xhd_distance_context** context, double* build_ms, xhd_progress* progress) {
  const int device = options != nullptr ? options->device : 0;
  return xhd::create_distance_context(
      a, b, options, context, build_ms, progress, device, [&](const xhd_distance_options& o, const xhd::Progress& p) {
        if (o.method == XHD_DISTANCE_BRUTE)
          throw xhd::InvalidArgument(
              "the brute distance method is the CPU reference implementation; use the CPU backend");
        if (o.which & (XHD_DISTANCE_CONTACTS | XHD_DISTANCE_PENETRATION))
          throw xhd::InvalidArgument(
              "contact pairs and bounds, and penetration facts, are computed by the CPU backend only; use the CPU "
              "backend");
        use_device(o.device);
        return xhd::make_gpu_mesh_distance(*a, *b, o, p);
      });
}

XHD_API int32_t xhd_distance_query(xhd_distance_context* context, const double* pose_b, xhd_distance_result* result,
                                   xhd_progress* progress) {
  return xhd::query_distance_context(context, pose_b, result, progress,
                                     [](xhd_distance_context& c) { use_device(c.device); });
}

// The same loop as the CPU library's (distance_context.h): each pose is exactly one xhd_distance_query.
XHD_API int32_t xhd_distance_query_many(xhd_distance_context* context, const double* poses, uint64_t n,
                                        xhd_distance_result* results, xhd_progress* progress) {
  return xhd::query_many_distance_context(context, poses, n, results, progress,
                                          [](xhd_distance_context& c) { use_device(c.device); });
}

XHD_API void xhd_distance_context_destroy(xhd_distance_context* context) {
  if (context == nullptr) return;
  cudaSetDevice(context->device);  // free on the device that holds it
  delete context;
}

}  // extern "C"
