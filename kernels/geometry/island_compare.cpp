#include "island_compare.h"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "island_orphans.h"
#include "point_frame.h"
#include "point_islands.h"
#include "../abi/env_switch.h"
#include "../abi/parallel.h"
#include "../abi/validate.h"
#include "../abi/work_split.h"

namespace xhd {
namespace {

constexpr size_t kScatterGrain = size_t(1) << 16;

// The caller's progress while the islands run one after the other. Each island's compare reports into a slot of
// its own, since it sets its own total; a watcher thread adds that slot's count to the islands already done in the
// caller's slot every few milliseconds, and passes the caller's cancel on to the island's compare.
class IslandProgress {
 public:
  IslandProgress(xhd_progress* caller, uint64_t queries) : caller_(caller), pending_(queries) {
    if (caller_ != nullptr) __atomic_store_n(&caller_->total, queries, __ATOMIC_RELAXED);
  }
  ~IslandProgress() { end_island(); }

  // The slot the next island (of `queries` queries) reports into; null when the caller has none.
  xhd_progress* begin_island(uint64_t queries) {
    if (caller_ == nullptr) return nullptr;
    pending_ -= queries;
    island_ = xhd_progress{};
    island_.total = queries;
    // A cancel already asked reaches the island before its search starts, not when the watcher first looks.
    island_.cancel = __atomic_load_n(&caller_->cancel, __ATOMIC_RELAXED);
    stop_ = false;
    watcher_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(m_);
      while (!stop_) {
        forward();
        wake_.wait_for(lock, std::chrono::milliseconds(20));
      }
    });
    return &island_;
  }

  void end_island() {
    if (!watcher_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    wake_.notify_all();
    watcher_.join();
    forward();
    done_ += __atomic_load_n(&island_.done, __ATOMIC_RELAXED);
    total_ += __atomic_load_n(&island_.total, __ATOMIC_RELAXED);
    island_ = xhd_progress{};
  }

 private:
  void forward() {
    const uint64_t done = __atomic_load_n(&island_.done, __ATOMIC_RELAXED);
    const uint64_t total = __atomic_load_n(&island_.total, __ATOMIC_RELAXED);
    __atomic_store_n(&caller_->total, total_ + total + pending_, __ATOMIC_RELAXED);
    __atomic_store_n(&caller_->done, done_ + done, __ATOMIC_RELAXED);
    if (__atomic_load_n(&caller_->cancel, __ATOMIC_RELAXED) != 0) __atomic_store_n(&island_.cancel, 1u, __ATOMIC_RELAXED);
  }

  xhd_progress* caller_;
  uint64_t pending_;        // queries of the islands not begun
  uint64_t done_ = 0, total_ = 0;  // of the islands finished
  xhd_progress island_{};
  std::thread watcher_;
  std::mutex m_;
  std::condition_variable wake_;
  bool stop_ = false;
};

// One direction's answer over the islands: the largest squared distance (exact_dist2 over the input's coordinates,
// the rule of per_point.h), among equal ones the smallest source index; the counters summed.
struct DirectedMerge {
  xhd_directed out{};
  double dist2 = -1.0;
  uint64_t largest_queries = 0;
  bool any = false;

  void add(const xhd_directed& d, const PointTruth& source, const PointTruth& target, const IslandPoints& from,
           const IslandPoints& to) {
    const uint64_t queries = from.index.size();
    if (!any || queries > largest_queries) {  // the grid the largest island used
      for (int k = 0; k < 3; ++k) out.grid_dims[k] = d.grid_dims[k];
      out.cell_size = d.cell_size;
      largest_queries = queries;
    }
    if (!any) {
      out.distance = d.distance;
      out.from_index = XHD_NO_INDEX;
      out.to_index = XHD_NO_INDEX;
      any = true;
    }
    add_run_counters(out, d);
    if (d.from_index < 0 || d.to_index < 0) return;
    const int64_t f = from.index[static_cast<size_t>(d.from_index)], t = to.index[static_cast<size_t>(d.to_index)];
    // The island's own distance, computed over the same coordinates.
    take(exact_dist2(source, static_cast<size_t>(f), target, static_cast<size_t>(t)), d.distance, f, t);
  }

