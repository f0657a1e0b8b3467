// Every source point's nearest target on the GPU, one direction at a time:
//  - the target's unique points inside the frame's cube (unique_points.h, point_frame.h) go into a device
//    grid, named by their index in the unique set; the source's inside points come in chunks, each put in
//    Morton order by a grid of its own so that neighbouring threads search neighbouring cells;
//  - one thread per query: the float search of the X-HD grid with nothing pruned (tree_search with no cmax:
//    no early break, no MaxDist settling), whose nearest computed squared distance c is an actual pair's;
//    then every target whose computed squared distance is within reach(upper(c)) (filter_bounds.h: all
//    those truly within the float nearest's distance) evaluated in double over the input's own coordinates
//    by exact_dist2's formula, ties to the smaller index, the reach shrinking with the best; then the loose
//    targets (far outliers, not in the grid) in double where the gate says one may be nearer;
//  - queries whose reach spans too many cells take the grid's tree; the rare one whose descent would need
//    more stack than a thread has is settled on the host (refine_on_host.h), as are the loose sources
//    (loose_refine.h), exactly as the CPU backend settles them.
// Each answer is the true nearest in double, ties to the smallest index: the CPU's values bit for bit. The
// witness is reduced on the device per chunk by the rule of per_point.h, and combined on the host.
#include "points_gpu.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "../geometry/inside_cube.h"
#include "../abi/parallel.h"
#include "../abi/per_point.h"
#include "../geometry/point_frame.h"
#include "../geometry/unique_points.h"
#include "cost_model.h"
#include "cuda_check.h"
#include "device_grid.h"
#include "device_session.h"
#include "exact_visit.cuh"
#include "launch.h"
#include "loose_device.h"
#include "loose_refine.h"
#include "refine_on_host.h"
#include "staged_upload.h"
#include "xhd_search.cuh"

