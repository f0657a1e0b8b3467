// Every source point's nearest target on the GPU, one direction at a time:
//  - the target's unique points inside the frame's cube (unique_points.h, point_frame.h) go into a device
//    grid, named by their index in the unique set; the source's inside points come in chunks, each put in
//    the target grid's cell order (or by a grid of its own) so that neighbouring threads search neighbouring
//    cells;
//  - a group of lanes per query (nearest_group.cuh): the float search of the X-HD grid with nothing pruned
//    over the cells near the query, whose nearest computed squared distance c is an actual pair's; then
//    every target whose computed squared distance is within reach(upper(c)) (filter_bounds.h: all those
//    truly within the float nearest's distance) evaluated in double over the input's own coordinates by
//    exact_dist2's formula, ties to the smaller index, the reach shrinking with the best; then the loose
//    targets (far outliers, not in the grid) in double where the gate says one may be nearer;
//  - a query whose nearest lies beyond the cells near it is listed and settled by passes that share its
//    work among many threads (hard_queries.cuh), or, when too many are listed, by one thread's descent of
//    the grid's tree (listed_nearest_kernel), with the same answer;
//  - reaches that span too many cells take the grid's tree; the rare descent that would need
//    more stack than a thread has is settled on the host (refine_on_host.h), as are the loose sources
//    (loose_refine.h), exactly as the CPU backend settles them.
// Each answer is the true nearest in double, ties to the smallest index: the CPU's values bit for bit. The
// witness is reduced on the device per chunk by the rule of per_point.h, and combined on the host.
#include "points_gpu.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../geometry/inside_cube.h"
#include "../abi/beside.h"
#include "../abi/env_switch.h"
#include "../abi/host_phases.h"
#include "../abi/parallel.h"
#include "../abi/per_point.h"
#include "../abi/tile_minima.h"
#include "../geometry/point_frame.h"
#include "../geometry/unique_points.h"
#include "cost_model.h"
#include "cuda_check.h"
#include "device_grid.h"
#include "device_session.h"
#include "exact_visit.cuh"
#include "hard_queries.cuh"
#include "launch.h"
#include "loose_device.h"
#include "loose_refine.h"
#include "nearest_group.cuh"
#include "nearest_query.cuh"
#include "placement.h"
#include "refine_on_host.h"
#include "staged_upload.h"
#include "xhd_search.cuh"

