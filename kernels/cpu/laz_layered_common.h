// What the decoder (laz_layered_decode.h) and the encoder (laz_layered_encode.h) of LASzip's layered items
// share: the items of point formats 6 to 8 (POINT14, RGB14, RGBNIR14, BYTE14, version 3), the fields of a
// POINT14 record, and the two context tables of its returns. In a layered chunk the first record is stored
// raw, then the point count, then each item's layer sizes, then the layers: every field of the point (X and
// Y together, Z, the class, the flags, ...) in an arithmetic-coded stream of its own, so that a reader may
// skip the fields it does not want. A layer of zero bytes means the field never changed in the chunk.
//
// Scanner channels: each of the four has its own contexts (models and last values), made from the previous
// point's when a channel first appears. LASzip hands the other items the channel only on the first point
// and on a point whose channel changed (0 otherwise), and those items keep predicting from the channel they
// last made; both quirks are part of the format as LASzip and laz-perf read it, and are kept here.
#pragma once

#include <cstdint>

#include "laz_chunk_decode.h"
#include "laz_item_common.h"

namespace xhd::laz {

constexpr uint16_t kItemPoint14 = 10;
constexpr uint16_t kItemRgb14 = 11;
constexpr uint16_t kItemRgbNir14 = 12;
constexpr uint16_t kItemByte14 = 14;
constexpr uint16_t kLayeredVersion = 3;

// The layers of POINT14, in their order in the chunk.
enum Point14Layer {
  kXY,
  kZ,
  kClass,
  kFlags,
  kIntensity,
  kScanAngle,
  kUserData,
  kPointSource,
  kGpsTime,
  kPoint14Layers
};

// Whether the items are those of point formats 6, 7 or 8 as LASzip lays them out: POINT14 first, then RGB14
// or RGBNIR14, then BYTE14 (extra bytes), each version 3. Formats 9 and 10 (wave packets) are not.
inline bool decodes_layered(const Item* items, uint32_t count) {
  if (count == 0 || items[0].type != kItemPoint14 || items[0].size != 30 || items[0].version != kLayeredVersion)
    return false;
  uint32_t i = 1;
  if (i < count &&
      ((items[i].type == kItemRgb14 && items[i].size == 6) || (items[i].type == kItemRgbNir14 && items[i].size == 8))) {
    if (items[i].version != kLayeredVersion) return false;
    ++i;
  }
  if (i < count && items[i].type == kItemByte14 && items[i].size > 0 && items[i].version == kLayeredVersion) ++i;
  return i == count;
}

// The context of a return (return r of n, 0-15 each) for the X and Y medians: one of six.
constexpr uint8_t kReturnContext6[16][16] = {
    {0, 1, 2, 3, 4, 5, 3, 4, 4, 5, 5, 5, 5, 5, 5, 5}, {1, 0, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3},
    {2, 1, 2, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3}, {3, 3, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
    {4, 3, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, {5, 3, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
    {3, 3, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4}, {4, 3, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4},
    {4, 3, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4}, {5, 3, 4, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4},
    {5, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4}, {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 4, 4, 4},
    {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 4, 4}, {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 4},
    {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5}, {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5}};

// The context of a return for Z: how far r is from n, at most 7.
constexpr uint32_t return_level8(uint32_t n, uint32_t r) {
  const uint32_t d = n > r ? n - r : r - n;
  return d < 7 ? d : 7;
}

// The fields of a POINT14 record (30 bytes of point format 6), as both coders keep the last point's.
struct Point14 {
  int32_t x = 0, y = 0, z = 0;
  uint16_t intensity = 0;
  uint8_t return_number = 0, return_count = 0;                         // 4 bits each
  uint8_t class_flags = 0, channel = 0, scan_direction = 0, edge = 0;  // 4, 2, 1, 1 bits
  uint8_t classification = 0, user_data = 0;
  uint16_t scan_angle = 0;  // an int16, kept as its bits
  uint16_t point_source = 0;
  uint64_t gps_time = 0;  // a double, kept as its bits: a time that changed is one whose bits changed

  void load_from(const uint8_t* r) {
    x = load<int32_t>(r);
    y = load<int32_t>(r + 4);
    z = load<int32_t>(r + 8);
    intensity = load<uint16_t>(r + 12);
    return_number = r[14] & 15;
    return_count = r[14] >> 4;
    class_flags = r[15] & 15;
    channel = (r[15] >> 4) & 3;
    scan_direction = (r[15] >> 6) & 1;
    edge = r[15] >> 7;
    classification = r[16];
    user_data = r[17];
    scan_angle = load<uint16_t>(r + 18);
    point_source = load<uint16_t>(r + 20);
    gps_time = load<uint64_t>(r + 22);
  }

  void store_to(uint8_t* r) const {
    store<int32_t>(r, x);
    store<int32_t>(r + 4, y);
    store<int32_t>(r + 8, z);
    store<uint16_t>(r + 12, intensity);
    r[14] = static_cast<uint8_t>(return_number | (return_count << 4));
    r[15] = static_cast<uint8_t>(class_flags | (channel << 4) | (scan_direction << 6) | (edge << 7));
    r[16] = classification;
    r[17] = user_data;
    store<uint16_t>(r + 18, scan_angle);
    store<uint16_t>(r + 20, point_source);
    store<uint64_t>(r + 22, gps_time);
  }

  // The flags coded in the flags layer (the channel has its own symbol in the X and Y layer).
  uint32_t flags() const { return class_flags | (scan_direction << 4) | (edge << 5); }
};

// The GPS time codes of POINT14: as GPSTIME11's without the "unchanged" code (a flag of the point says so).
constexpr uint32_t kGps14CodeFull = 511;
constexpr uint32_t kGps14Symbols = 515;
constexpr uint32_t kGps14ZeroDiffSymbols = 5;

}  // namespace xhd::laz