namespace xhd {
namespace {

constexpr int kThreads = 128;
constexpr int kReduceThreads = 1024;

// A candidate witness: a query's exact squared distance, its source index, its nearest's input index.
struct DeviceWitness {
  double dist2;
  uint32_t from;
  uint32_t to;
};

// per_point.h's rule: the larger squared distance, then the smaller source index.
__device__ __forceinline__ bool beats(const DeviceWitness& a, const DeviceWitness& b) {
  return a.dist2 > b.dist2 || (a.dist2 == b.dist2 && a.from < b.from);
}

struct NearestArgs {
  GridView target;        // the unique target's inside points, w = unique target index
  QueryState st;          // for the float search: cmax a zero word (nothing pruned), no heavy lists
  const float4* queries;  // the chunk's inside source points in Morton order, w = source index
  uint32_t query_count;
  uint32_t first_source;         // outputs and the source truth start at this source index
  const double* source_truth;    // 3 doubles per source index from first_source; null: the floats are the truth
  const double* target_truth;    // 3 doubles per unique target index; null: the floats are the truth
  const uint32_t* target_input;  // unique target index -> input index; null: the same
  const double* loose_xyz;       // the loose targets' truth, 3 doubles each
  const uint32_t* loose_index;   // their unique target indices
  uint32_t loose_count;
  LooseGate gate;
  FilterBounds bounds;        // the frame's tight bounds: the grids hold points inside the cube only
  double* distance;           // per source index from first_source (null: not wanted)
  int64_t* nearest;           // per source index from first_source (null: not wanted)
  DeviceWitness* block_best;  // one per block
  uint32_t* wide;             // source indices left to the host
  uint32_t* wide_count;
  unsigned long long* evals;  // distances evaluated, float and double
};

__global__ void __launch_bounds__(kThreads) nearest_kernel(NearestArgs a) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  DeviceWitness mine{-1.0, 0xffffffffu, 0xffffffffu};
  uint32_t evals = 0;
  if (i < a.query_count) {
    const float4 qp = a.queries[i];
    Probe q;
    q.p[0] = qp.x;
    q.p[1] = qp.y;
    q.p[2] = qp.z;
    q.source_index = __float_as_uint(qp.w);
    q.slot = i;
    q.cmin = __int_as_float(0x7f800000);
    q.threshold = -1.f;
    // No threshold (cmax stays 0) and no cell too heavy: every query's full float nearest.
    tree_search(a.target, Radius{__int_as_float(0x7f800000), -1.f}, q, a.st, 0xffffffffu, HeavyCells::kAbandon);
    evals += q.evals;
    const uint32_t rel = q.source_index - a.first_source;
    const double x = a.source_truth ? a.source_truth[3ull * rel] : q.p[0];
    const double y = a.source_truth ? a.source_truth[3ull * rel + 1] : q.p[1];
    const double z = a.source_truth ? a.source_truth[3ull * rel + 2] : q.p[2];
    double best = INFINITY;
    uint32_t index = 0xffffffffu;
    bool settled = q.cmin < __int_as_float(0x7f800000);
    if (settled) {
      float reach = a.bounds.reach(a.bounds.upper(q.cmin));
      const auto visit = [&](const float4& t) {
        const uint32_t id = __float_as_uint(t.w);
        const double* tt = a.target_truth ? a.target_truth + 3ull * id : nullptr;
        const double dx = x - (tt ? tt[0] : t.x), dy = y - (tt ? tt[1] : t.y), dz = z - (tt ? tt[2] : t.z);
        const double d2 = dx * dx + dy * dy + dz * dz;
        ++evals;
        if (d2 < best || (d2 == best && id < index)) {
          best = d2;
          index = id;
          reach = a.bounds.reach(sqrt(best));
        }
      };
      settled = visit_within_reach(a.target, q.p, reach, visit) || visit_within_reach_tree(a.target, q.p, reach, visit);
      settled = settled && index != 0xffffffffu;
    }
    if (settled && a.gate.may_reach(q.p, sqrt(best))) {
      for (uint32_t k = 0; k < a.loose_count; ++k) {
        const double* tt = a.loose_xyz + 3ull * k;
        const double dx = x - tt[0], dy = y - tt[1], dz = z - tt[2];
        const double d2 = dx * dx + dy * dy + dz * dz;
        const uint32_t id = a.loose_index[k];
        ++evals;
        if (d2 < best || (d2 == best && id < index)) {
          best = d2;
          index = id;
        }
      }
    }
    if (settled) {
      const uint32_t to = a.target_input ? a.target_input[index] : index;
      if (a.distance) a.distance[rel] = sqrt(best);  // IEEE square root, as std::sqrt on the host
      if (a.nearest) a.nearest[rel] = to;
      mine = DeviceWitness{best, q.source_index, to};
    } else {
      a.wide[atomicAdd(a.wide_count, 1u)] = q.source_index;
    }
  }
  __shared__ DeviceWitness best_of[kThreads];
  best_of[threadIdx.x] = mine;
  for (int o = 16; o > 0; o >>= 1) evals += __shfl_down_sync(0xffffffffu, evals, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(a.evals, static_cast<unsigned long long>(evals));
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half && beats(best_of[threadIdx.x + half], best_of[threadIdx.x]))
      best_of[threadIdx.x] = best_of[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) a.block_best[blockIdx.x] = best_of[0];
}

// The blocks' witnesses to one, in place at [0] (one block).
__global__ void __launch_bounds__(kReduceThreads) reduce_witness_kernel(DeviceWitness* blocks, uint32_t count) {
  __shared__ DeviceWitness best_of[kReduceThreads];
  DeviceWitness mine{-1.0, 0xffffffffu, 0xffffffffu};
  for (uint32_t k = threadIdx.x; k < count; k += kReduceThreads)
    if (beats(blocks[k], mine)) mine = blocks[k];
  best_of[threadIdx.x] = mine;
  __syncthreads();
  for (int half = kReduceThreads / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half && beats(best_of[threadIdx.x + half], best_of[threadIdx.x]))
      best_of[threadIdx.x] = best_of[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) blocks[0] = best_of[0];
}

// Host bytes of the planning below: what a grid over n points costs while built (hausdorff_gpu.cu's sizing).
uint64_t max_cells_for(uint64_t n) { return std::min<uint64_t>(std::max<uint64_t>(4 * n, 4096), 1u << 27); }
uint64_t resident_set_bytes(uint64_t n) { return 12 * n + grid_build_bytes(n, max_cells_for(n)); }

// Device bytes per query of a chunk: raw upload, its Morton grid (points, keys, up to 4 cells a point with
// their counts and starts, nodes), its truth in double, the two outputs, its share of the block witnesses.
constexpr uint64_t kPerQueryBytes = 12 + 16 + 8 + 4 * 8 + 24 * 4 + 24 + 16 + 8;
constexpr uint64_t kFixedBytes = (4ull << 20) + (1u << 20);

std::string gib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f GiB", bytes / 1073741824.0);
  return text;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

class PointsRun {
 public:
  PointsRun(const PointFrame& frame, int host_threads, const xhd_hausdorff_options& options, const Progress& progress,
            xhd_hausdorff_result& result)
      : frame_(frame),
        host_threads_(host_threads),
        options_(options),
        progress_(progress),
        result_(result),
        memory_(device_memory_budget(options.device), stream_.get()) {
    cost_ = measure_cost_model(memory_, options.device, stream_.get());
  }

