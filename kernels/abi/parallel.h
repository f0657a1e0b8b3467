// Fork-join on a pool of waiting threads, and a loop over blocks of [0, n) taken from a shared counter.
// The pool is kept because starting a thread costs tens of microseconds on a small VM, as much as a whole
// mesh-distance query; dynamic blocks keep threads busy when some items cost far more than others.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <condition_variable>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

namespace xhd {

// The cores this process may run on. Not std::thread::hardware_concurrency, which counts every core of the
// machine: under a Slurm task's CPU set (--cpus-per-task), taskset or a container's cpuset, a job with a
// thread per machine core would put 16 threads on 4 cores, and its pool's waiting threads would spin on the
// cores the caller needs. Node's os.availableParallelism(), which the CLI's default --threads comes from,
// counts the same way.
inline int available_cores() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return count;
  }
#endif
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

inline int resolve_thread_count(int requested) {
  return requested > 0 ? requested : available_cores();
}

// Whether a job begun beside others is cut to its share of the cores (the default), or keeps the threads it
// asks for because something else keeps the cores shared (a CoreGate, core_gate.h).
enum class PoolShare { cut, whole };

// Process-wide threads that wait between jobs: spinning for a while first, then asleep. A pool runs one job at a
// time; jobs begun at once (the lanes of `xhd batch`, the workers of a compare split among GPUs) each take the
// first idle pool of kPools, made on first use, and share the cores: a job asks for at most its share of them
// (available_cores() over the jobs running). One that finds every pool busy, or a pool thread's job asking for
// more threads, starts threads of its own.
//
// Why several pools: with one, every job begun beside another started its threads afresh. A batch of small
// mask pairs on a 32-core, 2-GPU host ran many short jobs a pair in each of its lanes; the threads' starts and
// their stacks' mapping (the process's memory map is one lock) kept it near 3 ms a pair whatever the lanes,
// the GPUs or the JavaScript threads (docs/benchmarks.md, stop 44). XHD_POOL_MODE=single gives back the one
// pool, for measuring it again.
class WorkerPool {
 public:
  static constexpr int kPools = 16;

  static WorkerPool& shared() {
    static WorkerPool* pools = new WorkerPool[kPools];
    return pools[0];
  }

  // Runs job(0) on the caller and job(t), t in [1, count), on other threads that start before job(0) has
  // returned (a thread that wakes later skips it: on a VM a sleeping thread can take milliseconds to be
  // scheduled), so job(0) alone must be able to do the whole job; count is an upper bound, cut to the
  // job's share of the cores while other jobs run. Returns when every job(t) begun has returned. job must
  // not throw.
  void run(int count, const std::function<void(int)>& job, PoolShare share = PoolShare::cut) {
    if (count <= 1) {
      if (count == 1) job(0);
      return;
    }
    // A pool thread's job, or the caller's own share of a job (job(0)) asking for threads again: the pool it
    // is part of is busy with that job, and try-locking a mutex this thread holds is undefined.
    if (inside_pool_thread() || held_pool() != nullptr) {
      run_on_new_threads(count, job);
      return;
    }
    struct Running {  // this job among those running, also when it throws
      int others = running().fetch_add(1, std::memory_order_relaxed);
      ~Running() { running().fetch_sub(1, std::memory_order_relaxed); }
    } running_job;
    const bool single = single_pool();
    // Alone, a job gets the threads it asks for (more than the cores, if asked); beside others, its share.
    if (!single && share == PoolShare::cut && running_job.others > 0)
      count = std::min(count, std::max(1, cores() / (running_job.others + 1)));
    if (count <= 1) {
      job(0);
      return;
    }
    WorkerPool* pools = &shared();
    for (int p = 0; p < (single ? 1 : kPools); ++p) {
      std::unique_lock<std::mutex> busy(pools[p].job_mutex_, std::try_to_lock);
      if (!busy.owns_lock()) continue;
      pools[p].run_here(count, job);
      return;
    }
    run_on_new_threads(count, job);
  }

  WorkerPool() = default;

 private:
  static std::atomic<int>& running() {
    static std::atomic<int> jobs{0};
    return jobs;
  }
  static int cores() {
    static const int n = available_cores();
    return n;
  }
  static bool single_pool() {
    static const bool single = [] {
      const char* v = std::getenv("XHD_POOL_MODE");
      return v != nullptr && std::string(v) == "single";
    }();
    return single;
  }

  // The pool whose job this thread is running its own share of (job(0)), or null.
  static WorkerPool*& held_pool() {
    static thread_local WorkerPool* held = nullptr;
    return held;
  }

