// Progress reporting and cancellation through the caller's xhd_progress (which may be null).
#pragma once

#include <cstdint>
#include <stdexcept>

#include "xhd.h"

namespace xhd {

struct Cancelled : std::runtime_error {
  Cancelled() : std::runtime_error("cancelled by the caller") {}
};

class Progress {
 public:
  explicit Progress(xhd_progress* p) : p_(p) {}
  void set_total(uint64_t total) const {
    if (p_) __atomic_store_n(&p_->total, total, __ATOMIC_RELAXED);
  }
  // The work begins again from nothing (a second attempt after the first ran short of memory).
  void restart(uint64_t total) const {
    if (!p_) return;
    __atomic_store_n(&p_->done, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&p_->total, total, __ATOMIC_RELAXED);
  }
  // More work than set_total said (e.g. a target searched in tiles measures each query once per tile).
  void add_to_total(uint64_t more) const {
    if (p_) __atomic_fetch_add(&p_->total, more, __ATOMIC_RELAXED);
  }
  void add(uint64_t n) const {
    if (p_) __atomic_fetch_add(&p_->done, n, __ATOMIC_RELAXED);
  }
  // Throws Cancelled when the caller asked to stop; cheap enough to call once per block of work.
  void check_cancel() const {
    if (p_ && __atomic_load_n(&p_->cancel, __ATOMIC_RELAXED) != 0) throw Cancelled();
  }
  // A finished step worth n units: counted, then the caller's cancel honoured before the next step begins.
  void step_done(uint64_t n) const {
    add(n);
    check_cancel();
  }

 private:
  xhd_progress* p_;
};

}  // namespace xhd
