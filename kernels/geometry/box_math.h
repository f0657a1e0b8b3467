// Point and box distance math shared by every backend. Squared distances throughout: square roots
// happen once, at the edge. XHD_HD marks functions compiled for both host and device.
#pragma once

#if defined(__CUDACC__)
#define XHD_HD __host__ __device__ __forceinline__
#else
#define XHD_HD inline
#endif

namespace xhd {

struct Vec3 {
  float x, y, z;
};

// Minimum bounding rectangle of a group of points. An empty box has min > max.
struct Box {
  float min[3];
  float max[3];
};

XHD_HD float dist2(float ax, float ay, float az, float bx, float by, float bz) {
  const float dx = ax - bx, dy = ay - by, dz = az - bz;
  return dx * dx + dy * dy + dz * dz;
}

// Squared distance from p to the nearest point of the box (0 inside): the MinDist estimator.
XHD_HD float min_dist2(const float p[3], const Box& b) {
  float s = 0.f;
  for (int i = 0; i < 3; ++i) {
    const float below = b.min[i] - p[i];
    const float above = p[i] - b.max[i];
    const float d = below > 0.f ? below : (above > 0.f ? above : 0.f);
    s += d * d;
  }
  return s;
}

// Squared distance from p to the farthest corner of the box: the MaxDist estimator. Every point
// inside the box is at most this far from p.
XHD_HD float max_dist2(const float p[3], const Box& b) {
  float s = 0.f;
  for (int i = 0; i < 3; ++i) {
    const float lo = p[i] - b.min[i];
    const float hi = b.max[i] - p[i];
    const float d = lo > hi ? lo : hi;
    s += d * d;
  }
  return s;
}

XHD_HD void box_make_empty(Box& b) {
  for (int i = 0; i < 3; ++i) {
    b.min[i] = 3.402823466e38f;
    b.max[i] = -3.402823466e38f;
  }
}

XHD_HD void box_grow(Box& b, const float p[3]) {
  for (int i = 0; i < 3; ++i) {
    b.min[i] = p[i] < b.min[i] ? p[i] : b.min[i];
    b.max[i] = p[i] > b.max[i] ? p[i] : b.max[i];
  }
}

XHD_HD void box_merge(Box& b, const Box& o) {
  for (int i = 0; i < 3; ++i) {
    b.min[i] = o.min[i] < b.min[i] ? o.min[i] : b.min[i];
    b.max[i] = o.max[i] > b.max[i] ? o.max[i] : b.max[i];
  }
}

XHD_HD bool box_is_empty(const Box& b) { return b.min[0] > b.max[0]; }

// Spreads the low 10 bits of v so that two zero bits follow each one (for 30-bit Morton codes).
XHD_HD unsigned int spread_bits_10(unsigned int v) {
  v &= 0x3ffu;
  v = (v | (v << 16)) & 0x030000ffu;
  v = (v | (v << 8)) & 0x0300f00fu;
  v = (v | (v << 4)) & 0x030c30c3u;
  v = (v | (v << 2)) & 0x09249249u;
  return v;
}

// Spreads the low 15 bits of v so that one zero bit follows each one (2D Morton codes).
XHD_HD unsigned int spread_bits_15(unsigned int v) {
  v &= 0x7fffu;
  v = (v | (v << 8)) & 0x00ff00ffu;
  v = (v | (v << 4)) & 0x0f0f0f0fu;
  v = (v | (v << 2)) & 0x33333333u;
  v = (v | (v << 1)) & 0x55555555u;
  return v;
}

XHD_HD unsigned int morton3_10(unsigned int x, unsigned int y, unsigned int z) {
  return (spread_bits_10(x) << 2) | (spread_bits_10(y) << 1) | spread_bits_10(z);
}

}  // namespace xhd