namespace xhd {
namespace {

constexpr int kThreads = 128;
constexpr int kReduceThreads = 1024;
static_assert(kThreads == kHardThreads, "the grid pass and the hard passes share their block witness code");

// The one-thread grid pass over the listed queries, when there are too many for the hard passes (hard_plan):
// each query's full float nearest through the grid's tree, then every target within reach in double.
__global__ void __launch_bounds__(kThreads) listed_nearest_kernel(NearestArgs a) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  DeviceWitness mine{-1.0, kNoQueryIndex, kNoQueryIndex};
  uint32_t evals = 0;
  const uint32_t count = hard_plan(a).brute ? 0u : *a.hard_count;
  if (i < count) {
    const uint32_t slot = a.hard[i];
    const float4 qp = a.queries[slot];
    Probe q;
    q.p[0] = qp.x;
    q.p[1] = qp.y;
    q.p[2] = qp.z;
    q.source_index = __float_as_uint(qp.w);
    q.slot = slot;
    q.cmin = __int_as_float(0x7f800000);
    q.threshold = -1.f;
    // No threshold (no cmax word) and no cell too heavy: every query's full float nearest.
    tree_search(a.target, Radius{__int_as_float(0x7f800000), -1.f}, q, a.st, 0xffffffffu, HeavyCells::kAbandon);
    evals += q.evals;
    double x, y, z;
    source_truth_of(a, q.p, q.source_index, x, y, z);
    ExactBest best = no_best();
    bool settled = q.cmin < __int_as_float(0x7f800000);
    if (settled) {
      float reach = a.bounds.reach(a.bounds.upper(q.cmin));
      const auto visit = [&](const float4& t) {
        ++evals;
        if (offer_target(a, x, y, z, t, best)) reach = a.bounds.reach(sqrt(best.dist2));
      };
      settled = visit_within_reach(a.target, q.p, reach, visit) || visit_within_reach_tree(a.target, q.p, reach, visit);
    }
    mine = finish_query(a, q.p, q.source_index, x, y, z, best, settled, evals);
  }
  add_evals(a.evals, evals);
  block_witness<kThreads>(mine, a.block_best + blockIdx.x);
}

// The blocks' witnesses to one, in place at [0] (one block; every read of them comes before block_witness's
// first barrier, its write after its last).
__global__ void __launch_bounds__(kReduceThreads) reduce_witness_kernel(DeviceWitness* blocks, uint32_t count) {
  DeviceWitness mine{-1.0, kNoQueryIndex, kNoQueryIndex};
  for (uint32_t k = threadIdx.x; k < count; k += kReduceThreads)
    if (beats(blocks[k], mine)) mine = blocks[k];
  block_witness<kReduceThreads>(mine, blocks);
}

// Host bytes of the planning below: what a grid over n points costs while built (hausdorff_gpu.cu's sizing).
uint64_t max_cells_for(uint64_t n) { return std::min<uint64_t>(std::max<uint64_t>(4 * n, 4096), 1u << 27); }
uint64_t resident_set_bytes(uint64_t n) { return 12 * n + grid_build_bytes(n, max_cells_for(n)); }

// Device bytes per query of a chunk: raw upload, its Morton grid (points, keys, up to 4 cells a point with
// their counts and starts, nodes), its truth in double, the two outputs, its share of the block witnesses,
// its places in the host's and the hard passes' lists (position, float nearest, a slice's best).
constexpr uint64_t kPerQueryBytes = 12 + 16 + 8 + 4 * 8 + 24 * 4 + 24 + 16 + 8 + 4 + 4 + 4 + 16;
constexpr uint64_t kFixedBytes = (4ull << 20) + (1u << 20) + hard_best_capacity(0) * sizeof(ExactBest) +
                                 kHardBlocks * sizeof(DeviceWitness);
constexpr uint64_t kLeastChunk = 1024;  // queries a chunk holds at least beside the target

// How far the first pass steps before it lists a query (nearest_group.cuh), and how many listed queries x
// targets the hard passes take (hard_queries.cuh). XHD_CUDA_STEP_RINGS and XHD_CUDA_BRUTE_CAP set them, for
// the tests (0 rings lists every query; a cap of 0 leaves every listed query to the one-thread pass) and for
// tuning.
struct HardBudget {
  int rings = kStepRings;
  uint64_t brute_cap = uint64_t(1) << 31;
};

HardBudget hard_budget_from_environment() {
  HardBudget b;
  if (const char* v = std::getenv("XHD_CUDA_STEP_RINGS")) b.rings = static_cast<int>(std::strtol(v, nullptr, 10));
  if (const char* v = std::getenv("XHD_CUDA_BRUTE_CAP")) b.brute_cap = std::strtoull(v, nullptr, 10);
  return b;
}

std::string gib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f GiB", bytes / 1073741824.0);
  return text;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Device bytes of a target tile of n inside points spanning `span` unique indices.
uint64_t tile_bytes(uint64_t n, uint64_t span, bool exact_floats, bool renamed) {
  return resident_set_bytes(n) + (exact_floats ? 0 : 24 * span) + (renamed ? 4 * span : 0);
}

// How one direction's target is cut: tiles of `tile` inside points each (the last shorter), as many as
// needed for the smallest worker budget to hold a tile beside the fixed part and a chunk of queries. One
// tile: the whole target resident, as before out-of-core existed.
struct TilePlan {
  uint64_t tile = 0;
  uint32_t tiles = 1;
};

TilePlan plan_tiles(const FramedSet& target, uint64_t inside, bool exact_floats, uint64_t budget) {
  const bool renamed = !target.input_index.empty();
  const uint64_t floor = kFixedBytes + kLeastChunk * kPerQueryBytes;
  TilePlan plan;
  plan.tile = std::max<uint64_t>(inside, 1);
  if (tile_bytes(plan.tile, target.count, exact_floats, renamed) + floor <= budget) return plan;
  // Tiles take at most half of what is left beside the fixed part, so that query chunks stay large; a tile's
  // span of unique indices is about its share of them (loose points are few).
  const uint64_t room = budget > floor ? (budget - floor) / 2 : 0;
  while (plan.tile > kLeastChunk) {
    const uint64_t span = std::min<uint64_t>(target.count, plan.tile + target.loose.size());
    if (tile_bytes(plan.tile, span, exact_floats, renamed) <= room) break;
    plan.tile = (plan.tile + 1) / 2;
  }
  const uint64_t span = std::min<uint64_t>(target.count, plan.tile + target.loose.size());
  if (tile_bytes(plan.tile, span, exact_floats, renamed) > room)
    throw DeviceMemoryShort("a tile of the target needs about " +
                            gib(tile_bytes(plan.tile, span, exact_floats, renamed) + floor) + " of GPU memory; " +
                            gib(budget) + " is available (raise --memory-limit)");
  plan.tiles = static_cast<uint32_t>((inside + plan.tile - 1) / plan.tile);
  return plan;
}

// One direction as its workers share it: the host-side inputs (read only), the queues, the per-query
// running minima over the tiles (tiled runs), and what each worker found.
struct DirectionWork {
  const PointFrame* frame;
  const FramedSet* source;
  const FramedSet* target;  // the unique targets
  const InsideCube* source_inside;
  const InsideCube* target_inside;
  std::vector<double> loose_xyz;      // the loose targets' truth
  std::vector<uint32_t> loose_input;  // and their input indices
  PerPointOut out;
  double* kept = nullptr;  // the direction's distances on the device (KeptDistances), written there untiled
  bool download = true;    // whether out.distance receives them (always when tiled)
  TilePlan plan;
  uint64_t piece = 0;                 // queries a piece holds
  std::unique_ptr<PieceQueue> queue;  // one tile: pieces taken by whichever worker is free
  // Tiles: each query's nearest so far (squared distance, input index), written by the one worker that owns
  // its piece (piece k belongs to worker k mod workers), so no two workers touch one query.
  std::vector<double> running_d2;
  std::vector<int64_t> running_to;
};

struct WorkerFound {
  PerPointWitness witness;     // over the queries settled on the device (untiled runs)
  std::vector<uint32_t> wide;  // source indices the device could not finish, for the host
  uint64_t evals = 0;
  double build_ms = 0, query_ms = 0, upload_ms = 0, download_ms = 0;
  uint64_t peak = 0;
  uint32_t chunks = 0;
  uint32_t grid_dims[3] = {0, 0, 0};
  float cell_size = 0.f;
};

// One worker's share of one direction on its device: its own stream, budget and copy of the target tile.
class PointsWorker {
 public:
  PointsWorker(int device, uint64_t budget, const xhd_hausdorff_options& options, int host_threads,
               const Progress& progress)
      : device_(device),
        options_(options),
        host_threads_(host_threads),
        progress_(progress),
        memory_(budget, stream_.get()),
        hard_budget_(hard_budget_from_environment()),
        profile_(std::getenv("XHD_CUDA_PROFILE") != nullptr) {
    // The cost probe is not the compare's data: it is measured once per device within what is free, so that a
    // small --memory-limit bounds the search and not this one-time table.
    DeviceMemory probe(device_memory_budget(device), stream_.get());
    cost_ = measure_cost_model(probe, device, stream_.get());
  }

