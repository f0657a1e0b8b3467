// One LAZ chunk of point formats 0 to 3 (and their extra bytes) decoded into raw LAS records, as
// src/io/laz-v2-chunk.ts: the chunk's first point is stored raw, the rest arithmetic coded point after point,
// every item of a point in turn.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "laz_items_decode.h"

namespace xhd::laz {

struct Item {
  uint16_t type, size, version;
};

// Whether every item is one these decoders read (version 2 of POINT10, GPSTIME11, RGB12, BYTE), with one
// POINT10, first (what every LASzip writer makes). decode_chunk takes only such lists.
inline bool decodes_v2(const Item* items, uint32_t count) {
  if (count == 0 || items[0].type != kItemPoint10) return false;
  for (uint32_t i = 0; i < count; ++i) {
    const Item& it = items[i];
    if (it.version != 2 || (it.type == kItemPoint10) != (i == 0)) return false;
    const bool known = (it.type == kItemPoint10 && it.size == 20) || (it.type == kItemGpsTime11 && it.size == 8) ||
                       (it.type == kItemRgb12 && it.size == 6) || (it.type == kItemByte && it.size > 0);
    if (!known) return false;
  }
  return true;
}

// The chunk's bytes ran out before its points did.
struct ShortChunk {};

// Decodes `points` records of `record_length` bytes from chunk[0, bytes) into out. Throws ShortChunk when
// the chunk ends before its points, DamagedChunk where damaged data can be told.
inline void decode_chunk(const uint8_t* chunk, uint64_t bytes, uint64_t points, const std::vector<Item>& items,
                         uint32_t record_length, uint8_t* out) {
  if (points == 0) return;
  if (bytes < record_length) throw ShortChunk{};
  std::memcpy(out, chunk, record_length);
  ArithmeticDecoder decoder(chunk + record_length, chunk + bytes);
  // POINT10 is always the first item; the others follow in the VLR's order.
  Point10Decoder point(decoder);
  // Each item its own decoder, as the reference makes them (a record may, oddly, list an item twice).
  std::vector<std::unique_ptr<GpsTimeDecoder>> gps;
  std::vector<std::unique_ptr<RgbDecoder>> rgb;
  std::vector<std::unique_ptr<BytesDecoder>> extra;
  struct Step {
    uint16_t type;
    uint32_t offset;
    GpsTimeDecoder* gps;
    RgbDecoder* rgb;
    BytesDecoder* bytes;
  };
  std::vector<Step> steps;
  uint32_t offset = 0;
  for (const Item& item : items) {
    Step step{item.type, offset, nullptr, nullptr, nullptr};
    if (item.type == kItemGpsTime11) {
      gps.push_back(std::make_unique<GpsTimeDecoder>(decoder));
      step.gps = gps.back().get();
    } else if (item.type == kItemRgb12) {
      rgb.push_back(std::make_unique<RgbDecoder>(decoder));
      step.rgb = rgb.back().get();
    } else if (item.type == kItemByte) {
      extra.push_back(std::make_unique<BytesDecoder>(decoder, item.size));
      step.bytes = extra.back().get();
    }
    steps.push_back(step);
    offset += item.size;
  }
  for (const Step& s : steps) {
    const uint8_t* at = out + s.offset;
    if (s.gps) s.gps->init(at);
    else if (s.rgb) s.rgb->init(at);
    else if (s.bytes) s.bytes->init(at);
    else point.init(at);
  }
  uint8_t* record = out + record_length;
  for (uint64_t p = 1; p < points; ++p, record += record_length) {
    point.read(record);
    for (size_t i = 1; i < steps.size(); ++i) {
      const Step& s = steps[i];
      uint8_t* at = record + s.offset;
      if (s.gps) s.gps->read(at);
      else if (s.rgb) s.rgb->read(at);
      else s.bytes->read(at);
    }
    // Past the end every symbol decodes from zeros: stop early rather than decode garbage for long.
    if (decoder.overrun() > 4) throw ShortChunk{};
  }
  // The coder reads up to four bytes ahead of what it decodes; beyond that the chunk was cut short.
  if (decoder.overrun() > 4) throw ShortChunk{};
}

}  // namespace xhd::laz
