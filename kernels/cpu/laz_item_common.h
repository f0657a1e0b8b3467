// What the LASzip version-2 items' decoders (laz_items_decode.h) and encoders (laz_items_encode.h) share:
// the item type codes, the return contexts of POINT10, its median-of-five predictor, little-endian access
// to a record's bytes, and the byte folds of the colour and extra-bytes items.
#pragma once

#include <cstdint>
#include <cstring>

namespace xhd::laz {

// Item types of the LASzip VLR.
constexpr uint16_t kItemByte = 0;
constexpr uint16_t kItemPoint10 = 6;
constexpr uint16_t kItemGpsTime11 = 7;
constexpr uint16_t kItemRgb12 = 8;

// The context of a return (return number r of n): LASzip's two 8 x 8 tables, indexed [n][r].
constexpr uint8_t kReturnMap[64] = {15, 14, 13, 12, 11, 10, 9,  8,  14, 0,  1,  3,  6,  10, 10, 9,
                                    13, 1,  2,  4,  7,  11, 11, 10, 12, 3,  4,  5,  8,  12, 12, 11,
                                    11, 6,  7,  8,  9,  13, 13, 12, 10, 10, 11, 12, 13, 14, 14, 13,
                                    9,  10, 11, 12, 13, 14, 15, 14, 8,  9,  10, 11, 12, 13, 14, 15};

constexpr uint8_t return_level(uint32_t index) {
  const int n = static_cast<int>(index >> 3), r = static_cast<int>(index & 7);
  return static_cast<uint8_t>(n > r ? n - r : r - n);
}

inline uint32_t fold(int32_t n) { return static_cast<uint32_t>(n < 0 ? n + 256 : n > 255 ? n - 256 : n); }
inline int32_t clamp_byte(int32_t n) { return n < 0 ? 0 : n > 255 ? 255 : n; }

// Records are little-endian, as is every host xhd builds for.
template <class T>
inline T load(const uint8_t* at) {
  T v;
  std::memcpy(&v, at, sizeof v);
  return v;
}
template <class T>
inline void store(uint8_t* at, T v) {
  std::memcpy(at, &v, sizeof v);
}

// The median of the last five values, kept as LASzip keeps it (a sorted window that alternates its side).
class Median5 {
 public:
  int32_t get() const { return v_[2]; }

  void add(int32_t x) {
    int32_t* v = v_;
    if (high_) {
      if (x < v[2]) {
        v[4] = v[3];
        v[3] = v[2];
        if (x < v[0]) {
          v[2] = v[1];
          v[1] = v[0];
          v[0] = x;
        } else if (x < v[1]) {
          v[2] = v[1];
          v[1] = x;
        } else {
          v[2] = x;
        }
      } else {
        if (x < v[3]) {
          v[4] = v[3];
          v[3] = x;
        } else {
          v[4] = x;
        }
        high_ = false;
      }
    } else if (v[2] < x) {
      v[0] = v[1];
      v[1] = v[2];
      if (v[4] < x) {
        v[2] = v[3];
        v[3] = v[4];
        v[4] = x;
      } else if (v[3] < x) {
        v[2] = v[3];
        v[3] = x;
      } else {
        v[2] = x;
      }
    } else {
      if (v[1] < x) {
        v[0] = v[1];
        v[1] = x;
      } else {
        v[0] = x;
      }
      high_ = true;
    }
  }

 private:
  int32_t v_[5] = {0, 0, 0, 0, 0};
  bool high_ = true;
};

// The fields of a POINT10 item, as both coders keep the previous point's.
struct Point10 {
  int32_t x = 0, y = 0, z = 0;
  uint16_t intensity = 0;
  uint8_t bits = 0, classification = 0, scan_angle = 0, user_data = 0;
  uint16_t point_source = 0;

  void load_from(const uint8_t* r) {
    x = load<int32_t>(r);
    y = load<int32_t>(r + 4);
    z = load<int32_t>(r + 8);
    intensity = load<uint16_t>(r + 12);
    bits = r[14];
    classification = r[15];
    scan_angle = r[16];
    user_data = r[17];
    point_source = load<uint16_t>(r + 18);
  }

  void store_to(uint8_t* r) const {
    store<int32_t>(r, x);
    store<int32_t>(r + 4, y);
    store<int32_t>(r + 8, z);
    store<uint16_t>(r + 12, intensity);
    r[14] = bits;
    r[15] = classification;
    r[16] = scan_angle;
    r[17] = user_data;
    store<uint16_t>(r + 18, point_source);
  }
};

// GPSTIME11's codes for the multiplier of the last difference.
constexpr int32_t kGpsMulti = 500;
constexpr int32_t kGpsMultiMinus = -10;
constexpr uint32_t kGpsMultiUnchanged = kGpsMulti - kGpsMultiMinus + 1;
constexpr uint32_t kGpsMultiCodeFull = kGpsMulti - kGpsMultiMinus + 2;
constexpr uint32_t kGpsMultiTotal = kGpsMulti - kGpsMultiMinus + 6;

}  // namespace xhd::laz