  void run(DirectionWork& work, int worker, int workers, WorkerFound& found) {
    const FramedSet& target = *work.target;
    const bool exact_floats = work.frame->tight.copies_exact;
    const bool tiled = work.plan.tiles > 1;
    const uint64_t nt = work.target_inside->count;
    const uint64_t queries = work.source_inside->count;
    const uint64_t pieces = (queries + work.piece - 1) / work.piece;
    DeviceArray<unsigned long long> evals_word(memory_, 1);
    XHD_CUDA(cudaMemsetAsync(evals_word.get(), 0, sizeof(unsigned long long), stream_.get()));
    std::vector<double> tile_d2;
    std::vector<int64_t> tile_to;
    HostPhases tile_phases("points tile");
    for (uint32_t t = 0; t < work.plan.tiles && !work.queue->abandoned(); ++t) {
      progress_.check_cancel();
      // The tile: inside positions [p0, p1), unique indices [lo, hi].
      const uint64_t p0 = t * work.plan.tile, p1 = std::min<uint64_t>(nt, p0 + work.plan.tile);
      const uint32_t n_tile = static_cast<uint32_t>(p1 - p0);
      const uint32_t lo = n_tile == 0 ? 0 : original_index(target.loose.data(), loose_count(target), p0);
      const uint32_t hi = n_tile == 0 ? 0 : original_index(target.loose.data(), loose_count(target), p1 - 1);
      const uint64_t span = n_tile == 0 ? 0 : static_cast<uint64_t>(hi) - lo + 1;
      DeviceGrid grid;
      {
        DeviceArray<float> raw = upload_floats(work.target_inside->xyz, p0, n_tile, found);
        grid = survey_and_build(raw.get(), n_tile, static_cast<uint32_t>(p0), target, found.build_ms);
      }
      if (t == 0) describe(grid, found);
      if (profile_)
        std::fprintf(stderr, "xhd-profile target grid: %u points, bits %d %d %d, cell %.3g %.3g %.3g, %d levels\n", n_tile,
                     grid.frame.bits[0], grid.frame.bits[1], grid.frame.bits[2], grid.frame.cell[0], grid.frame.cell[1],
                     grid.frame.cell[2], grid.frame.levels);
      tile_phases.mark("target upload and grid");
      DeviceArray<double> target_truth;
      if (!exact_floats) target_truth = upload_truth(target.truth, lo, span, found);
      DeviceArray<uint32_t> target_input;
      if (!target.input_index.empty()) target_input = upload_array(target.input_index.data() + lo, span, found);
      // The loose targets go with the first tile alone: each target is offered to each query once.
      const bool loose_here = t == 0;
      DeviceArray<double> loose_xyz =
          upload_array(work.loose_xyz.data(), loose_here ? work.loose_xyz.size() : 0, found);
      DeviceArray<uint32_t> loose_index =
          upload_array(target.loose.data(), loose_here ? target.loose.size() : 0, found);
      DeviceArray<uint32_t> loose_input =
          upload_array(work.loose_input.data(), loose_here ? work.loose_input.size() : 0, found);

      NearestArgs args{};
      args.target = grid.view();
      args.st.cmax = nullptr;  // nothing pruned
      args.st.bounds = work.frame->tight;
      args.st.loose = loose_gate(*work.frame, target);
      args.target_truth = target_truth.get();
      args.target_input = target_input.get();
      args.target_first = lo;
      args.loose_xyz = loose_xyz.get();
      args.loose_index = loose_index.get();
      args.loose_input = loose_input.get();
      args.loose_count = loose_here ? static_cast<uint32_t>(target.loose.size()) : 0;
      args.squared = tiled;
      args.gate = args.st.loose;
      args.bounds = work.frame->tight;
      args.evals = evals_word.get();

      // The queries beside the tile in chunks of what fits, one piece at a time: any free worker's when the
      // target is whole, this worker's own pieces when it is tiled (their running minima are its alone).
      const uint64_t room = memory_.budget() - std::min(memory_.budget(), memory_.in_use() + kFixedBytes);
      const uint64_t chunk = std::max<uint64_t>(1, std::min<uint64_t>(work.piece, room / kPerQueryBytes));
      uint64_t owned = static_cast<uint64_t>(worker);
      Piece piece;
      while (true) {
        if (tiled) {
          // Another worker's failure abandons the queue: stop here too, though these pieces are this worker's.
          if (owned >= pieces || work.queue->abandoned()) break;
          piece.first = owned * work.piece;
          piece.count = std::min<uint64_t>(work.piece, queries - piece.first);
          owned += static_cast<uint64_t>(workers);
        } else if (!work.queue->next(piece)) {
          break;
        }
        for (uint64_t first = piece.first; first < piece.first + piece.count; first += chunk) {
          progress_.check_cancel();
          const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(chunk, piece.first + piece.count - first));
          run_chunk(work, args, first, n, tiled, tile_d2, tile_to, found);
          progress_.add(n);
        }
        if (workers > 1) injected_fault(worker);
      }
      tile_phases.mark("query chunks");
    }
    unsigned long long evals = 0;
    XHD_CUDA(cudaMemcpyAsync(&evals, evals_word.get(), sizeof(evals), cudaMemcpyDeviceToHost, stream_.get()));
    XHD_CUDA(cudaStreamSynchronize(stream_.get()));
    found.evals += evals;
    found.peak = std::max<uint64_t>(found.peak, memory_.peak());
  }

