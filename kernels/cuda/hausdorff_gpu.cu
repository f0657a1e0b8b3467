#include "hausdorff_gpu.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <cstdlib>
#include <string>

#include "../geometry/inside_cube.h"
#include "../geometry/slab_split.h"
#include "../abi/env_switch.h"
#include "../abi/host_phases.h"
#include "../abi/parallel.h"
#include "../geometry/unique_points.h"
#include "cost_model.h"
#include "device_grid.h"
#include "device_session.h"
#include "early_upload.h"
#include "eb_directed.h"
#include "exact_refine.h"
#include "loose_device.h"
#include "slab_exchange.h"
#include "slab_queries.h"
#include "slab_upload.h"
#include "staged_upload.h"
#include "xhd_directed.h"
#include "../abi/work_split.h"
#include "placement.h"

namespace xhd {
namespace {

// Device bytes per query point of the X-HD search state (cmin, two worklists, heavy list, flag, survivor) and
// the fixed WL_Heavy.
uint64_t query_state_bytes(uint64_t n) {
  return 25 * n + 8ull * std::min<uint64_t>(std::max<uint64_t>(n, 65536), 1u << 22) + (1u << 20);
}

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
  copy_to_device(raw.get(), xyz + 3 * first, 12 * count, stream);
  t.upload += timer.stop();
  return raw;
}

void describe_grid(const DeviceGrid& g, xhd_directed& out) {
  float side = 0.f;
  for (int i = 0; i < 3; ++i) {
    out.grid_dims[i] = 1u << g.frame.bits[i];
    if (g.frame.bits[i] > 0) side = std::max(side, g.frame.cell[i]);
  }
  out.cell_size = side;
}

// One direction's queries shared among workers (work_split.h): pieces of the inside source positions and
// the running cmax word, which any worker's query may raise for all.
struct DirectionShare {
  PieceQueue* queue;
  SharedWord* cmax;
  bool settles_loose_sources;  // one worker settles the loose sources, which no piece holds
  int worker;                  // this worker's number (its failures are named by it)
};

// Device bytes per query of a chunk beside a resident target (raw, grid, keys, cells, nodes, state,
// survivors), and the fixed part: WL_Heavy's floor, scratch and the search's own.
constexpr uint64_t kChunkedQueryBytes = 12 + 16 + 8 + 8 + 24 * 4 + 17 + 8 + 8;
uint64_t chunked_fixed_bytes(const DirectedSearch& search, uint64_t target) {
  return (8ull << 16) + (4u << 20) + search.target_bytes(target);
}

// One worker's part of one set split by space (slab_split.h), as run_slabs takes it: gathered from the whole
// set by its layout (the grids then name points by the set's indices), or uploaded from a copy of the part
// (slab_parts; the grids name points by the part's positions). Its points in the slab are the queries of the
// direction it is the source of.
struct SlabSide {
  const FramedSet* set;      // gathered: the whole set; copied: the part
  const SlabLayout* layout;  // gathered only, with the slab w
  int w;
  const uint8_t* in_slab;  // copied only: the part's flags
  uint64_t count;          // the part's points
  uint64_t slab_count;
};

// Device bytes of one worker's slab run (run_slabs): both parts resident with their grids, both directions'
// queries, the larger one's search state and survivors, the parts' set indices and flags, and the layout's
// bits and scan while a set's part is placed (set_points: the larger set's points, 0 for copied parts).
uint64_t slab_run_bytes(uint64_t na, uint64_t nb, uint64_t qa, uint64_t qb, uint64_t set_points,
                        uint64_t search_bytes) {
  const uint64_t queries = std::max(qa, qb);
  return resident_set_bytes(na) + resident_set_bytes(nb) + 16 * (qa + qb) + 8 * queries + query_state_bytes(queries) +
         5 * (na + nb) + 24 * ((set_points + 63) / 64) + search_bytes + (4u << 20);
}

class GpuRun {
 public:
  GpuRun(const PointFrame& frame, int host_threads, const xhd_hausdorff_options& o, const Progress& progress,
         xhd_hausdorff_result& result, DirectedSearch search)
      : GpuRun(frame, host_threads, o, progress, result, search, device_memory_budget(o.device)) {}

  GpuRun(const PointFrame& frame, int host_threads, const xhd_hausdorff_options& o, const Progress& progress,
         xhd_hausdorff_result& result, DirectedSearch search, uint64_t budget)
      : search_(search),
        frame_(frame),
        a_{frame.a.xyz, frame.a.count, nullptr},
        b_{frame.b.xyz, frame.b.count, nullptr},
        inside_a_(frame.a),
        inside_b_(frame.b),
        host_threads_(host_threads),
        options_(o),
        progress_(progress),
        result_(result),
        memory_(budget, stream_.get()) {
    // Measured once per device within what is free: a small memory limit bounds the search, not this table.
    DeviceMemory probe(device_memory_budget(o.device), stream_.get());
    cost_ = measure_cost_model(probe, o.device, stream_.get());
  }

  // This worker's share of one direction (X-HD): the target's grid resident on its device, the pieces it
  // takes from share's queue in chunks, each put in Morton order by a grid of its own, the cmax word
  // exchanged with the other workers between chunks; its survivors settled in double. out holds the best of
  // its pieces (from_index XHD_NO_INDEX when every one of its queries was set aside by another's bound).
  void run_share(const FramedSet& source, const FramedSet& target, bool a_to_b, const DirectionShare& share,
                 xhd_directed& out) {
    const InsideCube& source_inside = a_to_b ? inside_a_ : inside_b_;
    const InsideCube& target_inside = a_to_b ? inside_b_ : inside_a_;
    run_grid_chunked(source, source_inside, target, target_inside, out, &share);
    result_.upload_ms = timings_.upload;
    result_.download_ms = timings_.download;
    result_.peak_device_bytes = memory_.peak();
    result_.device = options_.device;
  }