  void direction(const FramedSet& source, const FramedSet& target_set, PerPointOut out, xhd_directed& result) {
    const FramedSet target = unique_targets(target_set, host_threads_);
    const bool exact_floats = frame_.tight.copies_exact;
    double build_ms = 0, query_ms = 0;

    // The target: its grid, its truth in double, its input indices, its loose points.
    const InsideCube target_inside(target);
    const uint32_t nt = static_cast<uint32_t>(target_inside.count);
    const uint64_t target_bytes = resident_set_bytes(nt) + (exact_floats ? 0 : 24ull * target.count) +
                                  (target.input_index.empty() ? 0 : 4ull * target.count);
    if (target_bytes + kFixedBytes + 1024 * kPerQueryBytes > memory_.budget())
      throw DeviceMemoryShort("the target set of " + std::to_string(target.count) + " points needs about " +
                              gib(target_bytes + kFixedBytes + 1024 * kPerQueryBytes) + " of GPU memory; " +
                              gib(memory_.budget()) + " is available");
    DeviceGrid grid;
    {
      DeviceArray<float> raw = upload_floats(target_inside.xyz, 0, nt);
      grid = survey_and_build(raw.get(), nt, 0, target, build_ms);
    }
    describe(grid, result);
    DeviceArray<double> target_truth;
    if (!exact_floats) target_truth = upload_truth(target.truth, 0, target.count);
    DeviceArray<uint32_t> target_input;
    if (!target.input_index.empty()) target_input = upload_array(target.input_index.data(), target.count);
    std::vector<double> loose_xyz(3 * target.loose.size());
    for (size_t k = 0; k < target.loose.size(); ++k)
      for (int c = 0; c < 3; ++c) loose_xyz[3 * k + c] = target.truth.coord(target.loose[k], c);
    DeviceArray<double> device_loose_xyz = upload_array(loose_xyz.data(), loose_xyz.size());
    DeviceArray<uint32_t> device_loose_index = upload_array(target.loose.data(), target.loose.size());

    DeviceArray<unsigned long long> zero_words(memory_, 2);  // cmax (never raised) and the evals counter
    XHD_CUDA(cudaMemsetAsync(zero_words.get(), 0, 2 * sizeof(unsigned long long), stream_.get()));
    NearestArgs args{};
    args.target = grid.view();
    args.st.cmax = zero_words.get();
    args.st.bounds = frame_.tight;
    args.st.loose = loose_gate(frame_, target);
    args.target_truth = target_truth.get();
    args.target_input = target_input.get();
    args.loose_xyz = device_loose_xyz.get();
    args.loose_index = device_loose_index.get();
    args.loose_count = static_cast<uint32_t>(target.loose.size());
    args.gate = args.st.loose;
    args.bounds = frame_.tight;
    args.evals = zero_words.get() + 1;

    // The source's inside points in chunks of what fits beside the target.
    const InsideCube source_inside(source);
    const uint64_t queries = source_inside.count;
    const uint64_t room = memory_.budget() - std::min(memory_.budget(), memory_.in_use() + kFixedBytes);
    const uint64_t chunk = std::max<uint64_t>(1, std::min<uint64_t>(queries, room / kPerQueryBytes));
    PerPointWitness witness;
    std::vector<uint32_t> wide;
    uint32_t chunks = 0;
    for (uint64_t first = 0; first < queries; first += chunk) {
      progress_.check_cancel();
      const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(chunk, queries - first));
      const uint32_t lo =
          original_index(source.loose.data(), static_cast<uint32_t>(source.loose.size()), static_cast<uint32_t>(first));
      const uint32_t hi = original_index(source.loose.data(), static_cast<uint32_t>(source.loose.size()),
                                         static_cast<uint32_t>(first + n - 1));
      const uint64_t span = static_cast<uint64_t>(hi) - lo + 1;
      DeviceGrid order;
      {
        DeviceArray<float> raw = upload_floats(source_inside.xyz, first, n);
        order = survey_and_build(raw.get(), n, static_cast<uint32_t>(first), source, build_ms);
      }
      DeviceArray<double> source_truth;
      if (!exact_floats) source_truth = upload_truth(source.truth, lo, span);
      DeviceArray<double> distance;
      DeviceArray<int64_t> nearest;
      if (out.distance != nullptr) distance = DeviceArray<double>(memory_, span);
      if (out.nearest != nullptr) nearest = DeviceArray<int64_t>(memory_, span);
      const unsigned blocks = blocks_for(n, kThreads);
      DeviceArray<DeviceWitness> block_best(memory_, blocks);
      DeviceArray<uint32_t> wide_list(memory_, static_cast<size_t>(n) + 1);  // [0]: the count
      XHD_CUDA(cudaMemsetAsync(wide_list.get(), 0, sizeof(uint32_t), stream_.get()));
      args.queries = order.points.get();
      args.query_count = n;
      args.first_source = lo;
      args.source_truth = source_truth.get();
      args.distance = distance.get();
      args.nearest = nearest.get();
      args.block_best = block_best.get();
      args.wide_count = wide_list.get();
      args.wide = wide_list.get() + 1;
      EventTimer timer(stream_.get());
      timer.start();
      nearest_kernel<<<blocks, kThreads, 0, stream_.get()>>>(args);
      XHD_CUDA_LAUNCHED("nearest_kernel");
      reduce_witness_kernel<<<1, kReduceThreads, 0, stream_.get()>>>(block_best.get(), blocks);
      XHD_CUDA_LAUNCHED("reduce_witness_kernel");
      query_ms += timer.stop();

      const auto download_start = std::chrono::steady_clock::now();
      DeviceWitness chunk_best{};
      uint32_t wide_count = 0;
      XHD_CUDA(
          cudaMemcpyAsync(&chunk_best, block_best.get(), sizeof(chunk_best), cudaMemcpyDeviceToHost, stream_.get()));
      XHD_CUDA(
          cudaMemcpyAsync(&wide_count, wide_list.get(), sizeof(wide_count), cudaMemcpyDeviceToHost, stream_.get()));
      // Loose sources inside [lo, hi] receive what the device left there; they are written again below.
      if (out.distance != nullptr)
        XHD_CUDA(cudaMemcpyAsync(out.distance + lo, distance.get(), span * sizeof(double), cudaMemcpyDeviceToHost,
                                 stream_.get()));
      if (out.nearest != nullptr)
        XHD_CUDA(cudaMemcpyAsync(out.nearest + lo, nearest.get(), span * sizeof(int64_t), cudaMemcpyDeviceToHost,
                                 stream_.get()));
      XHD_CUDA(cudaStreamSynchronize(stream_.get()));
      if (wide_count > 0) {
        const size_t at = wide.size();
        wide.resize(at + wide_count);
        XHD_CUDA(
            cudaMemcpy(wide.data() + at, wide_list.get() + 1, wide_count * sizeof(uint32_t), cudaMemcpyDeviceToHost));
      }
      timings_download_ += ms_since(download_start);
      if (chunk_best.from != 0xffffffffu) witness.offer(chunk_best.dist2, chunk_best.from, chunk_best.to);
      progress_.add(n);
      ++chunks;
    }
    unsigned long long evals = 0;
    XHD_CUDA(cudaMemcpyAsync(&evals, zero_words.get() + 1, sizeof(evals), cudaMemcpyDeviceToHost, stream_.get()));
    XHD_CUDA(cudaStreamSynchronize(stream_.get()));
    result.distance_evals = evals;
    result_.query_chunks = std::max(result_.query_chunks, chunks);

