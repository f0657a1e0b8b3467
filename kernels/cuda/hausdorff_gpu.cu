#include "hausdorff_gpu.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "cost_model.h"
#include "device_grid.h"
#include "device_session.h"
#include "eb_directed.h"
#include "witness.h"
#include "xhd_directed.h"

namespace xhd {
namespace {

// Device bytes per query point of the X-HD search state (cmin, two worklists, heavy list, flag) and
// the fixed WL_Heavy.
uint64_t query_state_bytes(uint64_t n) { return 17 * n + 8ull * std::min<uint64_t>(std::max<uint64_t>(n, 65536), 1u << 22) + (1u << 20); }

uint64_t max_cells_for(uint64_t n) { return std::min<uint64_t>(std::max<uint64_t>(4 * n, 4096), 1u << 27); }

// Everything one resident set costs while its grid is built: the raw upload plus the grid.
uint64_t resident_set_bytes(uint64_t n) { return 12 * n + grid_build_bytes(n, max_cells_for(n)); }

std::string gib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f GiB", bytes / 1073741824.0);
  return text;
}

struct Timings {
  double upload = 0, download = 0;
};

// One set's points on the device, raw and interleaved.
DeviceArray<float> upload(DeviceMemory& memory, const float* xyz, uint64_t first, uint64_t count, cudaStream_t stream,
                          Timings& t) {
  EventTimer timer(stream);
  DeviceArray<float> raw(memory, 3 * count);
  timer.start();
  XHD_CUDA(cudaMemcpyAsync(raw.get(), xyz + 3 * first, 12 * count, cudaMemcpyHostToDevice, stream));
  t.upload += timer.stop();
  return raw;
}

// Fills a directed result from the packed cmax word: the witness source point, its nearest target
// point in double precision, and the distance between them.
void finish(unsigned long long* device_cmax, const xhd_points& source, const float4* targets, uint32_t target_count,
            DeviceMemory& memory, cudaStream_t stream, Timings& t, xhd_directed& out) {
  EventTimer timer(stream);
  timer.start();
  unsigned long long word = 0;
  XHD_CUDA(cudaMemcpyAsync(&word, device_cmax, sizeof(word), cudaMemcpyDeviceToHost, stream));
  t.download += timer.stop();
  if (word == 0) throw std::runtime_error("no query reached the result");
  const uint32_t from = 0xffffffffu - static_cast<uint32_t>(word & 0xffffffffu);
  const Nearest nearest = nearest_in_double(memory, targets, target_count, source.xyz + 3ull * from, stream);
  out.from_index = from;
  out.to_index = nearest.index;
  out.distance = nearest.distance;
}

void describe_grid(const DeviceGrid& g, xhd_directed& out) {
  float side = 0.f;
  for (int i = 0; i < 3; ++i) {
    out.grid_dims[i] = 1u << g.frame.bits[i];
    if (g.frame.bits[i] > 0) side = std::max(side, g.frame.cell[i]);
  }
  out.cell_size = side;
}

class GpuRun {
 public:
  GpuRun(const xhd_points& a, const xhd_points& b, const xhd_hausdorff_options& o, const Progress& progress,
         xhd_hausdorff_result& result)
      : a_(a), b_(b), options_(o), progress_(progress), result_(result), memory_(device_memory_budget(o.device), stream_.get()) {
    cost_ = measure_cost_model(memory_, o.device, stream_.get());
  }

  void run() {
    if (options_.method == XHD_METHOD_EB) {
      run_eb();
    } else {
      const bool both = (options_.directions & XHD_DIRECTION_AB) && (options_.directions & XHD_DIRECTION_BA);
      const uint64_t together = resident_set_bytes(a_.count) + resident_set_bytes(b_.count) +
                                query_state_bytes(std::max(a_.count, b_.count));
      if (together <= memory_.budget()) {
        run_grid_resident(both);
      } else {
        if (options_.directions & XHD_DIRECTION_AB) run_grid_chunked(a_, b_, result_.ab);
        if (options_.directions & XHD_DIRECTION_BA) run_grid_chunked(b_, a_, result_.ba);
      }
    }
    result_.upload_ms = timings_.upload;
    result_.download_ms = timings_.download;
    result_.peak_device_bytes = memory_.peak();
    result_.device = options_.device;
  }