  // This worker's slab of the directions asked (slab_split.h): its parts of A and B resident, each part's grid
  // the index of one direction and, through its points in the slab, the order of the other's queries. A
  // direction whose slab holds queries but whose target part is empty is left with distance +inf (its halo
  // was too small). Indices in the sets' for gathered parts, in the parts' for copied ones.
  void run_slabs(const SlabSide& sa, const SlabSide& sb, int directions, SharedWord& cmax_ab, SharedWord& cmax_ba,
                 xhd_directed& out_ab, xhd_directed& out_ba) {
    const bool ab = (directions & XHD_DIRECTION_AB) != 0, ba = (directions & XHD_DIRECTION_BA) != 0;
    const uint64_t set_points = std::max(sa.layout ? sa.layout->count : 0, sb.layout ? sb.layout->count : 0);
    check_slab_fits(sa.count, sb.count, ab ? sa.slab_count : 0, ba ? sb.slab_count : 0, set_points);
    DevicePart part_a = upload_side(sa);
    DevicePart part_b = upload_side(sb);
    search_parts(std::move(part_a), std::move(part_b), directions, cmax_ab, cmax_ba, out_ab, out_ba);
  }

  // run_slabs with this worker's parts made by the GPUs (slab_exchange.h), at the same time as the others'.
  // Indices in the sets'.
  void run_exchanged_slabs(SlabExchange& exchange, int w, int directions, SharedWord& cmax_ab, SharedWord& cmax_ba,
                           xhd_directed& out_ab, xhd_directed& out_ba) {
    std::array<DevicePart, 2> parts = exchange_parts(memory_, exchange, w, stream_.get(), timings_.upload);
    const bool ab = (directions & XHD_DIRECTION_AB) != 0, ba = (directions & XHD_DIRECTION_BA) != 0;
    check_slab_fits(parts[0].count, parts[1].count, ab ? parts[0].slab_count : 0, ba ? parts[1].slab_count : 0, 0);
    search_parts(std::move(parts[0]), std::move(parts[1]), directions, cmax_ab, cmax_ba, out_ab, out_ba);
  }

  // A slab run's parts of na and nb points, with qa and qb queries, fit this worker's memory (DeviceMemoryShort
  // otherwise: the call falls back to the split by queries, or to tiles).
  void check_slab_fits(uint64_t na, uint64_t nb, uint64_t qa, uint64_t qb, uint64_t set_points) const {
    const uint64_t need = slab_run_bytes(na, nb, qa, qb, set_points, search_.target_bytes(std::max(na, nb)));
    if (need > memory_.budget())
      throw DeviceMemoryShort("a slab of the compare needs about " + gib(need) + " of GPU memory; " +
                              gib(memory_.budget()) + " is available");
  }

  // The slab run's search over its parts on the device: each part's grid, both directions' queries taken by the
  // in-slab flags, the searches and their settling in double.
  void search_parts(DevicePart part_a, DevicePart part_b, int directions, SharedWord& cmax_ab, SharedWord& cmax_ba,
                    xhd_directed& out_ab, xhd_directed& out_ba) {
    const uint32_t na = static_cast<uint32_t>(part_a.count), nb = static_cast<uint32_t>(part_b.count);
    const bool ab = (directions & XHD_DIRECTION_AB) != 0, ba = (directions & XHD_DIRECTION_BA) != 0;
    const uint64_t qa = ab ? part_a.slab_count : 0, qb = ba ? part_b.slab_count : 0;
    double build_ms = 0;
    DeviceGrid grid_a, grid_b;
    {
      // A part may be empty (a slab beyond one set's points): it has no grid, and nothing is uploaded.
      EventTimer timer(stream_.get());
      timer.start();
      GridInput in_a, in_b;
      if (na > 0) in_a = survey_points(memory_, part_a.raw.get(), na, 0, stream_.get());
      if (nb > 0) in_b = survey_points(memory_, part_b.raw.get(), nb, 0, stream_.get());
      if (na > 0)
        grid_a = build_device_grid(memory_, in_a, plan_for(nb > 0 ? directed_lower_bound(in_b.bounds, in_a.bounds) : 0.0),
                                   stream_.get());
      part_a.raw.reset();
      if (nb > 0)
        grid_b = build_device_grid(memory_, in_b, plan_for(na > 0 ? directed_lower_bound(in_a.bounds, in_b.bounds) : 0.0),
                                   stream_.get());
      part_b.raw.reset();
      build_ms = timer.stop();
    }
    // Both directions' queries are taken while the grids' w still hold the parts' positions (the flags are by
    // position); then gathered parts' points, grids and queries alike, are named by their sets' indices.
    const bool queries_ab = qa > 0 && nb > 0, queries_ba = qb > 0 && na > 0;
    DeviceArray<float4> from_a, from_b;
    if (queries_ab) from_a = slab_queries(memory_, grid_a, part_a.in_slab.get(), qa, stream_.get());
    if (queries_ba) from_b = slab_queries(memory_, grid_b, part_b.in_slab.get(), qb, stream_.get());
    part_a.in_slab.reset();
    part_b.in_slab.reset();
    if (part_a.set_index.get() != nullptr) {
      rename_to_set(grid_a.points.get(), na, part_a.set_index.get(), stream_.get());
      if (queries_ab) rename_to_set(from_a.get(), qa, part_a.set_index.get(), stream_.get());
    }
    if (part_b.set_index.get() != nullptr) {
      rename_to_set(grid_b.points.get(), nb, part_b.set_index.get(), stream_.get());
      if (queries_ba) rename_to_set(from_b.get(), qb, part_b.set_index.get(), stream_.get());
    }
    part_a.set_index.reset();
    part_b.set_index.reset();
    const bool both = ab && ba;
    auto direction = [&](const DeviceGrid& index, const FramedSet& target, const DeviceArray<float4>& queries,
                         uint64_t count, const FramedSet& source, SharedWord& shared, xhd_directed& out) {
      out.build_ms = both ? build_ms / 2 : build_ms;
      out.from_index = out.to_index = XHD_NO_INDEX;
      if (count == 0) return;
      if (index.count == 0) {
        out.distance = INFINITY;
        return;
      }
      describe_grid(index, out);
      const Box box = points_box(memory_, queries.get(), count, stream_.get());
      DeviceArray<unsigned long long> cmax = fresh_cmax();
      take_shared_cmax(shared, 0, cmax.get());
      SurvivorSink sink(memory_, static_cast<uint32_t>(count), stream_.get());
      query(index, target, queries.get(), static_cast<uint32_t>(count), box, cmax.get(), sink, out);
      shared.raise(sink.last_word());
      finish_timed(source, target, index.points.get(), index.count, &index, sink, out, true);
    };
    if (ab) direction(grid_b, frame_.b, from_a, qa, frame_.a, cmax_ab, out_ab);
    if (ba) direction(grid_a, frame_.a, from_b, qb, frame_.b, cmax_ba, out_ba);
    result_.upload_ms = timings_.upload;
    result_.download_ms = timings_.download;
    result_.peak_device_bytes = memory_.peak();
    result_.device = options_.device;
  }

