// The CUDA grid's sizing (kernels/cuda/grid_sizing.cpp, plain C++): its count of distinct cell keys against
// sort-and-unique, on keys shaped like the sizing's (three axes' cell indices packed 21 bits each), with repeats,
// dense blocks, one axis only, and sizes around the table's powers of two.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "../cuda/grid_sizing.h"
#include "check.h"

namespace {

size_t sorted_distinct(std::vector<uint64_t> keys) {
  std::sort(keys.begin(), keys.end());
  return static_cast<size_t>(std::unique(keys.begin(), keys.end()) - keys.begin());
}

uint64_t cell_key(uint64_t x, uint64_t y, uint64_t z) { return (x * 2097152u + y) * 2097152u + z; }

}  // namespace

TEST(grid_sizing_distinct_count_matches_sort_unique) {
  std::mt19937_64 rng(7);
  CHECK_EQ(xhd::distinct_count({}), size_t(0));
  CHECK_EQ(xhd::distinct_count({5}), size_t(1));
  for (size_t n : {size_t(1), size_t(7), size_t(8), size_t(9), size_t(100), size_t(4095), size_t(4096), size_t(4097), size_t(20000)}) {
    for (uint64_t cells : {uint64_t(1), uint64_t(3), uint64_t(16), uint64_t(1000), uint64_t(1) << 20}) {
      std::vector<uint64_t> keys(n);
      for (auto& k : keys) k = cell_key(rng() % cells, rng() % cells, rng() % cells);
      CHECK_EQ(xhd::distinct_count(keys), sorted_distinct(keys));
      // One axis only, and a dense block: the structured keys a bad hash would crowd.
      for (size_t i = 0; i < n; ++i) keys[i] = cell_key(0, 0, rng() % cells);
      CHECK_EQ(xhd::distinct_count(keys), sorted_distinct(keys));
      for (size_t i = 0; i < n; ++i) keys[i] = cell_key(i % 16, (i / 16) % 16, (i / 256) % 16);
      CHECK_EQ(xhd::distinct_count(keys), sorted_distinct(keys));
    }
  }
}
