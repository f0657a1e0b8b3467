#include "unique_points.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "../cpu/parallel_sort_by_key.h"  // header only, host code: built into both libraries
#include "../abi/parallel.h"

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

uint64_t point_hash(const PointTruth& t, size_t i) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (int k = 0; k < 3; ++k) h = mix64(h ^ canonical_bits(t.coord(i, k)));
  return h;
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
  std::vector<uint32_t> table(slots, UINT32_MAX);  // open addressing over point indices (n < 2^32 - 1)
  constexpr size_t kAhead = 16;  // the sampled points are far apart: fetch them ahead of their hashing
  for (size_t s = 0; s < samples; ++s) {
    const size_t i = s * n / samples;  // spread over the whole set; every point when n <= kSamplePoints
    if (s + kAhead < samples) prefetch_point(t, (s + kAhead) * n / samples);
    for (size_t slot = point_hash(t, i) & (slots - 1);; slot = (slot + 1) & (slots - 1)) {
      if (table[slot] == UINT32_MAX) {
        table[slot] = static_cast<uint32_t>(i);
        break;
      }
      if (same_point(t, table[slot], i)) return true;
    }
  }
  return false;
}

// The set's loose points (point_frame.h) named by their positions in the compacted set; a dropped copy
// leaves the list (its first copy, also loose, stays). One pass over keep up to the last loose point.
static void remap_loose(FramedSet& set, const UninitLargeVector<uint8_t>& keep) {
  if (set.loose.empty()) return;
  std::vector<uint32_t> kept;
  size_t position = 0, i = 0;
  for (uint32_t l : set.loose) {
    for (; i < l; ++i) position += keep[i];
    if (keep[l]) kept.push_back(static_cast<uint32_t>(position));
  }
  set.loose.swap(kept);
}

bool drop_duplicates(FramedSet& set, int threads) {
  const size_t n = set.count;
  if (n < 2 || !sample_has_duplicates(set.truth)) return false;
  UninitLargeVector<uint8_t> keep;
  mark_first_copies(set.truth, threads, keep);

  // Compaction in input order: each block's firsts go after those of the blocks before it.
  const size_t blocks = (n + kGrain - 1) / kGrain;
  std::vector<size_t> first(blocks + 1, 0);
  parallel_blocks(n, kGrain, threads, [&](size_t begin, size_t end, int) {
    size_t kept = 0;
    for (size_t i = begin; i < end; ++i) kept += keep[i];
    first[begin / kGrain + 1] = kept;
  });
  for (size_t b = 0; b < blocks; ++b) first[b + 1] += first[b];
  const size_t unique = first[blocks];
  if (unique == n) return false;

  // Float32 inputs used in place are their own float copies: one compacted array serves as both.
  const PointTruth t = set.truth;
  const bool floats_are_truth = t.f32 != nullptr && set.xyz == t.f32;
  UninitLargeVector<uint32_t> index(unique);
  UninitLargeVector<float> xyz(floats_are_truth ? 0 : 3 * unique), truth32(t.f32 != nullptr ? 3 * unique : 0);
  UninitLargeVector<double> truth64(t.f64 != nullptr ? 3 * unique : 0);
  parallel_blocks(n, kGrain, threads, [&](size_t begin, size_t end, int) {
    size_t u = first[begin / kGrain];
    for (size_t i = begin; i < end; ++i) {
      if (!keep[i]) continue;
      index[u] = static_cast<uint32_t>(set.input_of(static_cast<int64_t>(i)));  // composes with an earlier drop
      for (int k = 0; k < 3; ++k) {
        if (!floats_are_truth) xyz[3 * u + k] = set.xyz[3 * i + k];
        if (t.f32 != nullptr) truth32[3 * u + k] = t.f32[3 * i + k];
        else truth64[3 * u + k] = t.f64[3 * i + k];
      }
      ++u;
    }
  });
  remap_loose(set, keep);
  set.owned = std::move(xyz);
  set.owned_truth32 = std::move(truth32);
  set.owned_truth64 = std::move(truth64);
  set.input_index = std::move(index);
  set.truth = PointTruth{t.f32 != nullptr ? set.owned_truth32.data() : nullptr,
                         t.f64 != nullptr ? set.owned_truth64.data() : nullptr, unique};
  set.xyz = floats_are_truth ? set.owned_truth32.data() : set.owned.data();
  set.count = unique;
  return true;
}

FramedSet unique_targets(const FramedSet& set, int threads) {
  FramedSet t;
  t.truth = set.truth;
  t.xyz = set.xyz;
  t.count = set.count;
  t.loose = set.loose;
  drop_duplicates(t, threads);
  return t;
}

void drop_duplicates(PointFrame& frame, int threads) {
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