  // The copies of A and B that started before the frame (early_upload.h), for the resident run to take where
  // they hold its points; every other run lets them go at its start.
  void take_early(EarlyUpload* a, EarlyUpload* b) {
    early_a_ = a;
    early_b_ = b;
  }

  void run() {
    if (options_.method == XHD_METHOD_EB) {
      drop_early();
      run_eb();
    } else {
      const bool both = (options_.directions & XHD_DIRECTION_AB) && (options_.directions & XHD_DIRECTION_BA);
      const uint64_t together = resident_set_bytes(inside_a_.count) + resident_set_bytes(inside_b_.count) +
                                query_state_bytes(std::max(inside_a_.count, inside_b_.count)) +
                                search_.target_bytes(std::max(inside_a_.count, inside_b_.count));
      if (together <= memory_.budget()) {
        run_grid_resident(both);
      } else {
        drop_early();
        if (options_.directions & XHD_DIRECTION_AB)
          run_grid_chunked(frame_.a, inside_a_, frame_.b, inside_b_, result_.ab);
        if (options_.directions & XHD_DIRECTION_BA)
          run_grid_chunked(frame_.b, inside_b_, frame_.a, inside_a_, result_.ba);
      }
    }
    result_.upload_ms = timings_.upload;
    result_.download_ms = timings_.download;
    result_.peak_device_bytes = memory_.peak();
    result_.device = options_.device;
  }

 private:
  GridPlan plan_for(double radius) const { return GridPlan{cost_.ratio(), radius, options_.cell_size}; }

  // A set's points on the device for the resident run: its early copy where that holds them (the stream then
  // waits for it), else uploaded now into `raw`.
  const float* uploaded(EarlyUpload* early, const InsideCube& set, DeviceArray<float>& raw) {
    if (early != nullptr && early->holds(set.xyz, 0, set.count)) return early->take(stream_.get());
    raw = upload(memory_, set.xyz, 0, set.count, stream_.get(), timings_);
    return raw.get();
  }

  void drop_early() {
    for (EarlyUpload* e : {early_a_, early_b_})
      if (e != nullptr) *e = EarlyUpload();
  }

  // One side of a slab run on the device: a gathered part placed by its layout, or a copied part uploaded with
  // its flags (no set indices: its grids keep the part's positions).
  DevicePart upload_side(const SlabSide& side) {
    if (side.layout != nullptr) return upload_part(memory_, *side.set, *side.layout, side.w, stream_.get(), timings_.upload);
    DevicePart p;
    p.count = side.count;
    p.slab_count = side.slab_count;
    if (p.count == 0) return p;
    p.raw = upload(memory_, side.set->xyz, 0, p.count, stream_.get(), timings_);
    p.in_slab = DeviceArray<uint8_t>(memory_, p.count);
    copy_to_device(p.in_slab.get(), side.in_slab, p.count, stream_.get());
    return p;
  }

  // Surveys and sorts one set's inside points (from position base of its inside copy) into its grid, named
  // by the set's indices; `radius` is r0 of the direction it indexes (0 if none).
  DeviceGrid survey_and_build(const float* raw, uint32_t n, uint32_t base, const FramedSet& set, double radius,
                              double& ms) {
    EventTimer timer(stream_.get());
    timer.start();
    const GridInput input = survey_points(memory_, raw, n, base, stream_.get());
    DeviceGrid g = build_device_grid(memory_, input, plan_for(radius), stream_.get());
    restore_original_indices(memory_, g, set.loose, stream_.get());
    ms += timer.stop();
    return g;
  }

  // The X-HD search over the points inside the frame's cube, with its tight bounds (point_frame.h).
  void query(const DeviceGrid& target, const FramedSet& target_set, const float4* queries, uint32_t count,
             const Box& source_bounds, unsigned long long* cmax, SurvivorSink& sink, xhd_directed& out) {
    EventTimer timer(stream_.get());
    timer.start();
    const SurvivorList survivors{sink.entries(), sink.count(), sink.capacity()};
    const DirectedStats s = search_.run(memory_,
                                        DirectedRun{&target, queries, count, source_bounds, cmax, &progress_,
                                                    &frame_.tight, survivors, loose_gate(frame_, target_set)},
                                        stream_.get());
    out.query_ms += timer.stop();
    timings_.download += sink.drain(cmax, frame_.tight);
    out.distance_evals += s.distance_evals;
    out.pruned_queries += s.pruned_queries;
    out.fallback_queries += s.radius_queries;
  }