 private:
  GridPlan plan_for(double radius) const { return GridPlan{cost_.ratio(), radius, options_.cell_size}; }

  // Surveys and sorts one set into its grid; `radius` is r0 of the direction it indexes (0 if none).
  DeviceGrid survey_and_build(const float* raw, uint32_t n, uint32_t base, double radius, double& ms) {
    EventTimer timer(stream_.get());
    timer.start();
    const GridInput input = survey_points(memory_, raw, n, base, stream_.get());
    DeviceGrid g = build_device_grid(memory_, input, plan_for(radius), stream_.get());
    ms += timer.stop();
    return g;
  }

  void query(const DeviceGrid& target, const float4* queries, uint32_t count, const Box& source_bounds,
             unsigned long long* cmax, xhd_directed& out) {
    EventTimer timer(stream_.get());
    timer.start();
    const DirectedStats s = run_directed_xhd(memory_, DirectedRun{&target, queries, count, source_bounds, cmax, &progress_},
                                             stream_.get());
    out.query_ms += timer.stop();
    out.distance_evals += s.distance_evals;
    out.pruned_queries += s.pruned_queries;
    out.fallback_queries += s.radius_queries;
  }

  void finish_timed(unsigned long long* cmax, const xhd_points& source, const float4* targets, uint32_t count,
                    xhd_directed& out) {
    EventTimer timer(stream_.get());
    timer.start();
    finish(cmax, source, targets, count, memory_, stream_.get(), timings_, out);
    out.query_ms += timer.stop();
  }

  DeviceArray<unsigned long long> fresh_cmax() {
    DeviceArray<unsigned long long> cmax(memory_, 1);
    XHD_CUDA(cudaMemsetAsync(cmax.get(), 0, sizeof(unsigned long long), stream_.get()));
    return cmax;
  }

  // Both sets fit: each set's grid is the index of one direction and the query order of the other.
  // The two grids are built as one pipeline (both surveys in a row, then B's sizing on the host while
  // A's grid sorts on the device), so each direction of a symmetric run is charged half of it.
  void run_grid_resident(bool both) {
    const uint32_t na = static_cast<uint32_t>(a_.count), nb = static_cast<uint32_t>(b_.count);
    double build_ms = 0;
    DeviceGrid grid_a, grid_b;
    {
      DeviceArray<float> raw_a = upload(memory_, a_.xyz, 0, na, stream_.get(), timings_);
      DeviceArray<float> raw_b = upload(memory_, b_.xyz, 0, nb, stream_.get(), timings_);
      EventTimer timer(stream_.get());
      timer.start();
      const GridInput in_a = survey_points(memory_, raw_a.get(), na, 0, stream_.get());
      const GridInput in_b = survey_points(memory_, raw_b.get(), nb, 0, stream_.get());
      grid_a = build_device_grid(memory_, in_a, plan_for(directed_lower_bound(in_b.bounds, in_a.bounds)), stream_.get());
      raw_a.reset();  // a stream-ordered free: after grid A's sort has read it
      grid_b = build_device_grid(memory_, in_b, plan_for(directed_lower_bound(in_a.bounds, in_b.bounds)), stream_.get());
      build_ms = timer.stop();
    }
    auto direction = [&](const DeviceGrid& index, const DeviceGrid& queries, const xhd_points& source, xhd_directed& out) {
      out.build_ms = both ? build_ms / 2 : build_ms;
      describe_grid(index, out);
      DeviceArray<unsigned long long> cmax = fresh_cmax();
      query(index, queries.points.get(), queries.count, queries.bounds, cmax.get(), out);
      finish_timed(cmax.get(), source, index.points.get(), index.count, out);
    };
    if (options_.directions & XHD_DIRECTION_AB) direction(grid_b, grid_a, a_, result_.ab);
    if (options_.directions & XHD_DIRECTION_BA) direction(grid_a, grid_b, b_, result_.ba);
  }

