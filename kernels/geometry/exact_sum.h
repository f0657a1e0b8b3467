// The exact sum of nonnegative doubles, rounded once to the nearest double (ties to even): what the statistics of
// per-point distances add up (their sum, and the sum of their squares each rounded to a double), on the host and on
// the device alike. The result does not depend on the order of the additions, so a parallel sum on any number of
// threads or GPU blocks gives the same bits as src/metrics/exact-sum.ts.
//
// The accumulator holds the value as 32-bit digits in 64-bit limbs, digit i worth 2^(32·i − 1088): every finite
// double is a whole multiple of 2^-1074 below 2^1024, so 68 digits hold any sum exactly. Each addition puts at
// most 2^33 into a limb, so a limb takes 2^31 additions before normalize() must carry its high half on.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define XHD_EXACT_SUM_FN __host__ __device__ inline
#else
#define XHD_EXACT_SUM_FN inline
#endif

namespace xhd {

constexpr int kSumDigits = 68;
constexpr int kSumLowestBit = -1088;  // the worth of digit 0's lowest bit, a multiple of 32 at or below -1074
constexpr uint64_t kDigitMask = 0xffffffffull;

struct ExactSum {
  uint64_t limb[kSumDigits];
};

XHD_EXACT_SUM_FN void exact_sum_clear(ExactSum& s) {
  for (int i = 0; i < kSumDigits; ++i) s.limb[i] = 0;
}

// The digit index and the three addends of v (finite, >= 0; zero adds nothing): v = m · 2^e with a 53-bit m.
struct SumTerm {
  int digit;
  uint64_t part[3];
};

XHD_EXACT_SUM_FN uint64_t double_bits(double v) {
#ifdef __CUDA_ARCH__
  return static_cast<uint64_t>(__double_as_longlong(v));
#else
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
#endif
}

XHD_EXACT_SUM_FN bool exact_sum_term(double v, SumTerm& t) {
  if (!(v > 0.0)) return false;
  const uint64_t bits = double_bits(v);
  const int biased = static_cast<int>(bits >> 52);  // the sign bit is 0
  uint64_t m = bits & ((uint64_t(1) << 52) - 1);
  int e = -1074;  // a subnormal: m · 2^-1074
  if (biased > 0) {
    m |= uint64_t(1) << 52;
    e = biased - 1075;
  }
  const int position = e - kSumLowestBit;  // >= 14
  t.digit = position / 32;
  const int shift = position % 32;
  const uint64_t low = (m & kDigitMask) << shift, high = (m >> 32) << shift;
  t.part[0] = low & kDigitMask;
  t.part[1] = (low >> 32) + (high & kDigitMask);
  t.part[2] = high >> 32;
  return true;
}

XHD_EXACT_SUM_FN void exact_sum_add(ExactSum& s, double v) {
  SumTerm t;
  if (!exact_sum_term(v, t)) return;
  s.limb[t.digit] += t.part[0];
  s.limb[t.digit + 1] += t.part[1];
  if (t.digit + 2 < kSumDigits) s.limb[t.digit + 2] += t.part[2];
}

// Carries every limb's high half into the next, leaving each below 2^32 (the value unchanged).
XHD_EXACT_SUM_FN void exact_sum_normalize(ExactSum& s) {
  uint64_t carry = 0;
  for (int i = 0; i < kSumDigits; ++i) {
    const uint64_t v = s.limb[i] + carry;  // limbs below 2^63 and carries below 2^32: no overflow
    s.limb[i] = v & kDigitMask;
    carry = v >> 32;
  }
}

// Adds another (normalized or not, each limb below 2^62) accumulator's value.
XHD_EXACT_SUM_FN void exact_sum_merge(ExactSum& s, const ExactSum& other) {
  for (int i = 0; i < kSumDigits; ++i) s.limb[i] += other.limb[i];
}

XHD_EXACT_SUM_FN int leading_bit(uint64_t v) {  // v != 0, v < 2^32
  int bit = 0;
  while (v >> (bit + 1)) ++bit;
  return bit;
}

// The value rounded to the nearest double, ties to even (normalizes s first).
XHD_EXACT_SUM_FN double exact_sum_round(ExactSum& s) {
  exact_sum_normalize(s);
  int top = kSumDigits - 1;
  while (top >= 0 && s.limb[top] == 0) --top;
  if (top < 0) return 0.0;
  const int lead = leading_bit(s.limb[top]);
  const int position = 32 * top + lead;  // the leading one's bit, counted from digit 0's lowest
  // Where the result's last bit lies: 53 bits below the leading one, or the 2^-1074 grid for a subnormal.
  const int unit = position - 52 > -1074 - kSumLowestBit ? position - 52 : -1074 - kSumLowestBit;
  // The bits from `unit` upwards (at most 53 of them) and the round and sticky bits below.
  uint64_t mantissa = 0;
  for (int bit = position; bit >= unit; --bit) mantissa = (mantissa << 1) | ((s.limb[bit / 32] >> (bit % 32)) & 1);
  bool round = false, sticky = false;
  if (unit >= 1) {
    const int r = unit - 1;
    round = ((s.limb[r / 32] >> (r % 32)) & 1) != 0;
    for (int d = 0; d <= r / 32 && !sticky; ++d) {
      const uint64_t below = d < r / 32 ? s.limb[d] : (s.limb[d] & ((uint64_t(1) << (r % 32)) - 1));
      sticky = below != 0;
    }
  }
  if (round && (sticky || (mantissa & 1))) ++mantissa;  // a carry to 2^53 stays exact in the double below
  const double result = ldexp(static_cast<double>(mantissa), unit + kSumLowestBit);
  return result;
}

}  // namespace xhd