 private:
  static uint32_t loose_count(const FramedSet& set) { return static_cast<uint32_t>(set.loose.size()); }

  // Inside source positions [first, first + n): their cell order, the search, and the downloads.
  void run_chunk(DirectionWork& work, NearestArgs& args, uint64_t first, uint32_t n, bool tiled,
                 std::vector<double>& tile_d2, std::vector<int64_t>& tile_to, WorkerFound& found) {
    HostPhases chunk_phases("points chunk");
    const FramedSet& source = *work.source;
    const bool exact_floats = work.frame->tight.copies_exact;
    const uint32_t lo = original_index(source.loose.data(), loose_count(source), static_cast<uint32_t>(first));
    const uint32_t hi = original_index(source.loose.data(), loose_count(source), static_cast<uint32_t>(first + n - 1));
    const uint64_t span = static_cast<uint64_t>(hi) - lo + 1;
    // The chunk in the cell order of the target's grid, when its cell table costs no more than the chunk's own
    // grid would (up to 4 cells a query, as planned): no survey, so no host round trip; else a grid of its own.
    DeviceGrid order;
    EventTimer order_timer(stream_.get());
    bool order_timed = false;  // read after the downloads' wait, not waited on here
    {
      DeviceArray<float> raw = upload_floats(work.source_inside->xyz, first, n, found);
      if (args.target.frame.cell_count() <= 4ull * n) {
        order_timer.start();
        order = order_in_frame(memory_, raw.get(), n, static_cast<uint32_t>(first), args.target.frame, stream_.get());
        restore_original_indices(memory_, order, source.loose, stream_.get());
        order_timer.end();
        order_timed = true;
      } else {
        order = survey_and_build(raw.get(), n, static_cast<uint32_t>(first), source, found.build_ms);
      }
    }
    chunk_phases.mark("upload and order");
    DeviceArray<double> source_truth;
    if (!exact_floats) source_truth = upload_truth(source.truth, lo, span, found);
    chunk_phases.mark("source truth upload");
    // Tiles always need both (the squared distance and the nearest, for the minimum over the tiles). Kept
    // distances are written straight into the direction's array on the device.
    const bool keep = work.kept != nullptr && !tiled;
    const bool want_distance = tiled || work.out.distance != nullptr;
    const bool want_nearest = tiled || work.out.nearest != nullptr;
    DeviceArray<double> distance;
    DeviceArray<int64_t> nearest;
    if (want_distance && !keep) distance = DeviceArray<double>(memory_, span);
    if (want_nearest) nearest = DeviceArray<int64_t>(memory_, span);
    // Loose sources in the span are never searched: NaN (all bits set) tells the tiles' merge to skip them.
    if (tiled) XHD_CUDA(cudaMemsetAsync(distance.get(), 0xff, span * sizeof(double), stream_.get()));
    const unsigned blocks = blocks_for(n, kThreads);
    const unsigned group_blocks = blocks_for(uint64_t(n) * kGroup, kThreads);
    // Witnesses: the first pass's blocks, the hard passes' blocks, then the one-thread pass's over the listed.
    const uint32_t witness_slots = group_blocks + kHardBlocks + blocks;
    DeviceArray<DeviceWitness> block_best(memory_, witness_slots);
    // [0]: the host's count, [1]: the listed count, then the host's list and the listed queries.
    DeviceArray<uint32_t> lists(memory_, 2 + 2 * static_cast<size_t>(n));
    DeviceArray<float> hard_c(memory_, n);
    DeviceArray<ExactBest> hard_best(memory_, hard_best_capacity(n));
    XHD_CUDA(cudaMemsetAsync(lists.get(), 0, 2 * sizeof(uint32_t), stream_.get()));
    args.queries = order.points.get();
    args.query_count = n;
    args.first_source = lo;
    args.source_truth = source_truth.get();
    args.distance = keep ? work.kept + lo : distance.get();
    args.nearest = nearest.get();
    args.block_best = block_best.get();
    args.wide_count = lists.get();
    args.hard_count = lists.get() + 1;
    args.wide = lists.get() + 2;
    args.hard = lists.get() + 2 + n;
    args.hard_c = hard_c.get();
    args.hard_best = hard_best.get();
    args.brute_cap = hard_budget_.brute_cap;
    DeviceArray<unsigned long long> clocks;
    if (profile_) clocks = DeviceArray<unsigned long long>(memory_, 3ull * n);
    args.clocks = clocks.get();
    EventTimer timer(stream_.get());
    timer.start();
    nearest_group_kernel<kThreads><<<group_blocks, kThreads, 0, stream_.get()>>>(
        args, hard_budget_.rings);
    XHD_CUDA_LAUNCHED("nearest_group_kernel");
    // Launched whatever the count: each pass reads it on the device, and those with nothing to do return.
    hard_float_nearest<<<kHardBlocks, kHardThreads, 0, stream_.get()>>>(args);
    XHD_CUDA_LAUNCHED("hard_float_nearest");
    hard_exact_nearest<<<kHardBlocks, kHardThreads, 0, stream_.get()>>>(args);
    XHD_CUDA_LAUNCHED("hard_exact_nearest");
    NearestArgs finish = args;
    finish.block_best = block_best.get() + group_blocks;
    hard_finish<<<kHardBlocks, kHardThreads, 0, stream_.get()>>>(finish);
    XHD_CUDA_LAUNCHED("hard_finish");
    NearestArgs listed = args;
    listed.block_best = block_best.get() + group_blocks + kHardBlocks;
    listed_nearest_kernel<<<blocks, kThreads, 0, stream_.get()>>>(listed);
    XHD_CUDA_LAUNCHED("listed_nearest_kernel");
    if (!tiled) {
      reduce_witness_kernel<<<1, kReduceThreads, 0, stream_.get()>>>(block_best.get(), witness_slots);
      XHD_CUDA_LAUNCHED("reduce_witness_kernel");
    }
    timer.end();
    chunk_phases.mark("buffers and launches");

    const auto download_start = std::chrono::steady_clock::now();
    DeviceWitness chunk_best{-1.0, 0xffffffffu, 0xffffffffu};
    uint32_t wide_count = 0;
    if (!tiled)
      XHD_CUDA(
          cudaMemcpyAsync(&chunk_best, block_best.get(), sizeof(chunk_best), cudaMemcpyDeviceToHost, stream_.get()));
    XHD_CUDA(cudaMemcpyAsync(&wide_count, lists.get(), sizeof(wide_count), cudaMemcpyDeviceToHost, stream_.get()));
    // Untiled: straight into the caller's arrays. Loose sources and unfinished queries inside [lo, hi] receive
    // what the device left there; they are written again on the host after every worker is done.
    // Tiled: into this worker's buffers, for the running minima below.
    double* distance_to = work.out.distance != nullptr && work.download ? work.out.distance + lo : nullptr;
    int64_t* nearest_to = work.out.nearest != nullptr ? work.out.nearest + lo : nullptr;
    if (tiled) {
      tile_d2.resize(span);
      tile_to.resize(span);
      distance_to = tile_d2.data();
      nearest_to = tile_to.data();
    }
    if (distance_to != nullptr)
      XHD_CUDA(
          cudaMemcpyAsync(distance_to, args.distance, span * sizeof(double), cudaMemcpyDeviceToHost, stream_.get()));
    if (nearest_to != nullptr)
      XHD_CUDA(
          cudaMemcpyAsync(nearest_to, nearest.get(), span * sizeof(int64_t), cudaMemcpyDeviceToHost, stream_.get()));
    XHD_CUDA(cudaStreamSynchronize(stream_.get()));
    if (wide_count > 0) {
      const size_t at = found.wide.size();
      found.wide.resize(at + wide_count);
      XHD_CUDA(cudaMemcpy(found.wide.data() + at, lists.get() + 2, wide_count * sizeof(uint32_t),
                          cudaMemcpyDeviceToHost));
    }
    found.download_ms += ms_since(download_start);
    chunk_phases.mark("wait and downloads");
    found.query_ms += timer.ms();
    if (order_timed) found.build_ms += order_timer.ms();
    if (profile_) print_clocks(clocks, n);
    if (!tiled && chunk_best.from != 0xffffffffu) found.witness.offer(chunk_best.dist2, chunk_best.from, chunk_best.to);
    if (tiled) {
      // The running minimum: the smaller squared distance, ties to the smaller input index (the unique
      // targets keep the input's order, so that is the tie rule of one resident target).
      const int threads = std::max(1, host_threads_);
      parallel_blocks(span, 1 << 16, threads, [&](size_t begin, size_t end, int) {
        merge_tile(end - begin, tile_d2.data() + begin, tile_to.data() + begin, work.running_d2.data() + lo + begin,
                   work.running_to.data() + lo + begin);
      });
    }
    ++found.chunks;
  }

