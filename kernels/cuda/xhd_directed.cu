#include "xhd_directed.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../abi/env_switch.h"
#include "cuda_check.h"
#include "launch.h"
#include "phase_log.h"
#include "search_radius.h"
#include "xhd_search.cuh"

namespace xhd {
namespace {

constexpr int kQueryThreads = 128;
constexpr int kHeavyThreads = 256;
// A cell with more points than the heavy kernel's block goes to WL_Heavy (the paper's threshold).
constexpr uint32_t kHeavyThreshold = kHeavyThreads;
// Grid stepping visits at most this many cells; a wider first radius starts in the tree instead.
constexpr int kMaxStepCells = 64;
// The warm-up: exact searches of spread samples of the queries seed cmax before the main pass. Its
// queries scan cells up to scan_limit points themselves and give up at larger ones. A short first
// stage over small cells gives a rough cmax, so that in the second, wider stage queries inside dense
// clusters (whose nearest neighbours are close) stop at their first points by early break instead of
// scanning thousands of points each.
struct WarmupStage {
  uint32_t samples;
  uint32_t scan_limit;
};
constexpr WarmupStage kWarmupStages[] = {{1024, 256}, {16384, 4096}};

__device__ void load_probe(const QueryState& st, uint32_t slot, float cmin, Probe& q) {
  const float4 a = st.queries[slot];
  q.p[0] = a.x;
  q.p[1] = a.y;
  q.p[2] = a.z;
  q.source_index = __float_as_uint(a.w);
  q.slot = slot;
  q.cmin = cmin;
  q.threshold = current_threshold(st);
}

// A query that did not stop: a survivor (unless it is a warm-up sample), and a candidate for cmax.
// Its float result stands for its nearest distance (raises cmax) only if no loose target can be nearer.
__device__ void offer(const QueryState& st, const Probe& q, bool record = true) {
  const bool raise = !st.loose.may_reach(q.p, st.bounds.upper(q.cmin));
  offer_result(st.cmax, st.survivors, q.cmin, q.source_index, record, raise);
}

// Block-wide sum of per-thread counts, one atomic per block.
__device__ void add_stats(const QueryState& st, uint32_t evals, uint32_t pruned) {
  __shared__ unsigned long long sums[2];
  if (threadIdx.x == 0) sums[0] = sums[1] = 0;
  __syncthreads();
  for (int o = 16; o > 0; o >>= 1) {
    evals += __shfl_down_sync(0xffffffffu, evals, o);
    pruned += __shfl_down_sync(0xffffffffu, pruned, o);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&sums[0], static_cast<unsigned long long>(evals));
    atomicAdd(&sums[1], static_cast<unsigned long long>(pruned));
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(&st.stats[kDistanceEvals], sums[0]);
    atomicAdd(&st.stats[kPrunedQueries], sums[1]);
  }
}

// End of a query's iteration: settled (pruned), waiting on heavy cells, done, or on to WL_Miss.
__device__ void finish_query(const QueryState& st, Probe& q, bool active, float r2) {
  bool miss = false, heavy_wait = false;
  if (active) {
    if (q.pushed_heavy) {
      st.discarded[q.slot] = q.discarded ? 1 : 0;
      st.cmin[q.slot] = q.cmin;
      heavy_wait = !q.discarded;
    } else if (!q.discarded) {
      if (q.cmin <= r2) {
        offer(st, q);
      } else {
        st.cmin[q.slot] = q.cmin;
        miss = true;
      }
    }
  }
  const uint32_t at_miss = warp_append(&st.counters[kMissCount], miss);
  if (miss) st.worklist_miss[at_miss] = q.slot;
  const uint32_t at_heavy = warp_append(&st.counters[kHeavyQueries], heavy_wait);
  if (heavy_wait) st.heavy_queries[at_heavy] = q.slot;
}

// Seeds cmax with exact nearest-neighbour distances of a spread sample of queries, so early break
// works from the first wave of the main pass. Samples that meet a cell above scan_limit are dropped.
__global__ void __launch_bounds__(kQueryThreads)
    warmup_kernel(GridView g, QueryState st, uint32_t samples, uint32_t scan_limit) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= samples) return;
  const uint32_t slot = static_cast<uint32_t>((static_cast<uint64_t>(i) * st.query_count) / samples);
  Probe q;
  load_probe(st, slot, __int_as_float(0x7f800000), q);
  tree_search(g, Radius{__int_as_float(0x7f800000), -1.f}, q, st, scan_limit, HeavyCells::kAbandon);
  if (!q.discarded && !q.abandoned) offer(st, q, false);
}

