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
// POINT10, first (what every LASzip writer makes). ChunkDecoder takes only such lists.
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

// A chunk decoded a batch of records at a time (the caller's buffer need not hold the whole chunk: a chunk
// may hold every point of a file). Throws ShortChunk when the chunk ends before its points, DamagedChunk
// where damaged data can be told.
class ChunkDecoder {
 public:
  // chunk[0, bytes): the chunk's first bytes (all of them, or a first window with `source` giving the rest).
  ChunkDecoder(const uint8_t* chunk, uint64_t bytes, uint64_t points, const std::vector<Item>& items,
               uint32_t record_length, ByteSource* source = nullptr)
      : points_(points), record_length_(record_length) {
    if (points == 0) return;
    if (bytes < record_length) throw ShortChunk{};
    first_.assign(chunk, chunk + record_length);  // kept: a source may refill the window it lies in
    decoder_ = std::make_unique<ArithmeticDecoder>(chunk + record_length, chunk + bytes, source);
    // POINT10 is always the first item; the others follow in the VLR's order, each with its own decoder
    // as the reference makes them (a record may, oddly, list an item twice).
    point_ = std::make_unique<Point10Decoder>(*decoder_);
    uint32_t offset = items.empty() ? 0 : items[0].size;
    for (size_t i = 1; i < items.size(); ++i) {
      Step step{offset, nullptr, nullptr, nullptr};
      if (items[i].type == kItemGpsTime11) {
        gps_.push_back(std::make_unique<GpsTimeDecoder>(*decoder_));
        step.gps = gps_.back().get();
      } else if (items[i].type == kItemRgb12) {
        rgb_.push_back(std::make_unique<RgbDecoder>(*decoder_));
        step.rgb = rgb_.back().get();
      } else {
        extra_.push_back(std::make_unique<BytesDecoder>(*decoder_, items[i].size));
        step.bytes = extra_.back().get();
      }
      steps_.push_back(step);
      offset += items[i].size;
    }
  }

  // Decodes the chunk's next n records into out (n records of record_length bytes).
  void next(uint8_t* out, uint64_t n) {
    uint8_t* record = out;
    uint64_t p = 0;
    if (done_ == 0 && n > 0) {
      // The first point is stored raw; every item predicts the next point from it.
      std::memcpy(out, first_.data(), record_length_);
      point_->init(out);
      for (const Step& s : steps_) {
        if (s.gps) s.gps->init(out + s.offset);
        else if (s.rgb) s.rgb->init(out + s.offset);
        else s.bytes->init(out + s.offset);
      }
      record += record_length_;
      p = 1;
    }
    for (; p < n; ++p, record += record_length_) {
      point_->read(record);
      for (const Step& s : steps_) {
        if (s.gps) s.gps->read(record + s.offset);
        else if (s.rgb) s.rgb->read(record + s.offset);
        else s.bytes->read(record + s.offset);
      }
      // Past the end every symbol decodes from zeros: stop early rather than decode garbage for long.
      if (decoder_->overrun() > 4) throw ShortChunk{};
    }
    done_ += n;
    // The coder reads up to four bytes ahead of what it decodes; beyond that the chunk was cut short.
    if (done_ == points_ && decoder_ && decoder_->overrun() > 4) throw ShortChunk{};
  }

 private:
  struct Step {
    uint32_t offset;
    GpsTimeDecoder* gps;
    RgbDecoder* rgb;
    BytesDecoder* bytes;
  };
  std::vector<uint8_t> first_;
  uint64_t points_;
  uint32_t record_length_;
  uint64_t done_ = 0;
  std::unique_ptr<ArithmeticDecoder> decoder_;
  std::unique_ptr<Point10Decoder> point_;
  std::vector<std::unique_ptr<GpsTimeDecoder>> gps_;
  std::vector<std::unique_ptr<RgbDecoder>> rgb_;
  std::vector<std::unique_ptr<BytesDecoder>> extra_;
  std::vector<Step> steps_;  // the items after POINT10
};

}  // namespace xhd::laz