  // The orphaned queries' answers (island_orphans.h), searched in double.
  void add(const OrphanAnswers& orphans) {
    if (orphans.query.empty()) return;
    if (!any) {
      out.from_index = XHD_NO_INDEX;
      out.to_index = XHD_NO_INDEX;
      any = true;
    }
    out.build_ms += orphans.build_ms;
    out.query_ms += orphans.query_ms;
    out.exact_ms += orphans.query_ms;
    out.distance_evals += orphans.evals;
    out.exact_checks += orphans.query.size();
    for (size_t i = 0; i < orphans.query.size(); ++i)
      take(orphans.dist2[i], std::sqrt(orphans.dist2[i]), orphans.query[i], orphans.nearest[i]);
  }

 private:
  void take(double d2, double distance, int64_t from, int64_t to) {
    if (out.from_index < 0 || d2 > dist2 || (d2 == dist2 && from < out.from_index)) {
      dist2 = d2;
      out.distance = distance;
      out.from_index = from;
      out.to_index = to;
    }
  }
};

// The orphaned queries' per-point outputs, at their places in the caller's arrays.
void scatter(const OrphanAnswers& orphans, double* whole_distance, int64_t* whole_nearest, int threads) {
  if (whole_distance == nullptr && whole_nearest == nullptr) return;
  parallel_blocks(orphans.query.size(), kScatterGrain, threads, [&](size_t begin, size_t end, int) {
    for (size_t i = begin; i < end; ++i) {
      const size_t at = static_cast<size_t>(orphans.query[i]);
      if (whole_distance != nullptr) whole_distance[at] = std::sqrt(orphans.dist2[i]);
      if (whole_nearest != nullptr) whole_nearest[at] = orphans.nearest[i];
    }
  });
}

// One direction's per-point outputs of an island, written at its points' places in the caller's arrays, its
// nearest targets named by their indices in the whole target set.
void scatter(const double* distance, const int64_t* nearest, const IslandPoints& from, const IslandPoints& to,
             double* whole_distance, int64_t* whole_nearest, int threads) {
  if (whole_distance == nullptr && whole_nearest == nullptr) return;
  parallel_blocks(from.index.size(), kScatterGrain, threads, [&](size_t begin, size_t end, int) {
    for (size_t i = begin; i < end; ++i) {
      const size_t at = static_cast<size_t>(from.index[i]);
      if (whole_distance != nullptr) whole_distance[at] = distance[i];
      if (whole_nearest != nullptr)
        whole_nearest[at] = nearest[i] < 0 ? nearest[i] : to.index[static_cast<size_t>(nearest[i])];
    }
  });
}

// An island's own per-point outputs, for the directions and outputs the caller wants.
struct IslandOutputs {
  std::vector<double> dist_ab, dist_ba;
  std::vector<int64_t> near_ab, near_ba;
  xhd_per_point view{};

  IslandOutputs(const xhd_per_point& wanted, size_t a_count, size_t b_count)
      : dist_ab(wanted.distance_ab != nullptr ? a_count : 0),
        dist_ba(wanted.distance_ba != nullptr ? b_count : 0),
        near_ab(wanted.nearest_ab != nullptr ? a_count : 0),
        near_ba(wanted.nearest_ba != nullptr ? b_count : 0) {
    view = xhd_per_point{wanted.distance_ab != nullptr ? dist_ab.data() : nullptr,
                         wanted.nearest_ab != nullptr ? near_ab.data() : nullptr,
                         wanted.distance_ba != nullptr ? dist_ba.data() : nullptr,
                         wanted.nearest_ba != nullptr ? near_ba.data() : nullptr};
  }
};

// The call's result over the islands: each direction merged, the transfers summed, the frame and device the
// largest island's.
struct ResultMerge {
  xhd_hausdorff_result whole;
  DirectedMerge ab, ba;
  uint64_t largest = 0;

  explicit ResultMerge(const xhd_hausdorff_result& reset) : whole(reset) {}

  void add(const xhd_hausdorff_result& r, uint64_t queries) {
    if (queries > largest) {
      whole.device = r.device;
      for (int k = 0; k < 3; ++k) whole.origin[k] = r.origin[k];
      largest = queries;
    }
    whole.upload_ms += r.upload_ms;
    whole.download_ms += r.download_ms;
    whole.peak_device_bytes = std::max(whole.peak_device_bytes, r.peak_device_bytes);
    whole.query_chunks = std::max(whole.query_chunks, r.query_chunks);
  }
};

}  // namespace