// Iteration 1 for every query: the cells within radius r of the query by direct grid stepping, own
// cell first; a radius spanning too many cells goes through the tree instead.
__global__ void __launch_bounds__(kQueryThreads) step_kernel(GridView g, QueryState st, float r, float r2) {
  const uint32_t slot = blockIdx.x * blockDim.x + threadIdx.x;
  const bool active = slot < st.query_count;
  Probe q;
  if (active) {
    load_probe(st, slot, __int_as_float(0x7f800000), q);
    const GridFrame& f = g.frame;
    int lo[3], hi[3], own[3], cells = 1;
    for (int i = 0; i < 3; ++i) {
      // Widened by the cell boxes' pad: every cell whose (padded) box is within r is stepped over.
      lo[i] = f.cell_coord(q.p[i] - r - f.pad[i], i);
      hi[i] = f.cell_coord(q.p[i] + r + f.pad[i], i);
      own[i] = f.cell_coord(q.p[i], i);
      cells *= hi[i] - lo[i] + 1;
    }
    const Radius rad{r2, -1.f};
    if (cells > kMaxStepCells) {
      tree_search(g, rad, q, st, kHeavyThreshold, HeavyCells::kOffload);
    } else if (visit_cell(g, f.key_of_cell(own), own, 0.f, rad, q, st, kHeavyThreshold, HeavyCells::kOffload)) {
      int c[3];
      bool going = true;
      for (c[2] = lo[2]; going && c[2] <= hi[2]; ++c[2])
        for (c[1] = lo[1]; going && c[1] <= hi[1]; ++c[1])
          for (c[0] = lo[0]; going && c[0] <= hi[0]; ++c[0]) {
            if (c[0] == own[0] && c[1] == own[1] && c[2] == own[2]) continue;
            going = visit_cell(g, f.key_of_cell(c), c, 0.f, rad, q, st, kHeavyThreshold, HeavyCells::kOffload);
          }
    }
  }
  finish_query(st, q, active, r2);
  add_stats(st, active ? q.evals : 0, active && q.discarded ? 1 : 0);
}

// Later iterations: the queries of WL_In search the annulus r_prev < MinDist <= r through the tree.
__global__ void __launch_bounds__(kQueryThreads)
    tree_kernel(GridView g, QueryState st, uint32_t count, float r2, float prev2) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool active = i < count;
  Probe q;
  if (active) {
    const uint32_t slot = st.worklist_in[i];
    load_probe(st, slot, st.cmin[slot], q);
    tree_search(g, Radius{r2, prev2}, q, st, kHeavyThreshold, HeavyCells::kOffload);
  }
  finish_query(st, q, active, r2);
  add_stats(st, active ? q.evals : 0, active && q.discarded ? 1 : 0);
}

