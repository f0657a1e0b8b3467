// Order keys: an unsigned integer per float or double whose integer order is the numbers' order, with -0
// below +0. Bounds found as integer minima and maxima of keys are then exactly what JavaScript's Math.min
// and Math.max give (which also put -0 below +0), so the readers' bounds match src/io/geometry.ts's bit for
// bit; and NaN, whose keys lie beyond those of the infinities, falls outside any finite range.
#pragma once

#include <cstdint>
#include <cstring>

namespace xhd {

template <class T>
struct OrderKey;
template <>
struct OrderKey<float> {
  using type = uint32_t;
};
template <>
struct OrderKey<double> {
  using type = uint64_t;
};

template <class T>
typename OrderKey<T>::type order_key(T value) {
  using Key = typename OrderKey<T>::type;
  constexpr Key sign = Key(1) << (8 * sizeof(Key) - 1);
  Key bits;
  std::memcpy(&bits, &value, sizeof bits);
  // Negative numbers: larger magnitudes have larger bit patterns, so flip them all; positive: lift above.
  return (bits & sign) ? Key(~bits) : Key(bits | sign);
}

template <class T>
T from_order_key(typename OrderKey<T>::type key) {
  using Key = typename OrderKey<T>::type;
  constexpr Key sign = Key(1) << (8 * sizeof(Key) - 1);
  const Key bits = (key & sign) ? Key(key & ~sign) : Key(~key);
  T value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace xhd
