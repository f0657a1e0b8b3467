// A budget of cores shared by jobs that run at once (the two directions of a CPU surface compare). Each job
// is a lane of the gate; at most `permits` threads work inside the gate, and while several lanes are open each
// holds at most its share (the budget over the lanes, rounded up). A lane's query loop runs with the whole
// budget's worth of workers and takes a permit a block, so while both directions run each keeps to its share
// (its extra workers asleep, no thread switching between the two directions' data), and once one lane closes
// the other's workers take the freed cores. The fixed split it replaces (half the threads each) left half the
// cores idle whenever one direction cost far more than the other: fandisk with one vertex at 6.5e10 against
// fandisk spent 2.3 s on one core for A's samples and 0.1 s on the other for B's.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>

#include "parallel.h"

namespace xhd {

class CoreGate {
 public:
  explicit CoreGate(int permits) : permits_(permits < 1 ? 1 : permits), free_(permits_) {}
  CoreGate(const CoreGate&) = delete;
  CoreGate& operator=(const CoreGate&) = delete;

  int permits() const { return permits_; }

 private:
  friend class GateLane;

  // A lane's share while `lanes` are open: the whole budget alone, else the budget over the lanes, rounded up
  // (the free count still keeps the total within the budget).
  int share() const { return lanes_ <= 1 ? permits_ : (permits_ + lanes_ - 1) / lanes_; }
  int clamp(int count) const { return count < 1 ? 1 : (count > permits_ ? permits_ : count); }

  const int permits_;
  int free_;
  int lanes_ = 0;
  std::mutex mutex_;
  std::condition_variable freed_;
};

// A job's place at a gate, open for its lifetime. Its threads enter for a block (or a build's share) and leave
// after; closing it, with nothing held, gives its share to the lanes still open.
class GateLane {
 public:
  explicit GateLane(CoreGate& gate) : gate_(gate) {
    {
      std::lock_guard<std::mutex> lock(gate_.mutex_);
      ++gate_.lanes_;
    }
    gate_.freed_.notify_all();
  }
  ~GateLane() { close(); }

  // Gives this lane's share to the others (once; nothing may be held).
  void close() {
    {
      std::lock_guard<std::mutex> lock(gate_.mutex_);
      if (closed_) return;
      closed_ = true;
      --gate_.lanes_;
    }
    gate_.freed_.notify_all();
  }
  GateLane(const GateLane&) = delete;
  GateLane& operator=(const GateLane&) = delete;

  int permits() const { return gate_.permits(); }

  // Waits until `count` permits (at most the budget) are free and within this lane's share, and takes them.
  void enter(int count = 1) {
    count = gate_.clamp(count);
    std::unique_lock<std::mutex> lock(gate_.mutex_);
    gate_.freed_.wait(lock, [&] {
      return gate_.free_ >= count && (held_ == 0 || held_ + count <= gate_.share());
    });
    gate_.free_ -= count;
    held_ += count;
  }

  void leave(int count = 1) {
    count = gate_.clamp(count);
    {
      std::lock_guard<std::mutex> lock(gate_.mutex_);
      gate_.free_ += count;
      held_ -= count;
    }
    gate_.freed_.notify_all();
  }

 private:
  CoreGate& gate_;
  int held_ = 0;  // under the gate's mutex
  bool closed_ = false;
};

// Closes a lane when its scope ends, also by an exception; no lane, nothing to close.
class LaneScope {
 public:
  explicit LaneScope(GateLane* lane) : lane_(lane) {}
  ~LaneScope() {
    if (lane_ != nullptr) lane_->close();
  }
  LaneScope(const LaneScope&) = delete;
  LaneScope& operator=(const LaneScope&) = delete;

 private:
  GateLane* lane_;
};

// Holds `count` permits of a lane for a scope (a build run on a share of the threads); no lane, nothing held.
class GateHold {
 public:
  GateHold(GateLane* lane, int count) : lane_(lane), count_(count) {
    if (lane_ != nullptr) lane_->enter(count_);
  }
  ~GateHold() {
    if (lane_ != nullptr) lane_->leave(count_);
  }
  GateHold(const GateHold&) = delete;
  GateHold& operator=(const GateHold&) = delete;

 private:
  GateLane* lane_;
  int count_;
};

// The workers a loop runs with: its gate's whole budget where it has a lane, else the job's threads.
inline int gated_workers(const GateLane* lane, int threads) {
  return lane != nullptr ? lane->permits() : (threads < 1 ? 1 : threads);
}

// parallel_blocks through a lane: every worker of the budget is started (none cut to a share of the cores, which
// the gate already keeps), and each block is run holding one permit. No lane: parallel_blocks as it is.
template <class Body>
void gated_blocks(size_t n, size_t grain, int threads, GateLane* lane, Body body) {
  if (lane == nullptr) return parallel_blocks(n, grain, threads, body);
  parallel_blocks(
      n, grain, lane->permits(),
      [&](size_t begin, size_t end, int thread) {
        GateHold hold(lane, 1);
        body(begin, end, thread);
      },
      PoolShare::whole);
}

}  // namespace xhd
