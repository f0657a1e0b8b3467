// Deterministic inputs for the native tests: a seeded generator (std::mt19937_64 draws are fixed by the
// standard, so every machine gets the same points) and point sets of the shapes that stress the searches.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace xhd_test {

class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}
  // Uniform in [lo, hi), by the engine's raw bits (std::uniform_real_distribution is not fixed by the
  // standard).
  double uniform(double lo, double hi) { return lo + (hi - lo) * (double(engine_() >> 11) * 0x1.0p-53); }
  uint64_t below(uint64_t n) { return engine_() % n; }

 private:
  std::mt19937_64 engine_;
};

// n points uniform in the box [lo, lo + size)^3 (interleaved x, y, z).
inline std::vector<double> uniform_points(Random& rng, size_t n, double lo, double size) {
  std::vector<double> xyz(3 * n);
  for (double& v : xyz) v = rng.uniform(lo, lo + size);
  return xyz;
}

inline std::vector<float> to_float(const std::vector<double>& xyz) {
  return std::vector<float>(xyz.begin(), xyz.end());
}

}  // namespace xhd_test