  // Settles the direction's survivors in double (exact_refine.h), after its last run's drain.
  // With a grid (X-HD), the float search ran with the tight bounds and without the loose points.
  void finish_timed(const FramedSet& source, const FramedSet& target, const float4* targets, uint32_t count,
                    const DeviceGrid* grid, SurvivorSink& sink, xhd_directed& out, bool may_be_empty = false,
                    bool settle_loose_sources = true) {
    const auto start = std::chrono::steady_clock::now();
    const bool inside_only = grid != nullptr;
    RefineInput in{&frame_, &source,       &target,    inside_only ? &frame_.tight : &frame_.bounds, targets, count,
                   grid,    host_threads_, inside_only};
    in.may_be_empty = may_be_empty;
    in.settle_loose_sources = settle_loose_sources;
    refine_in_double(memory_, in, sink.kept(), sink.last_word(), stream_.get(), out);
    out.exact_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    out.query_ms += out.exact_ms;
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
    const uint32_t na = static_cast<uint32_t>(inside_a_.count), nb = static_cast<uint32_t>(inside_b_.count);
    double build_ms = 0;
    DeviceGrid grid_a, grid_b;
    {
      DeviceArray<float> raw_a, raw_b;
      const float* points_a = uploaded(early_a_, inside_a_, raw_a);
      const float* points_b = uploaded(early_b_, inside_b_, raw_b);
      EventTimer timer(stream_.get());
      timer.start();
      const GridInput in_a = survey_points(memory_, points_a, na, 0, stream_.get());
      const GridInput in_b = survey_points(memory_, points_b, nb, 0, stream_.get());
      grid_a =
          build_device_grid(memory_, in_a, plan_for(directed_lower_bound(in_b.bounds, in_a.bounds)), stream_.get());
      raw_a.reset();  // a stream-ordered free: after grid A's sort has read it
      if (early_a_ != nullptr) early_a_->release_after(stream_.get());
      grid_b =
          build_device_grid(memory_, in_b, plan_for(directed_lower_bound(in_a.bounds, in_b.bounds)), stream_.get());
      if (early_b_ != nullptr) early_b_->release_after(stream_.get());
      restore_original_indices(memory_, grid_a, frame_.a.loose, stream_.get());
      restore_original_indices(memory_, grid_b, frame_.b.loose, stream_.get());
      build_ms = timer.stop();
    }
    auto direction = [&](const DeviceGrid& index, const DeviceGrid& queries, const FramedSet& source,
                         const FramedSet& target, xhd_directed& out) {
      out.build_ms = both ? build_ms / 2 : build_ms;
      describe_grid(index, out);
      DeviceArray<unsigned long long> cmax = fresh_cmax();
      SurvivorSink sink(memory_, queries.count, stream_.get());
      query(index, target, queries.points.get(), queries.count, queries.bounds, cmax.get(), sink, out);
      finish_timed(source, target, index.points.get(), index.count, &index, sink, out);
    };
    if (options_.directions & XHD_DIRECTION_AB) direction(grid_b, grid_a, frame_.a, frame_.b, result_.ab);
    if (options_.directions & XHD_DIRECTION_BA) direction(grid_a, grid_b, frame_.b, frame_.a, result_.ba);
  }

  // The source does not fit beside the target: the target's grid stays resident and the source comes
  // in chunks, each put in Morton order by a grid of its own.
  void run_grid_chunked(const FramedSet& source, const InsideCube& source_inside, const FramedSet& target,
                        const InsideCube& target_inside, xhd_directed& out, const DirectionShare* share = nullptr) {
    const uint32_t nt = static_cast<uint32_t>(target_inside.count);
    const uint64_t target_bytes = resident_set_bytes(nt);
    const uint64_t per_query = kChunkedQueryBytes;
    const uint64_t fixed = chunked_fixed_bytes(search_, nt);
    if (target_bytes + fixed + 1024 * per_query > memory_.budget())
      throw DeviceMemoryShort("the target set of " + std::to_string(nt) + " points needs about " +
                              gib(target_bytes + fixed + 1024 * per_query) + " of GPU memory; " +
                              gib(memory_.budget()) + " is available");
    double build_ms = 0;
    DeviceGrid grid;
    {
      DeviceArray<float> raw = upload(memory_, target_inside.xyz, 0, nt, stream_.get(), timings_);
      grid = survey_and_build(raw.get(), nt, 0, target, 0.0, build_ms);
    }
    describe_grid(grid, out);
    const uint64_t queries = source_inside.count;
    // Unsigned: what is left of the budget, 0 when the target and fixed parts already take it all (never wrapped).
    const uint64_t room = memory_.budget() - std::min(memory_.budget(), memory_.in_use() + fixed);
    uint64_t chunk = std::max<uint64_t>(1, std::min<uint64_t>(queries, room / per_query));
    if (share != nullptr) chunk = std::min<uint64_t>(chunk, share->queue->piece());
    DeviceArray<unsigned long long> cmax = fresh_cmax();
    SurvivorSink sink(memory_, static_cast<uint32_t>(chunk), stream_.get());
    // Alone: every query from the first on. Shared: the pieces this worker takes.
    PieceQueue alone(queries, queries);
    PieceQueue& pieces = share != nullptr ? *share->queue : alone;
    Piece piece;
    while (pieces.next(piece)) {
      for (uint64_t first = piece.first; first < piece.first + piece.count; first += chunk) {
        progress_.check_cancel();
        const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(chunk, piece.first + piece.count - first));
        DeviceGrid order;
        {
          DeviceArray<float> raw = upload(memory_, source_inside.xyz, first, n, stream_.get(), timings_);
          order = survey_and_build(raw.get(), n, static_cast<uint32_t>(first), source, 0.0, build_ms);
        }
        if (share != nullptr) take_shared_cmax(*share->cmax, sink.last_word(), cmax.get());
        query(grid, target, order.points.get(), n, order.bounds, cmax.get(), sink, out);
        if (share != nullptr) share->cmax->raise(sink.last_word());
        ++chunks_;
      }
      if (share != nullptr) injected_fault(share->worker);
    }
    result_.query_chunks = std::max(result_.query_chunks, chunks_);
    chunks_ = 0;
    out.build_ms = build_ms;
    if (share == nullptr) {
      finish_timed(source, target, grid.points.get(), nt, &grid, sink, out);
    } else {
      finish_timed(source, target, grid.points.get(), nt, &grid, sink, out, true, share->settles_loose_sources);
    }
  }

