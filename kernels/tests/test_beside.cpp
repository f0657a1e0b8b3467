// Jobs run beside the caller on long-lived helper threads (kernels/abi/beside.h): each runs once and its
// exception reaches join(); helpers are used again rather than started per job; jobs at once each get a thread
// (a job that waits for another never waits for itself); a caller leaving early by its own exception waits for
// the job, which may still be using the caller's frame.
#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../abi/beside.h"
#include "check.h"

TEST(beside_runs_the_job_once_and_join_rethrows_its_exception) {
  int runs = 0;
  xhd::Beside ok([&] { ++runs; });
  ok.join();
  CHECK_EQ(runs, 1);
  xhd::Beside failing([] { throw std::runtime_error("the job failed"); });
  std::string caught;
  try {
    failing.join();
  } catch (const std::runtime_error& e) {
    caught = e.what();
  }
  CHECK(caught == "the job failed");
}

TEST(beside_uses_its_helper_threads_again) {
  std::set<std::thread::id> threads;
  for (int k = 0; k < 50; ++k) {
    std::thread::id id;
    xhd::Beside job([&] { id = std::this_thread::get_id(); });
    job.join();
    CHECK(id != std::this_thread::get_id());
    threads.insert(id);
  }
  // One job at a time: a helper idle again takes the next. (A job can come before the helper that ran the last
  // one is counted idle, and start a second; never one a job.)
  CHECK(threads.size() <= 4);
}

TEST(beside_jobs_at_once_each_get_a_thread) {
  // Each job waits until all have started: it finishes only if none waits for a helper another job holds.
  constexpr int kJobs = 6;
  std::atomic<int> started{0};
  std::vector<std::unique_ptr<xhd::Beside>> jobs;
  for (int k = 0; k < kJobs; ++k)
    jobs.push_back(std::make_unique<xhd::Beside>([&] {
      started.fetch_add(1);
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (started.load() < kJobs && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
    }));
  for (auto& job : jobs) job->join();
  CHECK_EQ(started.load(), kJobs);
}

TEST(beside_waits_for_its_job_when_the_caller_leaves_by_an_exception) {
  std::atomic<bool> finished{false};
  try {
    xhd::Beside job([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      finished = true;
    });
    throw std::runtime_error("the caller's own failure");
  } catch (const std::runtime_error&) {
    CHECK(finished.load());  // the destructor waited: the job no longer touches this frame
  }
}