  DeviceArray<float> upload_floats(const float* xyz, uint64_t first, uint32_t count, WorkerFound& found) {
    const auto start = std::chrono::steady_clock::now();
    DeviceArray<float> raw(memory_, 3ull * count);
    if (count > 0) copy_to_device(raw.get(), xyz + 3 * first, 12ull * count, stream_.get());
    found.upload_ms += ms_since(start);
    return raw;
  }

  // Points [first, first + count) of a set's truth in double (a float32 truth widened on the host).
  DeviceArray<double> upload_truth(const PointTruth& truth, uint64_t first, uint64_t count, WorkerFound& found) {
    if (truth.f64 != nullptr) return upload_array(truth.f64 + 3 * first, 3 * count, found);
    std::vector<double> widened(3 * count);
    parallel_blocks(count, 1 << 16, host_threads_, [&](size_t begin, size_t end, int) {
      for (size_t i = begin; i < end; ++i)
        for (int c = 0; c < 3; ++c) widened[3 * i + c] = truth.f32[3 * (first + i) + c];
    });
    return upload_array(widened.data(), widened.size(), found);  // copy_to_device has read it all on return
  }

  template <class T>
  DeviceArray<T> upload_array(const T* host, size_t count, WorkerFound& found) {
    if (count == 0) return DeviceArray<T>();
    const auto start = std::chrono::steady_clock::now();
    DeviceArray<T> out(memory_, count);
    copy_to_device(out.get(), host, count * sizeof(T), stream_.get());
    found.upload_ms += ms_since(start);
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

  // XHD_CUDA_PROFILE: the first pass's cycles per query (first lanes), by quantile, and the slowest blocks'.
  void print_clocks(const DeviceArray<unsigned long long>& clocks, uint32_t n) {
    std::vector<unsigned long long> host(3ull * n);
    XHD_CUDA(cudaMemcpyAsync(host.data(), clocks.get(), host.size() * 8, cudaMemcpyDeviceToHost, stream_.get()));
    XHD_CUDA(cudaStreamSynchronize(stream_.get()));
    for (int part = 0; part < 3; ++part) {
      std::vector<unsigned long long> v(n);
      for (uint32_t i = 0; i < n; ++i) v[i] = host[3ull * i + part];
      std::vector<unsigned long long> block_max;
      for (uint32_t b = 0; b < n; b += kThreads)
        block_max.push_back(*std::max_element(v.begin() + b, v.begin() + std::min<uint32_t>(n, b + kThreads)));
      std::sort(v.begin(), v.end());
      std::sort(block_max.begin(), block_max.end());
      const char* names[3] = {"float pass cycles", "exact pass cycles", "float nearest found"};
      std::fprintf(stderr, "xhd-profile %-20s p50 %llu p90 %llu p99 %llu max %llu; block max p50 %llu p90 %llu\n",
                   names[part], v[n / 2], v[uint64_t(n) * 9 / 10], v[uint64_t(n) * 99 / 100], v[n - 1],
                   block_max[block_max.size() / 2],
                   block_max[block_max.size() * 9 / 10]);
    }
  }

  static void describe(const DeviceGrid& g, WorkerFound& out) {
    float side = 0.f;
    for (int i = 0; i < 3; ++i) {
      out.grid_dims[i] = 1u << g.frame.bits[i];
      if (g.frame.bits[i] > 0) side = std::max(side, g.frame.cell[i]);
    }
    out.cell_size = side;
  }

  int device_;
  const xhd_hausdorff_options& options_;
  int host_threads_;
  const Progress& progress_;
  Stream stream_;
  DeviceMemory memory_;
  HardBudget hard_budget_;
  bool profile_;
  CostModel cost_{};
};

// Runs one direction on every worker and settles on the host what the devices left: the queries they could
// not finish and the loose sources; then the outputs and the witness, the same whatever the workers.
class PointsRun {
 public:
  PointsRun(const PointFrame& frame, int host_threads, const xhd_hausdorff_options& options, const Progress& progress,
            const Placement& placement, xhd_hausdorff_result& result, PlacementReport& report, KeptDistances* kept)
      : frame_(frame),
        host_threads_(host_threads),
        options_(options),
        progress_(progress),
        placement_(placement),
        budgets_(worker_budgets(placement)),
        labels_(worker_labels(placement)),
        result_(result),
        report_(report),
        kept_(kept) {}