  // Raises the device's cmax word to the largest any worker has published, when that is larger than the
  // word this worker last saw (a bound proven by another worker's query of the same direction).
  void take_shared_cmax(SharedWord& shared, unsigned long long mine, unsigned long long* device_cmax) {
    const unsigned long long best = shared.get();
    if (best <= mine) return;
    XHD_CUDA(cudaMemcpyAsync(device_cmax, &best, sizeof(best), cudaMemcpyHostToDevice, stream_.get()));
    XHD_CUDA(cudaStreamSynchronize(stream_.get()));  // `best` is on this stack frame
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
                         const FramedSet& source, const FramedSet& target, xhd_directed& out) {
      out.build_ms = prep;
      DeviceArray<unsigned long long> cmax = fresh_cmax();
      SurvivorSink sink(memory_, nq, stream_.get());
      EventTimer timer(stream_.get());
      timer.start();
      out.distance_evals =
          run_directed_eb(memory_, queries, nq, targets, nt, cmax.get(), frame_.bounds,
                          SurvivorList{sink.entries(), sink.count(), sink.capacity()}, &progress_, stream_.get());
      out.query_ms += timer.stop();
      timings_.download += sink.drain(cmax.get(), frame_.bounds);
      finish_timed(source, target, targets, nt, nullptr, sink, out);
    };
    if (options_.directions & XHD_DIRECTION_AB) direction(sa.get(), na, sb.get(), nb, frame_.a, frame_.b, result_.ab);
    if (options_.directions & XHD_DIRECTION_BA) direction(sb.get(), nb, sa.get(), na, frame_.b, frame_.a, result_.ba);
  }

  DirectedSearch search_;
  const PointFrame& frame_;
  const xhd_points a_;  // the frame's float copies, as uploaded (EB)
  const xhd_points b_;
  const InsideCube inside_a_;  // their points inside the frame's cube, as the grids are built over them (X-HD)
  const InsideCube inside_b_;
  int host_threads_;
  const xhd_hausdorff_options& options_;
  const Progress& progress_;
  xhd_hausdorff_result& result_;
  Stream stream_;
  DeviceMemory memory_;
  CostModel cost_{};
  Timings timings_;
  uint32_t chunks_ = 0;
  EarlyUpload* early_a_ = nullptr;
  EarlyUpload* early_b_ = nullptr;
};

uint64_t nothing_more(uint64_t) { return 0; }

}  // namespace

DirectedSearch grid_search() { return DirectedSearch{run_directed_xhd, nothing_more}; }

// How every GPU Hausdorff call begins: both sets framed (frame_points) with their duplicates dropped (copies of
// a point would crowd one cell that every query reaching it scans: unique_points.h), the origin in the
// result, and the progress total: a query a point of each direction asked for.
static void frame_both(const xhd_points& a, const xhd_points& b, const xhd_hausdorff_options& options, int threads,
                       const Progress& progress, xhd_hausdorff_result& result, HostPhases& phases, PointFrame& frame,
                       const std::vector<EarlyUpload*>& early = {}) {
  // The call left the coordinates' check to the framing: to the GPUs' scans of the early copies where every
  // point has one (early_upload.h), else to the host's pass over the input, which also finds the extent.
  Extent3 scanned;
  const bool on_gpus = extent_of_copies(early, scanned);
  if (on_gpus) phases.mark("copies scanned");
  frame_points(a, &b, threads, frame, nullptr, /*check_coordinates=*/!on_gpus, on_gpus ? &scanned : nullptr);
  trust_distinct(frame, options);
  phases.mark("frame");
  for (int k = 0; k < 3; ++k) result.origin[k] = frame.origin[k];
  drop_duplicates(frame, threads);
  phases.mark("duplicates");
  progress.set_total(((options.directions & XHD_DIRECTION_AB) ? frame.a.count : 0) +
                     ((options.directions & XHD_DIRECTION_BA) ? frame.b.count : 0));
}

void gpu_hausdorff(const xhd_points& a, const xhd_points& b, const xhd_hausdorff_options& options,
                   const Progress& progress, xhd_hausdorff_result& result, DirectedSearch search) {
  const int host_threads = resolve_thread_count(options.threads);
  HostPhases phases("one GPU");
  // Page-locked float inputs start their way to the GPU now, while the host frames them (early_upload.h).
  EarlyUpload early_a, early_b;
  if (options.method != XHD_METHOD_EB && a.xyz != nullptr && b.xyz != nullptr) {
    early_a = EarlyUpload::start(a.xyz, 0, a.count, options.device);
    early_b = EarlyUpload::start(b.xyz, 0, b.count, options.device);
  }
  PointFrame frame;
  frame_both(a, b, options, host_threads, progress, result, phases, frame, {&early_a, &early_b});
  // The early copies are the run's to take or let go: its budget counts them as free.
  GpuRun run(frame, host_threads, options, progress, result, search,
             device_memory_budget(options.device) + early_a.bytes() + early_b.bytes());
  run.take_early(&early_a, &early_b);
  phases.mark("run set up");
  run.run();
  phases.mark("run");
  report_input_indices(frame, result);
}