  // The job on this pool's threads; the caller holds job_mutex_.
  void run_here(int count, const std::function<void(int)>& job) {
    bool sleepers = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (static_cast<int>(threads_.size()) < count - 1) threads_.emplace_back(&WorkerPool::serve, this);
      job_ = &job;
      wanted_ = asked_ = count - 1;
      claimed_ = 0;
      finished_.store(0, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
      sleepers = sleepers_ > 0;
    }
    if (sleepers) wake_.notify_all();
    held_pool() = this;
    job(0);
    held_pool() = nullptr;
    int started;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      wanted_ = started = claimed_;
    }
    spin_until([&] { return finished_.load(std::memory_order_acquire) == started; });
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return finished_.load(std::memory_order_relaxed) == wanted_; });
    job_ = nullptr;
  }

  // Waking a sleeping thread costs 30-70 us on a small VM, as much as a mesh-distance query's whole
  // search, and jobs come in bursts (a build's levels, a search's passes), so a thread spins a while first:
  // 200 us, a burst's gaps. It spun 2 ms until a batch of 1,000 small mask pairs on a 16-core H200 host
  // showed the cost: after every one of a pair's many short jobs every thread spun on, taking the cores
  // that reading, inflating and the other lanes' pairs needed (72 s of CPU for 11.6 s of wall time; with
  // 200 us, 17 s and 8.3 s, and with four lanes 5.6 s against 3.2 s). `distance --frames` (5,000 poses on
  // this 2-core VM) took as long with 200 us as with 2 ms; on that 16-core host the mesh-distance frames
  // (bench-distance, rings and tools, 100k and 1M) moved within -5% to +10% a frame, two runs each. XHD_POOL_SPIN_US overrides it (read once), for
  // measuring it again.
  static std::chrono::microseconds spin_time() {
    static const std::chrono::microseconds spin = [] {
      const char* v = std::getenv("XHD_POOL_SPIN_US");
      return std::chrono::microseconds(v != nullptr ? std::strtoll(v, nullptr, 10) : 200);
    }();
    return spin;
  }

  template <class Ready>
  static void spin_until(Ready ready) {
    const auto start = std::chrono::steady_clock::now();
    const auto spin = spin_time();
    for (unsigned i = 1; !ready(); ++i) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
      if (i % 64 == 0 && std::chrono::steady_clock::now() - start > spin) return;
    }
  }

  static bool& inside_pool_thread() {
    static thread_local bool inside = false;
    return inside;
  }

  static void run_on_new_threads(int count, const std::function<void(int)>& job) {
    std::vector<std::thread> threads;
    threads.reserve(count - 1);
    for (int t = 1; t < count; ++t) threads.emplace_back(job, t);
    job(0);
    for (auto& th : threads) th.join();
  }

  void serve() {
    inside_pool_thread() = true;
    uint64_t seen = 0;
    bool spin = true;
    for (;;) {
      // A thread the last job did not ask for sleeps at once: spinning, it would take a core from the
      // job's own threads (a search uses at most 8 of a 16-thread pool). One asked for but late spins:
      // the next job will want it again.
      if (spin) spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; });
      std::unique_lock<std::mutex> lock(mutex_);
      ++sleepers_;
      wake_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
      --sleepers_;
      seen = generation_.load(std::memory_order_relaxed);
      spin = claimed_ < asked_;
      if (job_ == nullptr || claimed_ >= wanted_) continue;  // a job with fewer threads than the pool has
      const int t = ++claimed_;
      const std::function<void(int)>* job = job_;
      lock.unlock();
      (*job)(t);
      lock.lock();
      if (finished_.fetch_add(1, std::memory_order_release) + 1 == wanted_) done_.notify_one();
    }
  }

  std::mutex job_mutex_;  // held by the caller for a whole job
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  const std::function<void(int)>* job_ = nullptr;
  int wanted_ = 0, claimed_ = 0, sleepers_ = 0;
  int asked_ = 0;  // threads the job asked for (wanted_ shrinks to those begun once the caller is done)
  std::atomic<int> finished_{0};
  std::atomic<uint64_t> generation_{0};  // one more per job
};

// Calls body(begin, end, thread_index) on blocks of at most `grain` items. The first exception thrown
// by any thread is rethrown on the caller's thread after all threads have finished.
template <class Body>
void parallel_blocks(size_t n, size_t grain, int threads, Body body, PoolShare share = PoolShare::cut) {
  if (n == 0) return;
  grain = std::max<size_t>(grain, 1);
  const size_t blocks = (n + grain - 1) / grain;
  const int workers = static_cast<int>(std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), blocks));
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  WorkerPool::shared().run(workers, [&](int tid) {
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
  }, share);
  if (failure) std::rethrow_exception(failure);
}

}  // namespace xhd