  void direction(const FramedSet& source, const FramedSet& target_set, PerPointOut out, xhd_directed& result) {
    HostPhases phases(&source == &frame_.a ? "points a->b" : "points b->a");
    const int workers = static_cast<int>(placement_.devices.size());
    const FramedSet target = unique_targets(target_set, host_threads_);
    phases.mark("unique targets");
    const InsideCube target_inside(target);
    const InsideCube source_inside(source);
    phases.mark("inside copies");
    DirectionWork work;
    work.frame = &frame_;
    work.source = &source;
    work.target = &target;
    work.source_inside = &source_inside;
    work.target_inside = &target_inside;
    work.out = out;
    const int side = &source == &frame_.a ? 0 : 1;  // A -> B, or B -> A
    if (kept_ != nullptr) {
      work.kept = kept_->device[side];
      work.download = kept_->returned[side];
    }
    for (size_t k = 0; k < target.loose.size(); ++k) {
      for (int c = 0; c < 3; ++c) work.loose_xyz.push_back(target.truth.coord(target.loose[k], c));
      work.loose_input.push_back(static_cast<uint32_t>(target.input_of(target.loose[k])));
    }
    const uint64_t least_budget = *std::min_element(budgets_.begin(), budgets_.end());
    work.plan = plan_tiles(target, target_inside.count, frame_.tight.copies_exact, least_budget);
    {
      std::lock_guard<std::mutex> lock(merge_);
      report_.target_tiles = std::max(report_.target_tiles, work.plan.tiles);
    }
    const uint64_t queries = source_inside.count;
    // Pieces: all the queries for one worker (chunked by its memory, as before the split), else about eight
    // a worker.
    work.piece = piece_size(queries, workers, UINT64_MAX);
    work.queue = std::make_unique<PieceQueue>(queries, work.piece);
    if (work.plan.tiles > 1) {
      work.running_d2.assign(source.count, INFINITY);
      work.running_to.assign(source.count, XHD_NO_INDEX);
      // Each tile measures every query once more: the bar counts query-tiles.
      progress_.add_to_total(queries * (work.plan.tiles - 1));
    }

    std::vector<WorkerFound> found(workers);
    run_workers(
        labels_,
        [&](int w) {
          XHD_CUDA(cudaSetDevice(placement_.devices[w]));
          HostPhases worker_phases("points worker");
          PointsWorker worker(placement_.devices[w], budgets_[w], options_, workers > 1 ? 1 : host_threads_, progress_);
          worker_phases.mark("set-up (stream, budget)");
          worker.run(work, w, workers, found[w]);
          worker_phases.mark("run");
        },
        [&] { work.queue->abandon(); });
    phases.mark("device workers");

    // What every worker found, then the host's part.
    const auto host_start = std::chrono::steady_clock::now();
    PerPointWitness witness;
    std::vector<uint32_t> wide;
    xhd_directed counters{};
    std::unique_lock<std::mutex> merging(merge_);  // the run's totals: the other direction may be running too
    for (const WorkerFound& f : found) {
      witness.merge(f.witness);
      wide.insert(wide.end(), f.wide.begin(), f.wide.end());
      counters.build_ms = std::max(counters.build_ms, f.build_ms);
      counters.query_ms = std::max(counters.query_ms, f.query_ms);
      counters.distance_evals += f.evals;
      upload_ms_ = std::max(upload_ms_, f.upload_ms);
      download_ms_ = std::max(download_ms_, f.download_ms);
      peak_ = std::max(peak_, f.peak);
      chunks_ = std::max(chunks_, f.chunks);
    }
    merging.unlock();
    for (int k = 0; k < 3; ++k) result.grid_dims[k] = found[0].grid_dims[k];
    result.cell_size = found[0].cell_size;
    // A query may be left unfinished by several tiles: settled once.
    std::sort(wide.begin(), wide.end());
    wide.erase(std::unique(wide.begin(), wide.end()), wide.end());
    if (work.plan.tiles > 1) take_running_minima(work, source, wide, witness);

    std::vector<SourceNearest> settled;
    if (!wide.empty()) {
      std::vector<double> dist2(wide.size());
      std::vector<uint32_t> nearest(wide.size());
      nearest_on_host(frame_, source, target, wide, host_threads_, dist2, nearest);
      for (size_t k = 0; k < wide.size(); ++k) settled.push_back({wide[k], dist2[k], nearest[k]});
    }
    const std::vector<SourceNearest> loose = settle_loose_sources(frame_, source, target, host_threads_);
    settled.insert(settled.end(), loose.begin(), loose.end());
    KeptDistances::Settled* listed = kept_ != nullptr && work.plan.tiles == 1 ? &kept_->settled[side] : nullptr;
    if (kept_ != nullptr) kept_->whole_on_host[side] = work.plan.tiles > 1;
    for (const SourceNearest& s : settled) {
      const int64_t to = target.input_of(s.target);
      if (out.distance != nullptr) out.distance[s.source] = std::sqrt(s.dist2);
      if (out.nearest != nullptr) out.nearest[s.source] = to;
      if (listed != nullptr) {
        listed->index.push_back(s.source);
        listed->value.push_back(std::sqrt(s.dist2));
      }
      witness.offer(s.dist2, s.source, to);
    }
    progress_.add(source.loose.size());
    const double host_ms = ms_since(host_start);
    phases.mark("host settle");

    witness.write(result);
    result.build_ms = counters.build_ms;
    result.query_ms = result.exact_ms = counters.query_ms + host_ms;
    result.distance_evals = counters.distance_evals;
    result.exact_checks = source.count;
  }

