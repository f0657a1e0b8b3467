// Splitting one direction's queries among workers (GPUs, or CPU worker groups that stand in for them in
// tests) and merging what they found, so that the answer is the one a single worker gives bit for bit:
//  - the queries are cut into pieces that the workers take from one shared counter (a faster device takes
//    more), and every query's answer is independent of which worker measured it;
//  - each worker's witness is the best of its pieces by the rule of per_point.h (largest squared distance,
//    ties to the smallest source index), a total order, so the best of the workers' bests is the answer
//    whatever the split;
//  - the X-HD float filter's running bound (the packed cmax word, query_state.cuh) may be shared: any
//    query's word is a valid bound for every query of the same direction, as it already is across the
//    chunks of one device;
//  - a worker that fails stops the others at their next piece and fails the call naming its device.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "per_point.h"
#include "progress.h"
#include "status_guard.h"
#include "validate.h"
#include "xhd.h"

namespace xhd {

// [first, first + count) of the pieces of [0, total).
struct Piece {
  uint64_t first = 0;
  uint64_t count = 0;
};

// Pieces of `piece` queries (the last one shorter) taken in order by any number of workers.
class PieceQueue {
 public:
  PieceQueue(uint64_t total, uint64_t piece) : total_(total), piece_(std::max<uint64_t>(piece, 1)) {}
  // The next piece, or false when none is left or the queue was abandoned.
  bool next(Piece& out) {
    if (abandoned_.load(std::memory_order_relaxed)) return false;
    const uint64_t first = next_.fetch_add(piece_, std::memory_order_relaxed);
    if (first >= total_) return false;
    out.first = first;
    out.count = std::min(piece_, total_ - first);
    return true;
  }
  // Every later next() returns false: a worker failed and the others stop at their next piece.
  void abandon() { abandoned_.store(true, std::memory_order_relaxed); }
  bool abandoned() const { return abandoned_.load(std::memory_order_relaxed); }
  uint64_t piece() const { return piece_; }