bool compare_by_islands(const xhd_points& a, const xhd_points& b, const xhd_hausdorff_options& options,
                        const xhd_per_point* per_point, xhd_hausdorff_result& result, xhd_progress* progress,
                        const IslandSearch& search, bool coordinates_checked, bool row_cuts) {
  // XHD_ISLANDS=0 searches every compare whole: what the split saves is measured so (scripts/bench-robust).
  if (options.method == XHD_METHOD_BRUTE || a.count + b.count < kIslandMinPoints || !switched_on("XHD_ISLANDS"))
    return false;
  const IslandPlan plan = plan_islands(a, &b, row_cuts);
  const int directions = options.directions;
  if (plan.islands < 2 || !island_compare_settled(plan.sample, directions, true)) return false;
  const int threads = resolve_thread_count(options.threads);
  // A bad coordinate is named by its index in the input, before any island's search would name it by its own (a GPU
  // backend leaves this check to its framing pass, which would see an island alone).
  if (!coordinates_checked) {
    check_points(&a, "A", threads);
    check_points(&b, "B", threads);
  }
  const IslandAssignment islands = assign_islands(a, b, plan, threads);
  if (!island_compare_settled(islands, directions, true)) return false;
  const bool ab = (directions & XHD_DIRECTION_AB) != 0, ba = (directions & XHD_DIRECTION_BA) != 0;
  const xhd_per_point none{};
  const xhd_per_point& wanted = per_point != nullptr ? *per_point : none;

  uint64_t queries = 0;
  for (int w = 0; w < islands.islands; ++w) queries += (ab ? islands.a_count[w] : 0) + (ba ? islands.b_count[w] : 0);
  IslandProgress island_progress(progress, queries);
  const PointTruth truth_a = truth_of(a), truth_b = truth_of(b);
  // Directions not asked for stay as the caller's checks left them (no indices), as each island's do.
  ResultMerge merged(result);
  for (int w = 0; w < islands.islands; ++w) {
    // An island of one set holds no query's nearest (island_compare_settled); its own queries, if any, are orphans,
    // searched below.
    if (islands.a_count[w] == 0 || islands.b_count[w] == 0) continue;
    const uint64_t island_queries = (ab ? islands.a_count[w] : 0) + (ba ? islands.b_count[w] : 0);
    const IslandPoints pa =
        island_points(a, islands.a_island, islands.a_first, islands.a_count[w], islands.islands, w, threads);
    const IslandPoints pb =
        island_points(b, islands.b_island, islands.b_first, islands.b_count[w], islands.islands, w, threads);
    IslandOutputs outputs(wanted, pa.index.size(), pb.index.size());
    xhd_hausdorff_result r;
    check_hausdorff_options(&options, &r);  // the island's result starts as the caller's did
    search(pa.view(), pb.view(), outputs.view, r, island_progress.begin_island(island_queries));
    island_progress.end_island();
    merged.add(r, island_queries);
    if (ab) {
      merged.ab.add(r.ab, truth_a, truth_b, pa, pb);
      scatter(outputs.dist_ab.data(), outputs.near_ab.data(), pa, pb, wanted.distance_ab, wanted.nearest_ab, threads);
    }
    if (ba) {
      merged.ba.add(r.ba, truth_b, truth_a, pb, pa);
      scatter(outputs.dist_ba.data(), outputs.near_ba.data(), pb, pa, wanted.distance_ba, wanted.nearest_ba, threads);
    }
  }
  // The orphans of each direction, after the islands: their search in double through a tree is cheap beside the
  // islands' when they are few, and they are last in the progress too.
  for (const bool from_a : {true, false}) {
    if (!(from_a ? ab : ba)) continue;
    uint64_t orphaned = 0;
    for (int w = 0; w < islands.islands; ++w)
      if (island_orphaned(islands, w, from_a)) orphaned += from_a ? islands.a_count[w] : islands.b_count[w];
    if (orphaned == 0) continue;
    const OrphanAnswers orphans =
        search_orphans(a, b, islands, from_a, threads, Progress(island_progress.begin_island(orphaned)));
    island_progress.end_island();
    (from_a ? merged.ab : merged.ba).add(orphans);
    if (from_a) scatter(orphans, wanted.distance_ab, wanted.nearest_ab, threads);
    else scatter(orphans, wanted.distance_ba, wanted.nearest_ba, threads);
  }
  if (ab) merged.whole.ab = merged.ab.out;
  if (ba) merged.whole.ba = merged.ba.out;
  result = merged.whole;
  return true;
}

}  // namespace xhd