  void finish() {
    result_.upload_ms = upload_ms_;
    result_.download_ms = download_ms_;
    result_.peak_device_bytes = peak_;
    result_.device = placement_.devices[0];
    result_.query_chunks = chunks_;
    report_.workers = static_cast<uint32_t>(placement_.devices.size());
  }

 private:
  // Tiled: every query the devices finished in every tile takes its running minimum; its outputs and the
  // witness from it. The unfinished (wide) and the loose sources are settled after, on the host.
  void take_running_minima(const DirectionWork& work, const FramedSet& source, const std::vector<uint32_t>& wide,
                           PerPointWitness& witness) const {
    std::vector<unsigned char> later(source.count, 0);
    for (const uint32_t i : wide) later[i] = 1;
    for (const uint32_t i : source.loose) later[i] = 1;
    std::vector<PerPointWitness> best(host_threads_);
    parallel_blocks(source.count, 1 << 16, host_threads_, [&](size_t begin, size_t end, int tid) {
      for (size_t i = begin; i < end; ++i) {
        if (later[i]) continue;
        const double d2 = work.running_d2[i];
        if (work.out.distance != nullptr) work.out.distance[i] = std::sqrt(d2);
        if (work.out.nearest != nullptr) work.out.nearest[i] = work.running_to[i];
        best[tid].offer(d2, static_cast<int64_t>(i), work.running_to[i]);
      }
    });
    for (const PerPointWitness& w : best) witness.merge(w);
  }

