// Stable parallel sort of the items 0..n-1 by small unsigned keys (cell numbers, Morton codes): an LSD radix
// sort over digits of at most kMaxDigitBits bits.
//
// Each pass splits its input into contiguous parts, counts every part's digits, and scatters each part to
// offsets that put equal digits in part order. So every pass is stable, and so is the whole sort; a stable
// sort has exactly one result, so the order does not depend on the thread count (nor on the parts).
//
// Memory stays proportional to n, whatever the key range: per-part histograms of 2^kMaxDigitBits counts,
// and scratch for the keys and items between passes (two n-sized arrays, three when there are 3+ passes).
// A counting sort over the whole key range would need a histogram per thread the size of that range.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../abi/large_buffer.h"
#include "../abi/parallel.h"

namespace xhd {
namespace sort_by_key_detail {

// 2^11 buckets: each thread's scatter then writes to 2 x 2048 places at once, which the caches and TLBs
// still hold; wider digits would save a pass on 23..33-bit keys but thrash them.
constexpr int kMaxDigitBits = 11;

// Items per part at least: below this, a part's histogram (clearing and prefix summing 2^11 counts) costs
// more than its scatter.
constexpr size_t kMinPartItems = size_t(1) << 15;

// Parts per thread: parts are taken dynamically, so a thread slowed down (by a busy core) does less.
constexpr size_t kPartsPerThread = 4;

// Digit width and pass count for keys of key_bits bits: as few passes as the widest digit allows, the bits
// shared evenly among them. Keys of 0 bits (all equal) still take one pass, which hands the items out.
struct DigitPlan {
  int passes;
  int bits;
};

inline DigitPlan plan_digits(int key_bits) {
  const int passes = std::max(1, (key_bits + kMaxDigitBits - 1) / kMaxDigitBits);
  return {passes, (key_bits + passes - 1) / passes};
}

// One stable pass over n (key, item) pairs by the digit (key >> shift) & (2^bits - 1):
// emit(position, key, item) is called once per pair, position being its rank in the pass's order.
// item_at(p) gives the item of input position p (an array, or p itself on the first pass).
template <class ItemAt, class Emit>
void radix_pass(const uint32_t* keys, ItemAt item_at, size_t n, int shift, int bits, size_t parts, int threads,
                std::vector<uint32_t>& offsets, Emit emit) {
  const size_t buckets = size_t(1) << bits;
  const uint32_t mask = static_cast<uint32_t>(buckets - 1);
  const auto part_begin = [&](size_t part) { return n * part / parts; };
  offsets.assign(parts * buckets, 0);
  parallel_blocks(parts, 1, threads, [&](size_t part, size_t, int) {
    uint32_t* count = &offsets[part * buckets];
    for (size_t p = part_begin(part), end = part_begin(part + 1); p < end; ++p) ++count[(keys[p] >> shift) & mask];
  });
  // Digit-major, then part order: the offsets of a digit's pairs follow those of every smaller digit, and
  // within a digit each part's pairs follow those of the parts before it (stability).
  uint32_t running = 0;
  for (size_t digit = 0; digit < buckets; ++digit)
    for (size_t part = 0; part < parts; ++part) {
      uint32_t& slot = offsets[part * buckets + digit];
      const uint32_t count = slot;
      slot = running;
      running += count;
    }
  parallel_blocks(parts, 1, threads, [&](size_t part, size_t, int) {
    uint32_t* next = &offsets[part * buckets];
    for (size_t p = part_begin(part), end = part_begin(part + 1); p < end; ++p) {
      const uint32_t key = keys[p];
      emit(next[(key >> shift) & mask]++, key, item_at(p));
    }
  });
}

}  // namespace sort_by_key_detail

// Sorts the items 0..n-1 (n < 2^32) by keys[item] < 2^key_bits, stably: place(position, key, item) is called
// once for every item, position being its rank (ties in item order), from several threads at once (each
// position once). keys serves as scratch and is left in no particular order.
template <class Place>
void parallel_sort_by_key(uint32_t* keys, size_t n, int key_bits, int threads, Place place) {
  using namespace sort_by_key_detail;
  if (n == 0) return;
  const DigitPlan plan = plan_digits(key_bits);
  const size_t parts =
      std::clamp<size_t>(n / kMinPartItems, 1, kPartsPerThread * static_cast<size_t>(std::max(threads, 1)));
  std::vector<uint32_t> offsets;
  const auto identity = [](size_t p) { return static_cast<uint32_t>(p); };
  if (plan.passes == 1) {
    radix_pass(keys, identity, n, 0, plan.bits, parts, threads, offsets, place);
    return;
  }
  // Pairs go back and forth between (keys, items_a) and (other_keys, items_b); the first pass reads the
  // items as positions, so items_a is only needed from the third pass on.
  UninitLargeVector<uint32_t> other_keys(n), items_b(n), items_a(plan.passes > 2 ? n : 0);
  uint32_t* from_keys = keys;
  uint32_t* from_items = nullptr;
  uint32_t* to_keys = other_keys.data();
  uint32_t* to_items = items_b.data();
  for (int pass = 0; pass < plan.passes; ++pass) {
    const int shift = pass * plan.bits;
    const auto scatter = [to_keys, to_items](uint32_t position, uint32_t key, uint32_t item) {
      to_keys[position] = key;
      to_items[position] = item;
    };
    const uint32_t* items = from_items;
    const auto item_at = [items](size_t p) { return items[p]; };
    if (pass == plan.passes - 1) radix_pass(from_keys, item_at, n, shift, plan.bits, parts, threads, offsets, place);
    else if (pass == 0) radix_pass(from_keys, identity, n, shift, plan.bits, parts, threads, offsets, scatter);
    else radix_pass(from_keys, item_at, n, shift, plan.bits, parts, threads, offsets, scatter);
    std::swap(from_keys, to_keys);
    from_items = to_items;
    to_items = to_items == items_b.data() ? items_a.data() : items_b.data();
  }
}

}  // namespace xhd