  // The source does not fit beside the target: the target's grid stays resident and the source comes
  // in chunks, each put in Morton order by a grid of its own.
  void run_grid_chunked(const xhd_points& source, const xhd_points& target, xhd_directed& out) {
    const uint32_t nt = static_cast<uint32_t>(target.count);
    const uint64_t target_bytes = resident_set_bytes(nt);
    const uint64_t per_query = 12 + 16 + 8 + 8 + 24 * 4 + 17 + 8;  // raw, grid, keys, cells, nodes, state
    const uint64_t fixed = (8ull << 16) + (4u << 20);  // WL_Heavy's floor and scratch
    if (target_bytes + fixed + 1024 * per_query > memory_.budget())
      throw DeviceMemoryShort("the target set of " + std::to_string(nt) + " points needs about " +
                              gib(target_bytes + fixed + 1024 * per_query) + " of GPU memory; " +
                              gib(memory_.budget()) + " is available");
    double build_ms = 0;
    DeviceGrid grid;
    {
      DeviceArray<float> raw = upload(memory_, target.xyz, 0, nt, stream_.get(), timings_);
      grid = survey_and_build(raw.get(), nt, 0, 0.0, build_ms);
    }
    describe_grid(grid, out);
    const uint64_t chunk = std::min<uint64_t>(source.count, (memory_.budget() - memory_.in_use() - fixed) / per_query);
    DeviceArray<unsigned long long> cmax = fresh_cmax();
    for (uint64_t first = 0; first < source.count; first += chunk) {
      const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(chunk, source.count - first));
      DeviceGrid order;
      {
        DeviceArray<float> raw = upload(memory_, source.xyz, first, n, stream_.get(), timings_);
        order = survey_and_build(raw.get(), n, static_cast<uint32_t>(first), 0.0, build_ms);
      }
      query(grid, order.points.get(), n, order.bounds, cmax.get(), out);
      ++chunks_;
    }
    result_.query_chunks = std::max(result_.query_chunks, chunks_);
    chunks_ = 0;
    out.build_ms = build_ms;
    finish_timed(cmax.get(), source, grid.points.get(), nt, out);
  }

  void run_eb() {
    const uint32_t na = static_cast<uint32_t>(a_.count), nb = static_cast<uint32_t>(b_.count);
    double prep = 0;
    DeviceArray<float4> sa, sb;
    {
      EventTimer timer(stream_.get());
      DeviceArray<float> raw_a = upload(memory_, a_.xyz, 0, na, stream_.get(), timings_);
      timer.start();
      sa = shuffled_points(memory_, raw_a.get(), na, options_.seed, stream_.get());
      prep += timer.stop();
      raw_a.reset();
      DeviceArray<float> raw_b = upload(memory_, b_.xyz, 0, nb, stream_.get(), timings_);
      timer.start();
      sb = shuffled_points(memory_, raw_b.get(), nb, options_.seed ^ 0x9e3779b97f4a7c15ull, stream_.get());
      prep += timer.stop();
    }
    auto direction = [&](const float4* queries, uint32_t nq, const float4* targets, uint32_t nt,
                         const xhd_points& source, xhd_directed& out) {
      out.build_ms = prep;
      DeviceArray<unsigned long long> cmax = fresh_cmax();
      EventTimer timer(stream_.get());
      timer.start();
      out.distance_evals = run_directed_eb(memory_, queries, nq, targets, nt, cmax.get(), &progress_, stream_.get());
      out.query_ms += timer.stop();
      finish_timed(cmax.get(), source, targets, nt, out);
    };
    if (options_.directions & XHD_DIRECTION_AB) direction(sa.get(), na, sb.get(), nb, a_, result_.ab);
    if (options_.directions & XHD_DIRECTION_BA) direction(sb.get(), nb, sa.get(), na, b_, result_.ba);
  }

  const xhd_points& a_;
  const xhd_points& b_;
  const xhd_hausdorff_options& options_;
  const Progress& progress_;
  xhd_hausdorff_result& result_;
  Stream stream_;
  DeviceMemory memory_;
  CostModel cost_{};
  Timings timings_;
  uint32_t chunks_ = 0;
};

}  // namespace

void gpu_hausdorff(const xhd_points& a, const xhd_points& b, const xhd_hausdorff_options& options,
                   const Progress& progress, xhd_hausdorff_result& result) {
  GpuRun run(a, b, options, progress, result);
  run.run();
}

}  // namespace xhd
