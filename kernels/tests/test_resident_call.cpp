// The resident kernel's call word (kernels/cuda/resident_call.h): every field comes back as it went in over its
// whole range, the number wraps at 40 bits into the same word as its remainder, and the fields do not overlap.
#include <random>

#include "../cuda/resident_call.h"
#include "check.h"

namespace {

bool same(const xhd::ResidentCall& a, const xhd::ResidentCall& b) {
  return a.number == b.number && a.kind == b.kind && a.frames == b.frames && a.first == b.first && a.slot == b.slot &&
         a.start == b.start && a.descent == b.descent && a.trace == b.trace && a.cut == b.cut;
}

}  // namespace

TEST(resident_call_word_round_trips_every_field) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; ++i) {
    xhd::ResidentCall c{};
    c.number = rng() % xhd::kResidentNumbers;
    c.kind = static_cast<unsigned int>(rng() % 4);
    c.frames = 1 + static_cast<unsigned int>(rng() % 64);
    c.first = static_cast<unsigned int>(rng() % 64);
    c.slot = static_cast<unsigned int>(rng() % 4);
    c.start = rng() & 1, c.descent = rng() & 1, c.trace = rng() & 1, c.cut = rng() & 1;
    CHECK(same(xhd::unpack_call(xhd::pack_call(c)), c));
  }
  // The extremes, one field at a time over zeros elsewhere: a field spilling into its neighbour shows here.
  xhd::ResidentCall top{};
  top.number = xhd::kResidentNumbers - 1, top.frames = 1;
  CHECK(same(xhd::unpack_call(xhd::pack_call(top)), top));
  xhd::ResidentCall wide{};
  wide.kind = xhd::kResidentLeave, wide.frames = 64, wide.first = 63, wide.slot = 3;
  wide.start = wide.descent = wide.trace = wide.cut = true;
  const xhd::ResidentCall back = xhd::unpack_call(xhd::pack_call(wide));
  CHECK(same(back, wide));
  CHECK_EQ(back.number, 0ull);
}

TEST(resident_call_number_wraps_at_forty_bits) {
  xhd::ResidentCall c{};
  c.frames = 3;
  c.number = xhd::kResidentNumbers + 5;
  CHECK_EQ(xhd::unpack_call(xhd::pack_call(c)).number, 5ull);
  CHECK_EQ(xhd::unpack_call(xhd::pack_call(c)).frames, 3u);
}

// A payload word (resident_call.h) brings its 32 bits back whole and passes as its own call's only: never as the call
// before or after it, across the 40-bit numbers' wrap too, which is what lets the kernel tell a payload the host is
// still writing (words of the call before) from the call's own.
TEST(resident_payload_word_belongs_to_its_call_only) {
  std::mt19937_64 rng(12);
  const unsigned long long edges[] = {0ull, 1ull, 0xffffffffull, 0x100000000ull, xhd::kResidentNumbers - 1};
  for (int i = 0; i < 20000; ++i) {
    const unsigned long long number = i < 5 ? edges[i] : rng() % xhd::kResidentNumbers;
    const unsigned int data = static_cast<unsigned int>(rng());
    const unsigned long long word = xhd::payload_word(number, data);
    CHECK_EQ(xhd::payload_data(word), data);
    CHECK(xhd::payload_of_call(word, number));
    const unsigned long long next = (number + 1) % xhd::kResidentNumbers;
    const unsigned long long before = (number + xhd::kResidentNumbers - 1) % xhd::kResidentNumbers;
    CHECK(!xhd::payload_of_call(word, next));
    CHECK(!xhd::payload_of_call(word, before));
    // The word of the call before, as a look may catch it, does not pass as this call's.
    CHECK(!xhd::payload_of_call(xhd::payload_word(before, data), number));
  }
  // The kernel's first look ever: a zeroed mailbox is no payload of call 1.
  CHECK(!xhd::payload_of_call(0ull, 1ull));
}