// The best of the workers' witnesses of one direction by per_point.h's rule, their squared distances
// evaluated again by exact_dist2 over the truth (the formula the refinement used), in the frame's indices.
static void merge_worker_witness(const FramedSet& source, const FramedSet& target, const xhd_directed& part,
                                 PerPointWitness& best) {
  if (part.from_index == XHD_NO_INDEX) return;
  const double d2 =
      exact_dist2(source.truth, static_cast<size_t>(part.from_index), target.truth, static_cast<size_t>(part.to_index));
  best.offer(d2, part.from_index, part.to_index);
}

namespace {

// What the workers of one split found: per worker, each direction's answer (in the frame's indices) and
// its run's transfers and peak.
struct SplitFound {
  std::vector<xhd_hausdorff_result> runs;
  std::vector<xhd_directed> ab, ba;
  explicit SplitFound(int workers) : runs(workers), ab(workers), ba(workers) {}
};

// One direction over the workers: the best witness (its squared distance in best.dist2) and the counters,
// times those of the slowest worker.
xhd_directed merge_direction(const FramedSet& source, const FramedSet& target, const std::vector<xhd_directed>& found,
                             PerPointWitness& best) {
  xhd_directed merged{};
  for (const xhd_directed& part : found) {
    merge_worker_witness(source, target, part, best);
    add_worker_counters(merged, part);
  }
  best.write(merged);
  return merged;
}

// A direction's answer from its last attempt, the work of every attempt (a split by space that did not
// settle it, then one by queries) added up.
void take_attempt(xhd_directed& into, const xhd_directed& attempt) {
  const xhd_directed before = into;
  into = attempt;
  add_run_counters(into, before);
}

void take_transfers(xhd_hausdorff_result& into, const SplitFound& found) {
  for (const xhd_hausdorff_result& run : found.runs) {
    into.upload_ms = std::max(into.upload_ms, run.upload_ms);
    into.download_ms = std::max(into.download_ms, run.download_ms);
    into.peak_device_bytes = std::max(into.peak_device_bytes, run.peak_device_bytes);
    into.query_chunks = std::max(into.query_chunks, run.query_chunks);
  }
}

struct SplitContext {
  const PointFrame& frame;
  const xhd_hausdorff_options& options;
  const Progress& progress;
  DirectedSearch (*search_for)(int);
  const Placement& placement;
  const std::vector<uint64_t>& budgets;
  const std::vector<std::string>& labels;
  int host_threads;
  std::vector<EarlyUpload>* early;  // the shares sent before the frame (start_share_uploads), or empty
  // The GPUs make the split by space's parts themselves (slab_exchange.h): decided once a call, as the decision
  // opens the devices' memory pools to each other.
  bool gpus_exchange;

