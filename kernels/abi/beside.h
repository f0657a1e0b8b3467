// A job run beside the caller (a compare's second direction) on a long-lived helper thread rather than a thread
// started for it. A fresh thread costs its creation and, once it calls CUDA, the runtime's set-up of the thread:
// on the 2 x H200 host a stream made and one launch waited for took 0.07-0.13 ms on a thread started for them
// against 0.02 ms on one already running, and 0.33-0.9 ms against 0.21-0.26 ms with 8-16 threads doing so at
// once (docs/benchmarks.md, "Where the batch's lanes wait"), for a mask pair whose whole search takes about 2 ms.
// Helpers are started as jobs need them and then wait for the next job; they are never
// stopped (the process's end ends them), so their state is leaked on purpose rather than destroyed under them.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

namespace xhd {

class HelperThreads {
 public:
  // Runs task on an idle helper (one is started when none is idle); the future's get() waits for it and rethrows
  // its exception. When no thread can be started the task runs here, before this returns.
  static std::future<void> run(std::function<void()> task) {
    auto job = std::make_shared<std::packaged_task<void()>>(std::move(task));
    std::future<void> done = job->get_future();
    State& s = state();
    bool queued = true;
    {
      std::lock_guard<std::mutex> lock(s.m);
      s.queue.emplace_back([job] { (*job)(); });
      if (s.queue.size() > s.idle) {
        try {
          std::thread(serve).detach();
        } catch (const std::system_error&) {
          s.queue.pop_back();  // still ours: no helper has seen it
          queued = false;
        }
      }
    }
    if (!queued) {
      (*job)();  // its exception reaches the future, as a helper's would
      return done;
    }
    s.wake.notify_one();
    return done;
  }

 private:
  struct State {
    std::mutex m;
    std::condition_variable wake;
    std::deque<std::function<void()>> queue;
    size_t idle = 0;  // helpers waiting for a job
  };
  static State& state() {
    static State* s = new State;  // never destroyed: detached helpers wait on it until the process ends
    return *s;
  }
  static void serve() {
    State& s = state();
    std::unique_lock<std::mutex> lock(s.m);
    for (;;) {
      ++s.idle;
      s.wake.wait(lock, [&] { return !s.queue.empty(); });
      --s.idle;
      std::function<void()> job = std::move(s.queue.front());
      s.queue.pop_front();
      lock.unlock();
      job();  // a packaged_task: its exception is kept for the future
      lock.lock();
    }
  }
};

// A job on a helper thread, joined by join() (its exception rethrown), or on destruction when the caller leaves
// early by an exception of its own (the job may refer to the caller's frame).
class Beside {
 public:
  template <class Job>
  explicit Beside(Job job) : done_(HelperThreads::run(std::move(job))) {}
  ~Beside() {
    if (done_.valid()) done_.wait();
  }
  Beside(const Beside&) = delete;
  Beside& operator=(const Beside&) = delete;
  void join() { done_.get(); }

 private:
  std::future<void> done_;
};

}  // namespace xhd