    // On the host: the queries the device could not finish, and the loose sources (never in the float search).
    const auto host_start = std::chrono::steady_clock::now();
    std::vector<SourceNearest> settled;
    if (!wide.empty()) {
      std::vector<double> dist2(wide.size());
      std::vector<uint32_t> nearest(wide.size());
      nearest_on_host(frame_, source, target, wide, host_threads_, dist2, nearest);
      for (size_t k = 0; k < wide.size(); ++k) settled.push_back({wide[k], dist2[k], nearest[k]});
    }
    const std::vector<SourceNearest> loose = settle_loose_sources(frame_, source, target, host_threads_);
    settled.insert(settled.end(), loose.begin(), loose.end());
    for (const SourceNearest& s : settled) {
      const int64_t to = target.input_of(s.target);
      if (out.distance != nullptr) out.distance[s.source] = std::sqrt(s.dist2);
      if (out.nearest != nullptr) out.nearest[s.source] = to;
      witness.offer(s.dist2, s.source, to);
    }
    progress_.add(source.loose.size());
    query_ms += ms_since(host_start);

    witness.write(result);
    result.build_ms = build_ms;
    result.query_ms = result.exact_ms = query_ms;
    result.exact_checks = source.count;
  }

  void finish() {
    result_.upload_ms = timings_upload_;
    result_.download_ms = timings_download_;
    result_.peak_device_bytes = memory_.peak();
    result_.device = options_.device;
  }