  int workers() const { return static_cast<int>(placement.devices.size()); }
  xhd_hausdorff_options on(int w) const {
    xhd_hausdorff_options mine = options;
    mine.device = placement.devices[w];
    return mine;
  }
  int worker_threads() const { return std::max(1, host_threads / workers()); }
};

// The split by queries (work_split.h) of `directions`: every worker with the whole target's grid.
SplitFound split_by_queries(const SplitContext& c, int directions) {
  const int workers = c.workers();
  const uint64_t inside_a = c.frame.a.count - c.frame.a.loose.size(), inside_b = c.frame.b.count - c.frame.b.loose.size();
  PieceQueue queue_ab(inside_a, piece_size(inside_a, workers, UINT64_MAX));
  PieceQueue queue_ba(inside_b, piece_size(inside_b, workers, UINT64_MAX));
  SharedWord cmax_ab, cmax_ba;
  SplitFound found(workers);
  // Each worker does its share of A -> B, then of B -> A (a worker done with the first starts the second while
  // the others finish), on its own device, stream and copy of each target's grid.
  run_workers(
      c.labels,
      [&](int w) {
        XHD_CUDA(cudaSetDevice(c.placement.devices[w]));
        const xhd_hausdorff_options mine = c.on(w);
        GpuRun run(c.frame, c.worker_threads(), mine, c.progress, found.runs[w], c.search_for(mine.device), c.budgets[w]);
        if (directions & XHD_DIRECTION_AB)
          run.run_share(c.frame.a, c.frame.b, true, DirectionShare{&queue_ab, &cmax_ab, w == 0, w}, found.ab[w]);
        if (directions & XHD_DIRECTION_BA)
          run.run_share(c.frame.b, c.frame.a, false, DirectionShare{&queue_ba, &cmax_ba, w == 0, w}, found.ba[w]);
      },
      [&] {
        queue_ab.abandon();
        queue_ba.abandon();
      });
  return found;
}

// Whether every worker holds each direction's whole target resident beside the least chunk of queries, as
// the split by queries has it.
bool whole_targets_fit(const SplitContext& c) {
  const uint64_t largest = std::max(c.frame.a.count - c.frame.a.loose.size(), c.frame.b.count - c.frame.b.loose.size());
  for (int w = 0; w < c.workers(); ++w) {
    const uint64_t need = resident_set_bytes(largest) + chunked_fixed_bytes(c.search_for(c.placement.devices[w]), largest) +
                          1024 * kChunkedQueryBytes;
    if (need > c.budgets[w]) return false;
  }
  return true;
}

// The halos of a split by space, or none (0) when it would not pay: a part of some set would hold most of
// it, or a worker's parts would not fit its memory, as the sampled shares foresee them.
struct SlabHalos {
  double ab = 0, ba = 0;  // around the slabs of B (targets of A -> B) and of A
  bool usable = false;
};

SlabHalos plan_halos(const SplitContext& c, const SlabPlan& plan, int directions) {
  SlabHalos h;
  if (plan.slabs() < 2) return h;
  h.ab = (directions & XHD_DIRECTION_AB) ? halo_guess(c.frame.a, c.frame.b) : 0.0;
  h.ba = (directions & XHD_DIRECTION_BA) ? halo_guess(c.frame.b, c.frame.a) : 0.0;
  constexpr double kMostShare = 0.75;  // a part holding more than this of a set gains too little over the whole
  for (int w = 0; w < plan.slabs(); ++w) {
    const double share_a = part_share(c.frame.a, plan, w, h.ba), share_b = part_share(c.frame.b, plan, w, h.ab);
    if (share_a > kMostShare || share_b > kMostShare) return h;
    // The sample's shares with a margin for what it missed.
    const uint64_t na = static_cast<uint64_t>(1.1 * share_a * c.frame.a.count) + 4096;
    const uint64_t nb = static_cast<uint64_t>(1.1 * share_b * c.frame.b.count) + 4096;
    const uint64_t qa = std::min(na, c.frame.a.count), qb = std::min(nb, c.frame.b.count);
    const uint64_t set_points = std::max(c.frame.a.count, c.frame.b.count);
    if (slab_run_bytes(na, nb, qa, qb, set_points, c.search_for(c.placement.devices[w]).target_bytes(std::max(na, nb))) >
        c.budgets[w])
      return h;
  }
  h.usable = true;
  return h;
}

// Whether the split by space gathers each worker's parts from the sets (slab_split.h's layouts) rather than
// copying them first: where the float copies are the truth, so that the exact refinement reads the whole sets by
// their indices and needs no part of the truth on the device. XHD_GATHERED_SLABS=0 copies them always (tests).
bool gathers_parts(const PointFrame& frame) {
  return frame.bounds.copies_exact && frame.tight.copies_exact && switched_on("XHD_GATHERED_SLABS");
}

// The split by space (slab_split.h) of `directions`: each worker its slab's queries against its part of the
// targets. Returns the directions it settled, whose answers `result` then holds; the others are left to the
// split by queries (their work is added to result's counters).
int split_by_slabs(const SplitContext& c, const SlabPlan& plan, const SlabHalos& halos, int directions,
                   xhd_hausdorff_result& result) {
  const int workers = c.workers();
  HostPhases phases("slabs");
  // A's parts: each slab's queries of A -> B and, with the halo of B -> A, that direction's targets.
  const double halo_a = (directions & XHD_DIRECTION_BA) ? halos.ba : 0.0;
  const double halo_b = (directions & XHD_DIRECTION_AB) ? halos.ab : 0.0;
  const bool gathered = gathers_parts(c.frame);
  // Made by the GPUs where they can (slab_exchange.h); else gathered from the host's layouts, or copied.
  std::unique_ptr<SlabExchange> exchange;
  if (c.gpus_exchange)
    exchange = std::make_unique<SlabExchange>(c.frame, plan, halo_a, halo_b, workers, c.early);
  SlabLayout layout_a, layout_b;
  std::vector<SlabPart> parts_a, parts_b;
  if (exchange) {
    phases.mark("exchange set up");
  } else if (gathered) {
    layout_a = slab_layout(c.frame.a, plan, halo_a, c.host_threads);
    layout_b = slab_layout(c.frame.b, plan, halo_b, c.host_threads);
    phases.mark("layouts");
  } else {
    parts_a = slab_parts(c.frame.a, plan, halo_a, c.host_threads);
    parts_b = slab_parts(c.frame.b, plan, halo_b, c.host_threads);
    phases.mark("parts");
  }
  SharedWord cmax_ab, cmax_ba;
  SplitFound found(workers);
  run_workers(
      c.labels,
      [&](int w) {
        XHD_CUDA(cudaSetDevice(c.placement.devices[w]));
        HostPhases phases("slab " + std::to_string(w));
        const int threads = c.worker_threads();
        const xhd_hausdorff_options mine = c.on(w);
        if (exchange) {
          GpuRun run(c.frame, threads, mine, c.progress, found.runs[w], c.search_for(mine.device), c.budgets[w]);
          phases.mark("run set up");
          try {
            run.run_exchanged_slabs(*exchange, w, directions, cmax_ab, cmax_ba, found.ab[w], found.ba[w]);
          } catch (const PartnerFailed&) {
            return;  // the worker that failed reports why; nothing of this one's is read
          }
          phases.mark("run");
          return;
        }
        if (gathered) {
          const SlabSide a{&c.frame.a, &layout_a, w, nullptr, layout_a.size[w], layout_a.slab_count[w]};
          const SlabSide b{&c.frame.b, &layout_b, w, nullptr, layout_b.size[w], layout_b.slab_count[w]};
          GpuRun run(c.frame, threads, mine, c.progress, found.runs[w], c.search_for(mine.device), c.budgets[w]);
          phases.mark("run set up");
          run.run_slabs(a, b, directions, cmax_ab, cmax_ba, found.ab[w], found.ba[w]);
          phases.mark("run");
          injected_fault(w);
          return;
        }
        SlabPart a = std::move(parts_a[w]);
        SlabPart b = std::move(parts_b[w]);
        PointFrame part;
        for (int k = 0; k < 3; ++k) part.origin[k] = c.frame.origin[k];
        part.largest = c.frame.largest;
        part.largest_input = c.frame.largest_input;
        part.bounds = c.frame.bounds;
        part.cube = c.frame.cube;
        part.tight = c.frame.tight;
        part.a = std::move(a.set);
        part.b = std::move(b.set);
        GpuRun run(part, threads, mine, c.progress, found.runs[w], c.search_for(mine.device), c.budgets[w]);
        phases.mark("run set up");
        run.run_slabs(SlabSide{&part.a, nullptr, w, a.in_slab.data(), part.a.count, a.slab_count},
                      SlabSide{&part.b, nullptr, w, b.in_slab.data(), part.b.count, b.slab_count},
                      directions, cmax_ab, cmax_ba, found.ab[w], found.ba[w]);
        phases.mark("run");
        injected_fault(w);
        // Into the frame's indices (a part's input_index names each point's index in the frame's set).
        const auto to_frame = [](xhd_directed& out, const FramedSet& source, const FramedSet& target) {
          if (out.from_index == XHD_NO_INDEX) return;
          out.from_index = source.input_of(out.from_index);
          out.to_index = target.input_of(out.to_index);
        };
        to_frame(found.ab[w], part.a, part.b);
        to_frame(found.ba[w], part.b, part.a);
      },
      [&] {
        if (exchange) exchange->rendezvous().abandon();  // the others stop waiting for this worker
      });
  take_transfers(result, found);

  int settled = 0;
  for (const int d : {XHD_DIRECTION_AB, XHD_DIRECTION_BA}) {
    if (!(directions & d)) continue;
    const bool ab = d == XHD_DIRECTION_AB;
    std::vector<xhd_directed>& parts = ab ? found.ab : found.ba;
    PerPointWitness best;
    const xhd_directed merged = merge_direction(ab ? c.frame.a : c.frame.b, ab ? c.frame.b : c.frame.a, parts, best);
    bool empty_target = false;  // a slab with queries had no target within its halo
    for (const xhd_directed& p : parts) empty_target |= std::isinf(p.distance);
    take_attempt(ab ? result.ab : result.ba, merged);
    if (!empty_target && halo_settles(best.dist2, halo_gap(plan, ab ? halos.ab : halos.ba))) settled |= d;
  }
  return settled;
}

}  // namespace

