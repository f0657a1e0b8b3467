// One LAZ chunk of point formats 0 to 3 (and their extra bytes) encoded from raw LAS records: the inverse of
// laz_chunk_decode.h. The first record is stored raw, the rest arithmetic coded point after point, every
// item of a point in turn; the coder is flushed at the chunk's end, so that each chunk decodes on its own.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "laz_chunk_decode.h"
#include "laz_items_encode.h"

namespace xhd::laz {

// Appends the chunk of `points` records (record_length bytes each, laid out as `items`, which decodes_v2
// accepts) to out.
inline void encode_chunk(const uint8_t* records, uint64_t points, const std::vector<Item>& items,
                         uint32_t record_length, std::vector<uint8_t>& out) {
  if (points == 0) return;
  out.insert(out.end(), records, records + record_length);
  ArithmeticEncoder encoder(out);
  Point10Encoder point(encoder);
  std::vector<std::unique_ptr<GpsTimeEncoder>> gps;
  std::vector<std::unique_ptr<RgbEncoder>> rgb;
  std::vector<std::unique_ptr<BytesEncoder>> extra;
  struct Step {
    uint32_t offset;
    GpsTimeEncoder* gps;
    RgbEncoder* rgb;
    BytesEncoder* bytes;
  };
  std::vector<Step> steps;  // the items after POINT10
  uint32_t offset = items.empty() ? 0 : items[0].size;
  for (size_t i = 1; i < items.size(); ++i) {
    Step step{offset, nullptr, nullptr, nullptr};
    if (items[i].type == kItemGpsTime11) {
      gps.push_back(std::make_unique<GpsTimeEncoder>(encoder));
      step.gps = gps.back().get();
    } else if (items[i].type == kItemRgb12) {
      rgb.push_back(std::make_unique<RgbEncoder>(encoder));
      step.rgb = rgb.back().get();
    } else {
      extra.push_back(std::make_unique<BytesEncoder>(encoder, items[i].size));
      step.bytes = extra.back().get();
    }
    steps.push_back(step);
    offset += items[i].size;
  }
  point.init(records);
  for (const Step& s : steps) {
    if (s.gps) s.gps->init(records + s.offset);
    else if (s.rgb) s.rgb->init(records + s.offset);
    else s.bytes->init(records + s.offset);
  }
  const uint8_t* record = records + record_length;
  for (uint64_t p = 1; p < points; ++p, record += record_length) {
    point.write(record);
    for (const Step& s : steps) {
      if (s.gps) s.gps->write(record + s.offset);
      else if (s.rgb) s.rgb->write(record + s.offset);
      else s.bytes->write(record + s.offset);
    }
  }
  encoder.done();
}

}  // namespace xhd::laz