 private:
  uint64_t total_;
  uint64_t piece_;
  std::atomic<uint64_t> next_{0};
  std::atomic<bool> abandoned_{false};
};

// Piece size for `total` queries over `workers` workers, at most `cap` (what one device holds at once). One
// worker takes everything at once (up to cap), as before the split existed; several take about eight pieces
// each so that a slower or later-starting worker does not hold up the end.
inline uint64_t piece_size(uint64_t total, int workers, uint64_t cap) {
  cap = std::max<uint64_t>(cap, 1);
  if (workers <= 1) return std::min<uint64_t>(std::max<uint64_t>(total, 1), cap);
  const uint64_t pieces = 8ull * static_cast<uint64_t>(workers);
  const uint64_t even = (total + pieces - 1) / pieces;
  return std::min<uint64_t>(std::max<uint64_t>(even, 1), cap);
}

// The largest packed cmax word any worker of one direction has seen (0: none yet).
class SharedWord {
 public:
  // Publishes `word` and returns the largest seen so far (at least `word`).
  uint64_t raise(uint64_t word) {
    uint64_t seen = word_.load(std::memory_order_relaxed);
    while (seen < word && !word_.compare_exchange_weak(seen, word, std::memory_order_relaxed)) {
    }
    return std::max(seen, word);
  }
  uint64_t get() const { return word_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> word_{0};
};

// The counters of a direction measured by several workers: sums of the work, and of the times the largest
// (the workers run at once, so the direction took as long as its slowest worker).
inline void add_worker_counters(xhd_directed& into, const xhd_directed& part) {
  into.build_ms = std::max(into.build_ms, part.build_ms);
  into.query_ms = std::max(into.query_ms, part.query_ms);
  into.exact_ms = std::max(into.exact_ms, part.exact_ms);
  into.distance_evals += part.distance_evals;
  into.pruned_queries += part.pruned_queries;
  into.fallback_queries += part.fallback_queries;
  into.exact_checks += part.exact_checks;
  for (int k = 0; k < 3; ++k) into.grid_dims[k] = std::max(into.grid_dims[k], part.grid_dims[k]);
  into.cell_size = std::max(into.cell_size, part.cell_size);
}

// The counters of runs of a direction one after the other (a split by space that did not settle it and the search
// that followed, or the islands of a compare, island_compare.h): sums of the work and of the times.
inline void add_run_counters(xhd_directed& into, const xhd_directed& run) {
  into.build_ms += run.build_ms;
  into.query_ms += run.query_ms;
  into.exact_ms += run.exact_ms;
  into.distance_evals += run.distance_evals;
  into.pruned_queries += run.pruned_queries;
  into.fallback_queries += run.fallback_queries;
  into.exact_checks += run.exact_checks;
}

// For tests of a worker lost mid-run: with XHD_TEST_FAIL_WORKER=k, worker k (0-based) of a split run fails
// after its first piece, as a device that faults would; the call must then fail naming that worker's
// device, with nothing partial presented as an answer. Unset (always, outside tests): nothing happens.
inline void injected_fault(int worker) {
  const char* chosen = std::getenv("XHD_TEST_FAIL_WORKER");
  if (chosen != nullptr && *chosen != '\0' && std::atoi(chosen) == worker)
    throw std::runtime_error("fault injected for a test (XHD_TEST_FAIL_WORKER)");
}

// "device 1 (worker 2 of 3)": how a failure names the worker.
inline std::string worker_label(int device, int worker, int workers) {
  std::string label = device >= 0 ? "device " + std::to_string(device) : "CPU worker group";
  if (workers > 1) label += " (worker " + std::to_string(worker + 1) + " of " + std::to_string(workers) + ")";
  return label;
}

// Runs body(w) for w in [0, workers) on one host thread each and waits for all. A worker that throws makes
// `stop` (the queues the workers take from) abandon the rest; after all have returned the failure is
// thrown again, its message prefixed by the worker's label (labels[w]) and its kind kept: a cancel stays a
// cancel, an invalid argument an invalid argument, a shortage of memory a shortage; anything else (a GPU
// fault, a lost device) becomes XHD_ERROR_UNAVAILABLE naming the device. Nothing partial is returned: the
// caller's outputs are not to be read after a failure.
template <typename Body, typename Stop>
void run_workers(const std::vector<std::string>& labels, Body&& body, Stop&& stop) {
  const int workers = static_cast<int>(labels.size());
  if (workers == 1) {
    body(0);
    return;
  }
  std::vector<std::exception_ptr> failed(workers);
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      try {
        body(w);
      } catch (...) {
        failed[w] = std::current_exception();
        stop();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  // A cancel first: the others' failures are its consequence (abandoned pieces), not the cause.
  for (int w = 0; w < workers; ++w) {
    if (!failed[w]) continue;
    try {
      std::rethrow_exception(failed[w]);
    } catch (const Cancelled&) {
      throw;
    } catch (...) {
    }
  }
  for (int w = 0; w < workers; ++w) {
    if (!failed[w]) continue;
    try {
      std::rethrow_exception(failed[w]);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(labels[w] + ": " + e.what());
    } catch (const OutOfMemory& e) {
      throw OutOfMemory(labels[w] + ": " + e.what());
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      throw Unavailable(labels[w] + " failed: " + e.what());
    } catch (...) {
      throw Unavailable(labels[w] + " failed");
    }
  }
}

// The workers a placement asks for: its ordinals, or `device` alone when it lists none. Refuses a null list
// with a count, a negative ordinal and more than 1024 workers; clears its outputs.
inline std::vector<int> placement_devices(xhd_placement* placement, int device) {
  if (placement == nullptr || placement->device_count == 0) {
    if (placement != nullptr) placement->target_tiles = placement->workers = placement->spatial_directions = 0;
    return {device};
  }
  placement->target_tiles = placement->workers = placement->spatial_directions = 0;
  if (placement->devices == nullptr) throw InvalidArgument("placement: devices must not be null when device_count > 0");
  if (placement->device_count > 1024) throw InvalidArgument("placement: at most 1024 workers");
  std::vector<int> devices(placement->devices, placement->devices + placement->device_count);
  for (int d : devices)
    if (d < 0) throw InvalidArgument("placement: device ordinal " + std::to_string(d) + " is negative");
  return devices;
}

}  // namespace xhd