void gpu_hausdorff_split(const xhd_points& a, const xhd_points& b, const xhd_hausdorff_options& options,
                         const Progress& progress, xhd_hausdorff_result& result, DirectedSearch (*search_for)(int),
                         const Placement& placement, PlacementReport& report) {
  const int host_threads = resolve_thread_count(options.threads);
  HostPhases phases("split");
  const char* asked = std::getenv("XHD_SPLIT_BY");
  const std::string split_by = asked != nullptr ? asked : "";
  // Page-locked float inputs start their way to the workers' GPUs now, a share each, while the host frames them
  // (early_upload.h); the split by space takes them if it runs, and they are let go otherwise. Not under a memory
  // limit, which they would pass, nor for one worker, which splits nothing.
  std::vector<EarlyUpload> early;
  if (split_by != "queries" && placement.memory_limit == 0 && placement.devices.size() > 1)
    early = start_share_uploads(a, b, placement.devices);
  std::vector<EarlyUpload*> shares;
  for (EarlyUpload& e : early) shares.push_back(&e);
  PointFrame frame;
  frame_both(a, b, options, host_threads, progress, result, phases, frame, shares);
  const int directions = options.directions;
  std::vector<uint64_t> budgets = worker_budgets(placement);
  // Each worker's early shares are freed as it takes them: its budget counts them as free.
  for (size_t k = 0; k < early.size(); ++k) budgets[k % budgets.size()] += early[k].bytes();
  const std::vector<std::string> labels = worker_labels(placement);
  // Not asked where the split is by queries alone: the answer opens the devices' pools to each other.
  const bool gpus_exchange = split_by != "queries" && placement.devices.size() > 1 && gathers_parts(frame) &&
                             gpus_exchange_parts(frame, placement.devices);
  const SplitContext c{frame, options, progress, search_for, placement, budgets, labels, host_threads, &early, gpus_exchange};

  // Which split: XHD_SPLIT_BY=space or =queries asks for one (tests, benchmarks). By default by space where
  // the GPUs make the parts themselves (float sets, devices that reach each other: slab_exchange.h), which on
  // the 2-GPU H200 host was the faster at 12.5M and 1B points (docs/benchmarks.md, stop 54); else by queries
  // while every worker holds a whole target resident (there the host's layouts and gathers cost more than the
  // builds they save), and by space when a target does not fit a worker, which then holds about 1/workers of
  // it rather than searching it in tiles. Loose points, beyond the bulk the slabs are cut from, keep the
  // split by queries.
  int left = directions;
  const bool by_space =
      split_by == "space" ||
      (split_by != "queries" && (!whole_targets_fit(c) || c.gpus_exchange));
  if (c.workers() > 1 && !frame.has_loose() && by_space) {
    const SlabPlan plan = plan_slabs(frame, c.workers());
    const SlabHalos halos = plan_halos(c, plan, directions);
    phases.mark("slab plan");
    if (halos.usable) {
      try {
        report.spatial_directions = static_cast<uint32_t>(split_by_slabs(c, plan, halos, directions, result));
      } catch (const OutOfMemory&) {
        // A part larger than its sample foretold: the split by queries, with tiles behind it, still fits.
        report.spatial_directions = 0;
      }
      left &= ~static_cast<int>(report.spatial_directions);
      const uint64_t again = ((left & XHD_DIRECTION_AB) ? frame.a.count : 0) + ((left & XHD_DIRECTION_BA) ? frame.b.count : 0);
      progress.add_to_total(again);
      phases.mark("split by space");
    }
  }
  early.clear();  // the shares the slabs did not take (no split by space, or its parts made on the host)
  if (left != 0) {
    const SplitFound found = split_by_queries(c, left);
    phases.mark("split by queries");
    take_transfers(result, found);
    for (const int d : {XHD_DIRECTION_AB, XHD_DIRECTION_BA}) {
      if (!(left & d)) continue;
      const bool ab = d == XHD_DIRECTION_AB;
      PerPointWitness best;
      take_attempt(ab ? result.ab : result.ba,
                   merge_direction(ab ? frame.a : frame.b, ab ? frame.b : frame.a, ab ? found.ab : found.ba, best));
    }
  }
  result.device = placement.devices[0];
  report.workers = static_cast<uint32_t>(c.workers());
  report.target_tiles = 1;
  report_input_indices(frame, result);
}

}  // namespace xhd