// X-HD's TackleHeavyCells (Algorithm 5): one block per WL_Heavy entry resumes the query's partial cmin,
// its threads split the cell's points, and any distance below cmax stops the whole block.
__global__ void __launch_bounds__(kHeavyThreads) heavy_kernel(GridView g, QueryState st) {
  __shared__ float start_min;
  __shared__ bool skip;
  __shared__ float block_min[kHeavyThreads / 32];
  const uint32_t entries = min(st.counters[kHeavyEntries], st.heavy_capacity);
  uint32_t evals = 0;
  for (uint32_t e = blockIdx.x; e < entries; e += gridDim.x) {
    const uint2 entry = st.heavy[e];
    const uint32_t slot = entry.x, key = entry.y;
    const float4 a = st.queries[slot];
    const float p[3] = {a.x, a.y, a.z};
    const uint32_t source_index = __float_as_uint(a.w);
    int c[3];
    g.frame.cell_of_key(key, c);
    // Other blocks may be updating this query: one thread reads its state for the whole block.
    if (threadIdx.x == 0) {
      start_min = *reinterpret_cast<volatile float*>(&st.cmin[slot]);
      skip = *reinterpret_cast<volatile unsigned char*>(&st.discarded[slot]) != 0 ||
             min_dist2(p, g.frame.cell_box(c)) >= start_min;
    }
    __syncthreads();
    if (!skip) {
      float local = start_min;
      bool stop = false;
      const uint32_t begin = g.cell_start[key], end = g.cell_start[key + 1];
      for (uint32_t base = begin; base < end; base += blockDim.x) {
        const uint32_t j = base + threadIdx.x;
        const float threshold = current_threshold(st);  // once per pass of the block over the cell
        if (j < end) {
          const float4 b = g.points[j];
          const float d2 = dist2(p[0], p[1], p[2], b.x, b.y, b.z);
          ++evals;
          local = fminf(local, d2);
          // Early break for the block: within the threshold, or a certain zero.
          stop = d2 <= threshold || (d2 == 0.f && settled_at_zero(st.bounds, p, b, source_index));
        }
        if (__syncthreads_or(stop)) {
          stop = true;
          break;
        }
        if (__syncthreads_or(local == 0.f)) break;  // nothing lower can be found
      }
      if (stop) {
        if (threadIdx.x == 0) st.discarded[slot] = 1;
      } else {
        for (int o = 16; o > 0; o >>= 1) local = fminf(local, __shfl_down_sync(0xffffffffu, local, o));
        if ((threadIdx.x & 31) == 0) block_min[threadIdx.x >> 5] = local;
        __syncthreads();
        if (threadIdx.x == 0) {
          float m = block_min[0];
          for (int w = 1; w < kHeavyThreads / 32; ++w) m = fminf(m, block_min[w]);
          atomicMin(reinterpret_cast<unsigned*>(&st.cmin[slot]), __float_as_uint(m));  // non-negative floats
        }
      }
    }
    __syncthreads();  // shared state is rewritten for the next entry
  }
  for (int o = 16; o > 0; o >>= 1) evals += __shfl_down_sync(0xffffffffu, evals, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(&st.stats[kDistanceEvals], static_cast<unsigned long long>(evals));
}

// After the heavy kernel: each waiting query is settled, done, or moves on to WL_Miss.
__global__ void settle_kernel(QueryState st, float r2) {
  const uint32_t count = st.counters[kHeavyQueries];
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i - threadIdx.x < count; i += gridDim.x * blockDim.x) {
    const bool active = i < count;
    bool miss = false;
    uint32_t slot = 0;
    if (active) {
      slot = st.heavy_queries[i];
      if (!st.discarded[slot]) {
        Probe q;
        load_probe(st, slot, st.cmin[slot], q);
        if (q.cmin <= r2) {
          if (beats_cmax(q, q.cmin)) offer(st, q);
          else atomicAdd(&st.stats[kPrunedQueries], 1ull);
        } else {
          miss = true;
        }
      } else {
        atomicAdd(&st.stats[kPrunedQueries], 1ull);
      }
    }
    const uint32_t at = warp_append(&st.counters[kMissCount], miss);
    if (miss) st.worklist_miss[at] = slot;
  }
}

// The warm-up stages (kWarmupStages) over the grid, on the state `st` of a direction.
void warm_up(const GridView& g, const QueryState& st, uint32_t n, cudaStream_t stream) {
  for (const WarmupStage& stage : kWarmupStages) {
    const uint32_t samples = std::min(n, stage.samples);
    if (samples == 0) continue;
    warmup_kernel<<<blocks_for(samples, kQueryThreads), kQueryThreads, 0, stream>>>(g, st, samples, stage.scan_limit);
    XHD_CUDA_LAUNCHED("warmup_kernel");
  }
}

