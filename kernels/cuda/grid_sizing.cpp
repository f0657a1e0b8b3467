#include "grid_sizing.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace xhd {

size_t distinct_count(const std::vector<uint64_t>& keys) {
  int bits = 4;
  while ((size_t(1) << bits) < 2 * keys.size()) ++bits;
  const size_t slots = size_t(1) << bits;
  std::vector<uint64_t> table(slots);
  std::vector<uint8_t> used(slots, 0);
  size_t distinct = 0;
  for (const uint64_t key : keys) {
    // Fibonacci hashing: the product's top bits mix every bit of the key (its axes' cell indices).
    size_t at = static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
    while (used[at] != 0 && table[at] != key) at = (at + 1) & (slots - 1);
    if (used[at] == 0) {
      used[at] = 1;
      table[at] = key;
      ++distinct;
    }
  }
  return distinct;
}

namespace {

// The dense cell table holds at most this many cells per indexed point (and never more than 2^27):
// memory stays proportional to the input whatever the model or the caller asks for.
constexpr double kMaxCellsPerPoint = 4.0;
constexpr int kMaxTotalBits = 27;

// Distinct cells the sample occupies when axis i is cut into k[i] equal cells (whole cells only: a sliver
// of a cell at the box's edge would look sparsely filled and bias the dimension low).
size_t occupied_cells(const GridRequest& r, const double k[3]) {
  std::vector<uint64_t> cells(r.sample_count);
  for (size_t p = 0; p < r.sample_count; ++p) {
    uint64_t key = 0;
    for (int i = 0; i < 3; ++i) {
      const double span = r.max[i] - r.min[i];
      const double t = span > 0.0 ? std::floor((r.sample[3 * p + i] - r.min[i]) / span * k[i]) : 0.0;
      key = key * 2097152u + static_cast<uint64_t>(std::min(std::max(t, 0.0), k[i] - 1.0));
    }
    cells[p] = key;
  }
  return distinct_count(cells);
}

// Cells along each axis for a target side, as powers of two: the total number of bits is the rounded
// sum of each axis's ideal (fractional) bits, handed out by largest fractional part, so the cell count
// moves in steps of 2 rather than 8 and lands nearest the model's.
void bits_for(const GridRequest& r, double side, int bits[3]) {
  double ideal[3], total = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double span = r.max[i] - r.min[i];
    ideal[i] = span > 0.0 ? std::min(std::max(0.0, std::log2(span / side)), 16.0) : 0.0;
    bits[i] = static_cast<int>(std::floor(ideal[i]));
    total += ideal[i];
  }
  int extra = static_cast<int>(std::lround(total)) - (bits[0] + bits[1] + bits[2]);
  while (extra-- > 0) {
    int best = -1;
    for (int i = 0; i < 3; ++i)
      if (ideal[i] > 0.0 && bits[i] < 16 && (best < 0 || ideal[i] - bits[i] > ideal[best] - bits[best])) best = i;
    if (best < 0) break;
    ++bits[best];
    ideal[best] = bits[best];  // its fraction is used up
  }
}

}  // namespace

GridFrame choose_grid_frame(const GridRequest& r) {
  double span[3], largest = 0.0;
  int live = 0;
  for (int i = 0; i < 3; ++i) {
    span[i] = r.max[i] - r.min[i];
    largest = std::max(largest, span[i]);
  }
  double volume = 1.0;
  for (int i = 0; i < 3; ++i)
    if (span[i] > largest * 1e-9 && span[i] > 0.0) {
      volume *= span[i];
      ++live;
    }

  double side = r.cell_size;
  if (side <= 0.0 && live > 0) {
    // Sample occupancy at a side where the sample would hold 32 points per cell if it filled the box,
    // and at half that side: the ratio of fills gives the local dimension D. (At fills near 1, cells
    // holding several points by chance would bias D low.)
    const double s = static_cast<double>(std::max<size_t>(r.sample_count, 1));
    const double target = std::pow(volume * 32.0 / s, 1.0 / live);
    double k1[3], k2[3], cells = 1.0;
    for (int i = 0; i < 3; ++i) {
      const bool axis_live = span[i] > largest * 1e-9 && span[i] > 0.0;
      k1[i] = axis_live ? std::max(1.0, std::round(span[i] / target)) : 1.0;
      k2[i] = axis_live ? 2.0 * k1[i] : 1.0;
      cells *= k1[i];
    }
    const double l1 = std::pow(volume / cells, 1.0 / live);  // the side those cells have on average
    const double fill1 = s / static_cast<double>(occupied_cells(r, k1));
    const double fill2 = s / static_cast<double>(occupied_cells(r, k2));
    double dim = std::log2(fill1 / fill2);
    if (!(dim > 0.25)) dim = 0.25;  // duplicates: refining barely separates them
    dim = std::min(dim, static_cast<double>(live));
    // Full-data fill at side l: F(l) = rho * l^D with rho from the sample at l1.
    const double rho = (static_cast<double>(r.count) / s) * fill1 / std::pow(l1, dim);
    // The radius a query searches in practice: the ball expected to hold a warp's worth (32) of points.
    // Calibrated on an H100 (scripts/bench-gpu cell-size sweeps): the plain nearest-neighbour spacing
    // gave cells of about 2 points, half as fast as the 6 to 8 points this gives.
    const double unit_ball = dim >= 2.5   ? 4.18879
                             : dim >= 1.5 ? 3.14159
                                          : 2.0;  // volume of the unit D-ball (D = 3, 2, 1)
    const double spacing = std::pow(32.0 / (unit_ball * rho), 1.0 / dim);
    const double radius = std::max(r.radius, spacing);
    side = std::pow(2.0 * radius * r.cost_ratio / rho, 1.0 / (dim + 1.0));
  }
  if (!(side > 0.0)) side = largest > 0.0 ? largest : 1.0;

  GridFrame f{};
  int bits[3];
  bits_for(r, side, bits);
  const double max_cells = std::max(kMaxCellsPerPoint * static_cast<double>(r.count), 4096.0);
  // Respect the cap by coarsening the axis with the most cells first.
  while (bits[0] + bits[1] + bits[2] > kMaxTotalBits || std::ldexp(1.0, bits[0] + bits[1] + bits[2]) > max_cells) {
    int widest = 0;
    for (int i = 1; i < 3; ++i)
      if (bits[i] > bits[widest]) widest = i;
    --bits[widest];
  }
  double magnitude = 0.0;
  for (int i = 0; i < 3; ++i) magnitude = std::max({magnitude, std::fabs(r.min[i]), std::fabs(r.max[i])});
  int axes = 0;
  for (int i = 0; i < 3; ++i) {
    f.origin[i] = static_cast<float>(r.min[i]);
    f.bits[i] = bits[i];
    const double cell = span[i] / std::ldexp(1.0, bits[i]);
    f.cell[i] = static_cast<float>(cell);
    f.inv_cell[i] = cell > 0.0 ? static_cast<float>(1.0 / cell) : 0.f;
    // Wider than any rounding of (v - origin) * inv_cell or of the box corners themselves.
    f.pad[i] = static_cast<float>(cell / 64.0 + magnitude * 1e-6);
    if (bits[i] > 0) ++axes;
  }
  f.total_bits = bits[0] + bits[1] + bits[2];
  f.fanout_bits = std::max(axes, 1);
  f.levels = (f.total_bits + f.fanout_bits - 1) / f.fanout_bits;
  return f;
}

}  // namespace xhd
