// xhd_join on the CPU: the shared filter (geometry/join.cpp) with the object pairs refined on worker threads,
// each pair's group pairs nearest first; or, as method brute, every triangle pair (the reference).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <queue>
#include <cstring>

#include "../abi/elapsed.h"
#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "../geometry/join.h"

namespace {

class HostRefiner : public xhd::JoinRefiner {
 public:
  explicit HostRefiner(int threads) : threads_(threads) {}

  void refine(const xhd::GroupedSet& a, const xhd::GroupedSet& b, const std::vector<xhd::PairWork>& pairs,
              xhd::GroupPairList& groups, double slack, uint32_t knn, std::vector<xhd::Candidate>& best,
              xhd::JoinCounters& counters) override {
    std::vector<uint64_t> tested(static_cast<size_t>(threads_), 0);
    if (knn == 0) {
      xhd::parallel_blocks(pairs.size(), 8, threads_, [&](size_t begin, size_t end, int tid) {
        for (size_t i = begin; i < end; ++i)
          best[i] = xhd::refine_pair_on_host(a, b, pairs[i], groups.data() + pairs[i].first, slack, tested[tid]);
      });
    } else {
      // k-NN: each object of A's pairs nearest first, each refined only as far as the k-th smallest distance
      // found so far; a pair whose lower bound passes it cannot be among the k nearest and is left empty.
      std::vector<size_t> runs;
      for (size_t i = 0; i < pairs.size(); ++i)
        if (i == 0 || pairs[i].a != pairs[i - 1].a) runs.push_back(i);
      runs.push_back(pairs.size());
      xhd::parallel_blocks(runs.size() - 1, 1, threads_, [&](size_t begin, size_t end, int tid) {
        for (size_t r = begin; r < end; ++r) {
          std::vector<size_t> order;
          for (size_t i = runs[r]; i < runs[r + 1]; ++i) order.push_back(i);
          std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
            return pairs[x].lower != pairs[y].lower ? pairs[x].lower < pairs[y].lower : x < y;
          });
          std::priority_queue<double> nearest;  // the k smallest distances found, largest on top
          for (size_t i : order) {
            best[i] = xhd::empty_candidate<false>();
            const double kth = nearest.size() == knn ? nearest.top() : static_cast<double>(INFINITY);
            if (pairs[i].lower > kth + slack) continue;
            xhd::PairWork w = pairs[i];
            w.limit = std::min(w.limit, kth);
            best[i] = xhd::refine_pair_on_host(a, b, w, groups.data() + w.first, slack, tested[tid]);
            const double d = std::sqrt(best[i].d2);
            if (!(d <= w.threshold)) continue;
            if (nearest.size() < knn) {
              nearest.push(d);
            } else if (d < nearest.top()) {
              nearest.pop();
              nearest.push(d);
            }
          }
        }
      });
    }
    for (uint64_t n : tested) counters.triangle_pairs += n;
  }

 private:
  int threads_;
};

}  // namespace

extern "C" {

XHD_API int32_t xhd_join(const xhd_join_set* a, const xhd_join_set* b, const xhd_join_options* options,
                         xhd_join_result* result, xhd_progress* progress) {
  return xhd::guarded(progress, [&]() -> int32_t {
    if (result == nullptr) throw xhd::InvalidArgument("result must not be null");
    std::memset(result, 0, sizeof(*result));
    result->device = -1;
    if (options == nullptr) throw xhd::InvalidArgument("options must not be null");
    const int threads = xhd::resolve_thread_count(options->threads);
    const xhd::Progress report(progress);
    std::vector<xhd::JoinFound> found;
    xhd::JoinCounters counters;
    xhd::JoinTimes times;
    if (options->method == XHD_JOIN_BRUTE) {
      const auto start = std::chrono::steady_clock::now();
      xhd::brute_join(a, b, options, report, found, counters);
      times.refine_ms = xhd::elapsed_ms(start);
    } else {
      HostRefiner refiner(threads);
      xhd::run_join(a, b, options, refiner, report, found, counters, times);
    }
    xhd::fill_join_result(std::move(found), counters, times, *result);
    result->threads = threads;
    return XHD_OK;
  });
}

}  // extern "C"