double box_face_gap(const Box& s, const Box& t, int axis, bool upper) {
  // Distance from one face of s (the plane axis = s.min or s.max, spanning s elsewhere) to box t.
  double sum = 0.0;
  for (int i = 0; i < 3; ++i) {
    double lo = s.min[i], hi = s.max[i];
    if (i == axis) lo = hi = upper ? s.max[i] : s.min[i];
    double gap = 0.0;
    if (hi < t.min[i]) gap = static_cast<double>(t.min[i]) - hi;
    else if (lo > t.max[i]) gap = lo - static_cast<double>(t.max[i]);
    sum += gap * gap;
  }
  return std::sqrt(sum);
}

}  // namespace

void seed_cmax_on_grid(const DirectedRun& run, cudaStream_t stream) {
  // The warm-up's kernels read only the queries, the grid, cmax, the bounds and the loose gate: the
  // per-query arrays of a full search are not needed (nothing is recorded, heavy cells are abandoned).
  QueryState st{};
  st.queries = run.queries;
  st.query_count = run.query_count;
  st.cmax = run.cmax;
  st.bounds = *run.bounds;
  st.survivors = run.survivors;
  st.loose = run.loose;
  warm_up(run.target->view(), st, run.query_count, stream);
}

double cmax_distance(const unsigned long long* cmax, cudaStream_t stream) {
  unsigned long long word = 0;
  XHD_CUDA(cudaMemcpyAsync(&word, cmax, sizeof(word), cudaMemcpyDeviceToHost, stream));
  XHD_CUDA(cudaStreamSynchronize(stream));
  return std::sqrt(static_cast<double>(distance2_of_word(word)));
}

bool seeded_first_radius() { return switched_on("XHD_SEEDED_RADIUS"); }

double directed_lower_bound(const Box& source, const Box& target) {
  double best = 0.0;
  for (int axis = 0; axis < 3; ++axis)
    for (int upper = 0; upper < 2; ++upper) best = std::max(best, box_face_gap(source, target, axis, upper != 0));
  return best;
}

double directed_upper_bound(const Box& source, const Box& target) {
  double sum = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double d = std::max(std::fabs(static_cast<double>(source.max[i]) - target.min[i]),
                              std::fabs(static_cast<double>(target.max[i]) - source.min[i]));
    sum += d * d;
  }
  return std::sqrt(sum);
}