  const PointFrame& frame_;
  int host_threads_;
  const xhd_hausdorff_options& options_;
  const Progress& progress_;
  const Placement& placement_;
  std::vector<uint64_t> budgets_;
  std::vector<std::string> labels_;
  xhd_hausdorff_result& result_;
  PlacementReport& report_;
  KeptDistances* kept_;
  std::mutex merge_;  // guards the totals below and report_ while both directions run at once
  double upload_ms_ = 0, download_ms_ = 0;
  uint64_t peak_ = 0;
  uint32_t chunks_ = 0;
};

// Both directions run at once (each on its own stream) when one device serves sets of at most this many points
// together: a small pair's search is mostly waits on short kernels and copies, which two streams overlap, and
// memory is no concern at this size. Larger sets run one direction after the other, each with the whole device.
constexpr uint64_t kConcurrentDirectionsMaxPoints = uint64_t(1) << 22;

}  // namespace

void gpu_points_compare(const xhd_points& a, const xhd_points& b, const xhd_hausdorff_options& options,
                        const xhd_per_point& per_point, const Progress& progress, xhd_hausdorff_result& result,
                        const Placement& placement, PlacementReport& report, KeptDistances* kept) {
  HostPhases phases("points");
  const int host_threads = resolve_thread_count(options.threads);
  PointFrame frame;
  frame_points(a, &b, host_threads, frame);
  trust_distinct(frame, options);
  phases.mark("frame");
  sample_duplicates(frame, host_threads);  // each set is a target in one direction; the directions may run at once
  phases.mark("duplicates sampled");
  for (int k = 0; k < 3; ++k) result.origin[k] = frame.origin[k];
  const int directions = options.directions;
  progress.set_total(((directions & XHD_DIRECTION_AB) ? frame.a.count : 0) +
                     ((directions & XHD_DIRECTION_BA) ? frame.b.count : 0));
  PointsRun run(frame, host_threads, options, progress, placement, result, report, kept);
  const bool both = (directions & XHD_DIRECTION_AB) != 0 && (directions & XHD_DIRECTION_BA) != 0;
  if (both && placement.devices.size() == 1 && frame.a.count + frame.b.count <= kConcurrentDirectionsMaxPoints &&
      switched_on("XHD_CUDA_CONCURRENT_DIRECTIONS")) {
    // B -> A on a helper thread (beside.h), A -> B here; a failure of either is the call's (A -> B's first:
    // leaving by it waits for B -> A, which reads this frame).
    Beside ba([&] { run.direction(frame.b, frame.a, per_point_ba(per_point), result.ba); });
    run.direction(frame.a, frame.b, per_point_ab(per_point), result.ab);
    ba.join();
  } else {
    if (directions & XHD_DIRECTION_AB) run.direction(frame.a, frame.b, per_point_ab(per_point), result.ab);
    if (directions & XHD_DIRECTION_BA) run.direction(frame.b, frame.a, per_point_ba(per_point), result.ba);
  }
  run.finish();
  phases.mark("both directions");
}

}  // namespace xhd
