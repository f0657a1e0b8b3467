// Jobs sharing a budget of cores through a gate (kernels/abi/core_gate.h): never more threads inside than
// permits, every block run once, each open lane kept to its share, a hold's permits kept from the loops, and a
// lane left alone taking the whole budget once the other has closed (what a fixed half each could not).
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "../abi/beside.h"
#include "../abi/core_gate.h"
#include "check.h"

namespace {

// Counts the threads inside and the most seen at once.
struct Occupancy {
  std::atomic<int> inside{0}, most{0};

  void arrive() {
    const int now = inside.fetch_add(1) + 1;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
  }
  void depart() { inside.fetch_sub(1); }

  void visit(std::chrono::microseconds stay) {
    arrive();
    std::this_thread::sleep_for(stay);
    depart();
  }
};

}  // namespace

TEST(gate_keeps_two_lanes_within_their_shares_and_runs_every_block_once) {
  constexpr int kPermits = 4;
  constexpr size_t kItems = 240;
  xhd::CoreGate gate(kPermits);
  xhd::GateLane lane_a(gate), lane_b(gate);
  Occupancy all, in_a, in_b;
  std::vector<std::atomic<int>> runs_a(kItems), runs_b(kItems);
  std::atomic<int> bad_thread{0};  // counted here: the checks themselves are for one thread
  const auto loop = [&](xhd::GateLane& lane, Occupancy& mine, std::vector<std::atomic<int>>& runs) {
    xhd::gated_blocks(kItems, 4, 1, &lane, [&](size_t begin, size_t end, int thread) {
      if (thread < 0 || thread >= kPermits) bad_thread.fetch_add(1);
      for (size_t i = begin; i < end; ++i) runs[i].fetch_add(1);
      mine.arrive();
      all.visit(std::chrono::microseconds(300));
      mine.depart();
    });
  };
  // Both lanes stay open until both loops are done, so neither ever has more than half.
  xhd::Beside other([&] { loop(lane_a, in_a, runs_a); });
  loop(lane_b, in_b, runs_b);
  other.join();
  CHECK_EQ(bad_thread.load(), 0);
  CHECK(all.most.load() <= kPermits);
  CHECK(in_a.most.load() <= kPermits / 2);
  CHECK(in_b.most.load() <= kPermits / 2);
  CHECK(all.most.load() >= 2);  // the two loops did overlap
  for (size_t i = 0; i < kItems; ++i) {
    CHECK_EQ(runs_a[i].load(), 1);
    CHECK_EQ(runs_b[i].load(), 1);
  }
}

TEST(gate_hold_keeps_its_permits_from_the_loops) {
  constexpr int kPermits = 4;
  xhd::CoreGate gate(kPermits);
  xhd::GateLane builder(gate), searcher(gate);
  Occupancy loop;
  std::atomic<bool> held{false}, release{false};
  xhd::Beside holder([&] {
    xhd::GateHold hold(&builder, kPermits - 1);  // more than its share: a lane holding nothing may take it
    held.store(true);
    while (!release.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
  });
  while (!held.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
  xhd::gated_blocks(40, 1, 1, &searcher, [&](size_t, size_t, int) { loop.visit(std::chrono::microseconds(500)); });
  release.store(true);
  holder.join();
  CHECK_EQ(loop.most.load(), 1);
}

TEST(gate_gives_a_lane_left_alone_the_whole_budget) {
  // A short loop beside a long one: once the short one's lane has closed, the long one's workers fill every
  // permit.
  constexpr int kPermits = 3;
  xhd::CoreGate gate(kPermits);
  xhd::GateLane brief_lane(gate), long_lane(gate);
  std::atomic<bool> brief_done{false};
  Occupancy before, after;
  xhd::Beside brief([&] {
    const xhd::LaneScope done(&brief_lane);
    xhd::gated_blocks(4, 1, 1, &brief_lane,
                      [&](size_t, size_t, int) { std::this_thread::sleep_for(std::chrono::milliseconds(1)); });
    brief_done.store(true);
  });
  xhd::gated_blocks(600, 1, 1, &long_lane, [&](size_t, size_t, int) {
    (brief_done.load() ? after : before).visit(std::chrono::microseconds(1500));
  });
  brief.join();
  CHECK(brief_done.load());
  CHECK(before.most.load() <= 2);  // its share of 3 over two lanes, rounded up
  CHECK_EQ(after.most.load(), kPermits);
}

TEST(gate_without_a_lane_is_parallel_blocks) {
  std::vector<std::atomic<int>> runs(100);
  xhd::gated_blocks(100, 7, 2, nullptr, [&](size_t begin, size_t end, int) {
    for (size_t i = begin; i < end; ++i) runs[i].fetch_add(1);
  });
  for (auto& r : runs) CHECK_EQ(r.load(), 1);
  CHECK_EQ(xhd::gated_workers(nullptr, 5), 5);
  xhd::CoreGate gate(6);
  xhd::GateLane lane(gate);
  CHECK_EQ(xhd::gated_workers(&lane, 2), 6);
}