DirectedStats run_directed_xhd(DeviceMemory& memory, const DirectedRun& run, cudaStream_t stream) {
  DirectedStats stats;
  const uint32_t n = run.query_count;
  const GridView g = run.target->view();
  const GridFrame& f = g.frame;

  DeviceArray<float> cmin(memory, n);
  DeviceArray<uint32_t> list_a(memory, n), list_b(memory, n), heavy_queries(memory, n);
  DeviceArray<unsigned char> discarded(memory, n);
  const uint32_t heavy_capacity = std::max<uint32_t>(65536, std::min<uint32_t>(n, 1u << 22));
  DeviceArray<uint2> heavy(memory, heavy_capacity);
  DeviceArray<uint32_t> counters(memory, kCounterSlots);
  DeviceArray<unsigned long long> device_stats(memory, kStatSlots);
  XHD_CUDA(cudaMemsetAsync(device_stats.get(), 0, kStatSlots * sizeof(unsigned long long), stream));

  QueryState st{};
  st.queries = run.queries;
  st.query_count = n;
  st.cmin = cmin.get();
  st.heavy_queries = heavy_queries.get();
  st.discarded = discarded.get();
  st.heavy = heavy.get();
  st.heavy_capacity = heavy_capacity;
  st.counters = counters.get();
  st.stats = device_stats.get();
  st.cmax = run.cmax;
  st.bounds = *run.bounds;
  st.survivors = run.survivors;
  st.loose = run.loose;

  int sms = 0, device = 0;
  XHD_CUDA(cudaGetDevice(&device));
  XHD_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const unsigned heavy_blocks = static_cast<unsigned>(sms * 8);

  PhaseLog log(stream);
  warm_up(g, st, n, stream);
  log.mark("warm-up queries");

  SearchRadius radius(run.source_bounds, run.target->bounds, f);
  // Queries within the seeded distance of their nearest point settle or finish in the first pass either
  // way; the others would otherwise meet every radius between one cell and it (sets far apart: a pass a
  // cell diagonal). A first radius wider than kMaxStepCells cells goes through the tree, nearest first.
  if (seeded_first_radius()) radius.start_at_least(cmax_distance(run.cmax, stream));
  if (log.enabled())
    std::fprintf(stderr, "xhd-profile grid first radius %.6g (lower bound %.6g, upper %.6g)\n", radius.radius(),
                 directed_lower_bound(run.source_bounds, run.target->bounds), radius.upper());

  uint32_t* in = list_a.get();
  uint32_t* out = list_b.get();
  uint32_t in_count = n;
  for (int iteration = 0;; ++iteration) {
    run.progress->check_cancel();
    const float r2 = radius.r2(), prev2 = radius.previous_r2();
    XHD_CUDA(cudaMemsetAsync(counters.get(), 0, kCounterSlots * sizeof(uint32_t), stream));
    st.worklist_in = in;
    st.worklist_miss = out;
    if (iteration == 0) {
      step_kernel<<<blocks_for(n, kQueryThreads), kQueryThreads, 0, stream>>>(g, st, static_cast<float>(radius.radius()), r2);
      XHD_CUDA_LAUNCHED("step_kernel");
      log.mark("iteration 1: grid stepping");
    } else {
      tree_kernel<<<blocks_for(in_count, kQueryThreads), kQueryThreads, 0, stream>>>(g, st, in_count, r2, prev2);
      XHD_CUDA_LAUNCHED("tree_kernel");
      log.mark("iteration n: tree");
      stats.radius_queries += in_count;
    }
    heavy_kernel<<<heavy_blocks, kHeavyThreads, 0, stream>>>(g, st);
    XHD_CUDA_LAUNCHED("heavy_kernel");
    settle_kernel<<<std::min(blocks_for(n, 256), heavy_blocks), 256, 0, stream>>>(st, r2);
    XHD_CUDA_LAUNCHED("settle_kernel");
    log.mark("heavy cells + settle");
    uint32_t counts[kCounterSlots];
    XHD_CUDA(cudaMemcpyAsync(counts, counters.get(), sizeof(counts), cudaMemcpyDeviceToHost, stream));
    XHD_CUDA(cudaStreamSynchronize(stream));
    stats.iterations = iteration + 1;
    const uint32_t missed = counts[kMissCount];
    if (log.enabled())
      std::fprintf(stderr, "xhd-profile grid pass r2 %.6g: %u queries, %u missed, %u waited on heavy cells\n",
                   static_cast<double>(r2), in_count, missed, counts[kHeavyQueries]);
    run.progress->add(in_count - missed);
    if (missed == 0) break;
    if (std::isinf(r2)) throw std::runtime_error("X-HD search left queries unresolved at an unbounded radius");
    radius.grow(in_count, missed);
    std::swap(in, out);
    in_count = missed;
  }
  unsigned long long host_stats[kStatSlots];
  XHD_CUDA(cudaMemcpyAsync(host_stats, device_stats.get(), sizeof(host_stats), cudaMemcpyDeviceToHost, stream));
  XHD_CUDA(cudaStreamSynchronize(stream));
  stats.distance_evals = host_stats[kDistanceEvals];
  stats.pruned_queries = host_stats[kPrunedQueries];
  return stats;
}

}  // namespace xhd
