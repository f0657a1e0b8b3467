// Integer images of floats that keep their order, so integer atomicMin/atomicMax act on floats.
#pragma once

namespace xhd {

__device__ __forceinline__ int float_to_ordered(float f) {
  const int i = __float_as_int(f);
  return i >= 0 ? i : i ^ 0x7fffffff;
}

__device__ __forceinline__ float ordered_to_float(int i) { return __int_as_float(i >= 0 ? i : i ^ 0x7fffffff); }

// The same for doubles (64-bit atomicMin/atomicMax on long long).
__device__ __forceinline__ long long double_to_ordered(double d) {
  const long long i = __double_as_longlong(d);
  return i >= 0 ? i : i ^ 0x7fffffffffffffffll;
}

__device__ __forceinline__ double ordered_to_double(long long i) {
  return __longlong_as_double(i >= 0 ? i : i ^ 0x7fffffffffffffffll);
}

}  // namespace xhd
