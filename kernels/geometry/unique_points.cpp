#include "unique_points.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "../cpu/parallel_sort_by_key.h"  // header only, host code: built into both libraries
#include "../abi/parallel.h"
#include "point_subset.h"

namespace xhd {
namespace {

constexpr size_t kGrain = size_t(1) << 16;

// -0 and +0 compare equal and are at equal distance from everything: one copy of them must hash alike.
uint64_t canonical_bits(double v) {
  const double c = v == 0.0 ? 0.0 : v;
  uint64_t bits;
  std::memcpy(&bits, &c, sizeof(bits));
  return bits;
}

uint64_t mix64(uint64_t x) {  // the splitmix64 finalizer: every input bit reaches every output bit
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// One multiply per coordinate and one finalizer: the pass that looks for duplicates hashes every sampled
// point, and three finalizers a point made it a millisecond for a mask pair's two sets of 60,000.
uint64_t point_hash(const PointTruth& t, size_t i) {
  const uint64_t x = canonical_bits(t.coord(i, 0)), y = canonical_bits(t.coord(i, 1)), z = canonical_bits(t.coord(i, 2));
  const uint64_t h = x * 0x9e3779b97f4a7c15ull ^ ((y << 21) | (y >> 43)) * 0xc2b2ae3d27d4eb4full ^
                     ((z << 42) | (z >> 22)) * 0x165667b19e3779f9ull;
  return mix64(h);
}

void prefetch_point(const PointTruth& t, size_t i) {
  if (t.f64 != nullptr) __builtin_prefetch(&t.f64[3 * i]);
  else __builtin_prefetch(&t.f32[3 * i]);
}

bool same_point(const PointTruth& t, size_t i, size_t j) {
  return t.coord(i, 0) == t.coord(j, 0) && t.coord(i, 1) == t.coord(j, 1) && t.coord(i, 2) == t.coord(j, 2);
}

// keep[i] = 1 when point i is the first copy of its group. Points sorted by a 32-bit hash (stable, so equal
// hashes stay in index order), then each run of equal hashes compared against the firsts found in it so far:
// copies make long runs with one first, distinct points short runs (a collision now and then). The runs are
// shared out among threads whole, so the result does not depend on the thread count.
void mark_first_copies(const PointTruth& t, int threads, UninitLargeVector<uint8_t>& keep) {
  const size_t n = t.count;
  UninitLargeVector<uint32_t> keys(n), order(n), sorted_keys(n);
  parallel_blocks(n, kGrain, threads, [&](size_t begin, size_t end, int) {
    for (size_t i = begin; i < end; ++i) keys[i] = static_cast<uint32_t>(point_hash(t, i) >> 32);
  });
  parallel_sort_by_key(keys.data(), n, 32, threads, [&](uint32_t position, uint32_t key, uint32_t item) {
    order[position] = item;
    sorted_keys[position] = key;
  });
  const size_t parts = std::clamp<size_t>(n / kGrain, 1, 8 * static_cast<size_t>(std::max(threads, 1)));
  std::vector<size_t> bounds(parts + 1, n);
  for (size_t part = 0; part < parts; ++part) {
    size_t b = n * part / parts;
    if (b > 0 && b < n)
      b = std::upper_bound(sorted_keys.begin() + b, sorted_keys.end(), sorted_keys[b - 1]) - sorted_keys.begin();
    bounds[part] = std::max(b, part > 0 ? bounds[part - 1] : size_t(0));
  }
  keep.resize(n);
  parallel_blocks(parts, 1, threads, [&](size_t part, size_t, int) {
    std::vector<uint32_t> firsts;
    for (size_t begin = bounds[part], end = begin; begin < bounds[part + 1]; begin = end) {
      while (end < n && sorted_keys[end] == sorted_keys[begin]) ++end;
      firsts.clear();
      for (size_t p = begin; p < end; ++p) {
        const uint32_t i = order[p];
        const bool copy = std::any_of(firsts.begin(), firsts.end(), [&](uint32_t f) { return same_point(t, f, i); });
        keep[i] = copy ? 0 : 1;
        if (!copy) firsts.push_back(i);
      }
    }
  });
}

}  // namespace

bool sample_has_duplicates(const PointTruth& t) {
  const size_t n = t.count, samples = std::min(n, kSamplePoints);
  size_t slots = 1;
  while (slots < 2 * samples) slots <<= 1;
  // Open addressing over (the hash's top half, point index) words (n < 2^32 - 1): a probe that meets another
  // point compares the halves first, and reads that point's coordinates (far away in the input, a cache miss)
  // only when they agree.
  constexpr uint64_t kEmpty = UINT64_MAX;
  std::vector<uint64_t> table(slots, kEmpty);
  constexpr size_t kAhead = 16;  // the sampled points are far apart: fetch them ahead of their hashing
  // Sample s is point floor(s n / samples), stepped without a division a point: i grows by n / samples, and
  // by one more whenever the remainders add up to samples.
  const size_t whole = samples == 0 ? 0 : n / samples, part = samples == 0 ? 0 : n % samples;
  size_t i = 0, carried = 0;
  for (size_t s = 0; s < samples; ++s) {
    if (s + kAhead < samples) prefetch_point(t, std::min(n - 1, i + kAhead * whole));
    const uint64_t h = point_hash(t, i);
    const uint64_t word = (h & 0xffffffff00000000ull) | static_cast<uint32_t>(i);
    for (size_t slot = h & (slots - 1);; slot = (slot + 1) & (slots - 1)) {
      const uint64_t held = table[slot];
      if (held == kEmpty) {
        table[slot] = word;
        break;
      }
      if ((held >> 32) == (h >> 32) && same_point(t, static_cast<uint32_t>(held), i)) return true;
    }
    i += whole;
    carried += part;
    if (carried >= samples) carried -= samples, ++i;
  }
  return false;
}

bool sampled_duplicates(FramedSet& set) {
  if (set.sampled_duplicates < 0) set.sampled_duplicates = sample_has_duplicates(set.truth) ? 1 : 0;
  return set.sampled_duplicates == 1;
}

void sample_duplicates(PointFrame& frame, int threads) {
  FramedSet* sets[2] = {&frame.a, &frame.b};
  parallel_blocks(2, 1, std::min(threads, 2), [&](size_t begin, size_t, int) { sampled_duplicates(*sets[begin]); });
}

bool drop_duplicates(FramedSet& set, int threads) {
  const size_t n = set.count;
  if (n < 2 || !sampled_duplicates(set)) return false;
  UninitLargeVector<uint8_t> keep;
  mark_first_copies(set.truth, threads, keep);
  FramedSet unique = pick_points(set, keep.data(), PickedIndex::kInput, threads);
  if (unique.count == n) return false;
  set = std::move(unique);
  return true;
}

FramedSet unique_targets(const FramedSet& set, int threads) {
  FramedSet t;
  t.truth = set.truth;
  t.xyz = set.xyz;
  t.count = set.count;
  t.loose = set.loose;
  t.sampled_duplicates = set.sampled_duplicates;
  drop_duplicates(t, threads);
  return t;
}

void drop_duplicates(PointFrame& frame, int threads) {
  sample_duplicates(frame, threads);
  drop_duplicates(frame.a, threads);
  drop_duplicates(frame.b, threads);
}

void report_input_indices(const PointFrame& frame, xhd_hausdorff_result& result) {
  result.ab.from_index = frame.a.input_of(result.ab.from_index);
  result.ab.to_index = frame.b.input_of(result.ab.to_index);
  result.ba.from_index = frame.b.input_of(result.ba.from_index);
  result.ba.to_index = frame.a.input_of(result.ba.to_index);
}

}  // namespace xhd
