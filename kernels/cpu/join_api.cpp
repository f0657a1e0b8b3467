// xhd_join on the CPU: the shared filter (geometry/join.cpp) with the object pairs refined on worker threads,
// each pair's group pairs nearest first; or, as method brute, every triangle pair (the reference).
#include <chrono>
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
              std::vector<xhd::GroupPair>& groups, double slack, std::vector<xhd::Candidate>& best,
              xhd::JoinCounters& counters) override {
    std::vector<uint64_t> tested(static_cast<size_t>(threads_), 0);
    xhd::parallel_blocks(pairs.size(), 8, threads_, [&](size_t begin, size_t end, int tid) {
      for (size_t i = begin; i < end; ++i)
        best[i] = xhd::refine_pair_on_host(a, b, pairs[i], groups.data() + pairs[i].first, slack, tested[tid]);
    });
    for (uint64_t n : tested) counters.triangle_pairs += n;
  }

 private:
  int threads_;
};

}  // namespace

extern "C" {

XHD_API int32_t xhd_join(const xhd_join_set* a, const xhd_join_set* b, const xhd_join_options* options,
                         xhd_join_result* result, xhd_progress* progress) {
  return xhd::guarded([&]() -> int32_t {
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
