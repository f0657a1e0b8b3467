// Grid size of a one-thread-per-item launch (at least one block, within the grid-dimension limit).
#pragma once

#include <algorithm>
#include <cstdint>

namespace xhd {

inline unsigned blocks_for(uint64_t items, int threads) {
  return static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>((items + threads - 1) / threads, 1u << 30)));
}

}  // namespace xhd
