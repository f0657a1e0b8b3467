// Something made once, the first time any thread asks for it (a hierarchy node's bounds, a node's place in
// a hierarchy ordered as searches reach it): the first caller makes it, later ones wait until it is made.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace xhd {

// A made thing's state.
enum : uint8_t { kNotMade = 0, kMaking = 1, kMade = 2 };

// Runs make() once for the thing whose state this is. If make() throws, the thing is left not made (a later
// call tries again) and the error goes on.
template <typename Make>
void make_once(std::atomic<uint8_t>& state, Make&& make) {
  uint8_t seen = kNotMade;
  if (state.compare_exchange_strong(seen, kMaking, std::memory_order_acquire)) {
    try {
      make();
    } catch (...) {
      state.store(kNotMade, std::memory_order_release);
      throw;
    }
    state.store(kMade, std::memory_order_release);
    return;
  }
  // Another thread makes it: a large node takes milliseconds, a small one microseconds.
  while (state.load(std::memory_order_acquire) != kMade) {
    if (state.load(std::memory_order_relaxed) == kNotMade) return make_once(state, make);  // its maker failed
    std::this_thread::yield();
  }
}

// How many of n states say made.
inline uint64_t count_made(const std::atomic<uint8_t>* state, uint64_t n) {
  uint64_t made = 0;
  for (uint64_t k = 0; k < n; ++k) made += state[k].load(std::memory_order_relaxed) == kMade;
  return made;
}

}  // namespace xhd
