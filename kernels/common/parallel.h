// A minimal fork-join loop: threads take blocks of [0, n) from a shared counter until none remain.
// Dynamic blocks keep threads busy when some queries cost far more than others.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace xhd {

inline int resolve_thread_count(int requested) {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

// Calls body(begin, end, thread_index) on blocks of at most `grain` items. The first exception thrown
// by any thread is rethrown on the caller's thread after all threads have joined.
template <class Body>
void parallel_blocks(size_t n, size_t grain, int threads, Body body) {
  if (n == 0) return;
  grain = std::max<size_t>(grain, 1);
  const size_t blocks = (n + grain - 1) / grain;
  const int workers = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), blocks));
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&](int tid) {
    try {
      for (;;) {
        const size_t block = next.fetch_add(1, std::memory_order_relaxed);
        if (block >= blocks) break;
        const size_t begin = block * grain;
        body(begin, std::min(n, begin + grain), tid);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next.store(blocks, std::memory_order_relaxed);  // stop the others early
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers > 0 ? workers - 1 : 0);
  for (int t = 1; t < workers; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace xhd