 private:
  DeviceArray<float> upload_floats(const float* xyz, uint64_t first, uint32_t count) {
    const auto start = std::chrono::steady_clock::now();
    DeviceArray<float> raw(memory_, 3ull * count);
    copy_to_device(raw.get(), xyz + 3 * first, 12ull * count, stream_.get());
    timings_upload_ += ms_since(start);
    return raw;
  }

  // Points [first, first + count) of a set's truth in double (a float32 truth widened on the host).
  DeviceArray<double> upload_truth(const PointTruth& truth, uint64_t first, uint64_t count) {
    if (truth.f64 != nullptr) return upload_array(truth.f64 + 3 * first, 3 * count);
    std::vector<double> widened(3 * count);
    parallel_blocks(count, 1 << 16, host_threads_, [&](size_t begin, size_t end, int) {
      for (size_t i = begin; i < end; ++i)
        for (int c = 0; c < 3; ++c) widened[3 * i + c] = truth.f32[3 * (first + i) + c];
    });
    return upload_array(widened.data(), widened.size());  // copy_to_device has read it all on return
  }

  template <class T>
  DeviceArray<T> upload_array(const T* host, size_t count) {
    if (count == 0) return DeviceArray<T>();
    const auto start = std::chrono::steady_clock::now();
    DeviceArray<T> out(memory_, count);
    copy_to_device(out.get(), host, count * sizeof(T), stream_.get());
    timings_upload_ += ms_since(start);
    return out;
  }

  // A set's inside points (from position base of its inside copy) in a grid named by the set's indices.
  DeviceGrid survey_and_build(const float* raw, uint32_t n, uint32_t base, const FramedSet& set, double& ms) {
    EventTimer timer(stream_.get());
    timer.start();
    const GridInput input = survey_points(memory_, raw, n, base, stream_.get());
    DeviceGrid g = build_device_grid(memory_, input, GridPlan{cost_.ratio(), 0.0, options_.cell_size}, stream_.get());
    restore_original_indices(memory_, g, set.loose, stream_.get());
    ms += timer.stop();
    return g;
  }

  static void describe(const DeviceGrid& g, xhd_directed& out) {
    float side = 0.f;
    for (int i = 0; i < 3; ++i) {
      out.grid_dims[i] = 1u << g.frame.bits[i];
      if (g.frame.bits[i] > 0) side = std::max(side, g.frame.cell[i]);
    }
    out.cell_size = side;
  }

  const PointFrame& frame_;
  int host_threads_;
  const xhd_hausdorff_options& options_;
  const Progress& progress_;
  xhd_hausdorff_result& result_;
  Stream stream_;
  DeviceMemory memory_;
  CostModel cost_{};
  double timings_upload_ = 0, timings_download_ = 0;
};

}  // namespace

void gpu_points_compare(const xhd_points& a, const xhd_points& b, const xhd_hausdorff_options& options,
                        const xhd_per_point& per_point, const Progress& progress, xhd_hausdorff_result& result) {
  const int host_threads = resolve_thread_count(options.threads);
  PointFrame frame;
  frame_points(a, &b, host_threads, frame);
  for (int k = 0; k < 3; ++k) result.origin[k] = frame.origin[k];
  const int directions = options.directions;
  progress.set_total(((directions & XHD_DIRECTION_AB) ? frame.a.count : 0) +
                     ((directions & XHD_DIRECTION_BA) ? frame.b.count : 0));
  PointsRun run(frame, host_threads, options, progress, result);
  if (directions & XHD_DIRECTION_AB) run.direction(frame.a, frame.b, per_point_ab(per_point), result.ab);
  if (directions & XHD_DIRECTION_BA) run.direction(frame.b, frame.a, per_point_ba(per_point), result.ba);
  run.finish();
}

}  // namespace xhd
