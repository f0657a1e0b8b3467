#include "point_subset.h"

#include <cstddef>
#include <vector>

#include "../abi/parallel.h"

namespace xhd {
namespace {

constexpr size_t kGrain = size_t(1) << 16;

// The set's loose points (point_frame.h) named by their positions in the picked set; an unpicked one leaves
// the list. One pass over keep up to the last loose point.
std::vector<uint32_t> picked_loose(const FramedSet& set, const uint8_t* keep) {
  std::vector<uint32_t> kept;
  size_t position = 0, i = 0;
  for (uint32_t l : set.loose) {
    for (; i < l; ++i) position += keep[i] != 0;
    if (keep[l]) kept.push_back(static_cast<uint32_t>(position));
  }
  return kept;
}

}  // namespace

FramedSet pick_points(const FramedSet& set, const uint8_t* keep, PickedIndex naming, int threads) {
  const size_t n = set.count;
  // Each block's picks go after those of the blocks before it.
  const size_t blocks = (n + kGrain - 1) / kGrain;
  std::vector<size_t> first(blocks + 1, 0);
  parallel_blocks(n, kGrain, threads, [&](size_t begin, size_t end, int) {
    size_t kept = 0;
    for (size_t i = begin; i < end; ++i) kept += keep[i] != 0;
    first[begin / kGrain + 1] = kept;
  });
  for (size_t b = 0; b < blocks; ++b) first[b + 1] += first[b];
  const size_t picked = first[blocks];

  const PointTruth t = set.truth;
  const bool floats_are_truth = t.f32 != nullptr && set.xyz == t.f32;
  FramedSet out;
  out.input_index.resize(picked);
  out.owned.resize(floats_are_truth ? 0 : 3 * picked);
  out.owned_truth32.resize(t.f32 != nullptr ? 3 * picked : 0);
  out.owned_truth64.resize(t.f64 != nullptr ? 3 * picked : 0);
  parallel_blocks(n, kGrain, threads, [&](size_t begin, size_t end, int) {
    size_t u = first[begin / kGrain];
    for (size_t i = begin; i < end; ++i) {
      if (!keep[i]) continue;
      const int64_t from = naming == PickedIndex::kInput ? set.input_of(static_cast<int64_t>(i)) : static_cast<int64_t>(i);
      out.input_index[u] = static_cast<uint32_t>(from);
      for (int k = 0; k < 3; ++k) {
        if (!floats_are_truth) out.owned[3 * u + k] = set.xyz[3 * i + k];
        if (t.f32 != nullptr) out.owned_truth32[3 * u + k] = t.f32[3 * i + k];
        else out.owned_truth64[3 * u + k] = t.f64[3 * i + k];
      }
      ++u;
    }
  });
  out.loose = picked_loose(set, keep);
  out.truth = PointTruth{t.f32 != nullptr ? out.owned_truth32.data() : nullptr,
                         t.f64 != nullptr ? out.owned_truth64.data() : nullptr, picked};
  out.xyz = floats_are_truth ? out.owned_truth32.data() : out.owned.data();
  out.count = picked;
  return out;
}

}  // namespace xhd
