// Raw LAS point records (formats 0-10) scaled, tallied and filtered: the loop of decodeLasRecords in
// src/io/las-records.ts, field for field. The LAS reader runs it on records read from the file, the LAZ
// reader on the records its chunk decoders produce, so both give the TypeScript reader's points to the bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kept_bounds.h"

namespace xhd::las {

// What the records are and which of them to keep (null classes/box and returns 0: every record).
struct RecordJob {
  uint32_t length = 0;  // bytes a record
  double scale[3] = {1, 1, 1}, offset[3] = {0, 0, 0};
  const uint8_t* classes = nullptr;  // 256 flags: keep a class when its flag is set
  const double* box = nullptr;       // min x, y, z, max x, y, z
  int32_t returns = 0;               // 1: first returns only, 2: last returns only
};

// Every record's class and return counted, and the raw integers' bounds: sums and integer bounds, which merge
// in any order.
struct RecordCounts {
  uint64_t classes[256] = {};
  uint64_t returns[16] = {};
  int32_t raw_min[3] = {INT32_MAX, INT32_MAX, INT32_MAX};
  int32_t raw_max[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
  bool any = false;

  void merge(const RecordCounts& o) {
    for (int i = 0; i < 256; ++i) classes[i] += o.classes[i];
    for (int i = 0; i < 16; ++i) returns[i] += o.returns[i];
    for (int k = 0; k < 3; ++k)
      raw_min[k] = std::min(raw_min[k], o.raw_min[k]), raw_max[k] = std::max(raw_max[k], o.raw_max[k]);
    any = any || o.any;
  }
};

// The kept points of a run of records: how many, and their bounds as the TypeScript loop finds them.
struct KeptBounds {
  uint64_t kept = 0;
  double min[3] = {INFINITY, INFINITY, INFINITY}, max[3] = {-INFINITY, -INFINITY, -INFINITY};
};

template <class T>
T load_le(const uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));  // LAS is little-endian, as every host this builds for
  return value;
}

// Decodes `count` records (formats 6-10 when Extended) into out (kept points, packed) and attributes (two bytes
// a kept point: its class, then its return number and count), adding to c and k; returns how many were kept.
template <bool Extended>
uint64_t decode_records(const uint8_t* p, uint64_t count, const RecordJob& job, double* out, uint8_t* attributes,
                        RecordCounts& c, KeptBounds& k) {
  // Formats 0-5: 3-bit returns in byte 14, the class in the low 5 bits of byte 15; 6-10: 4-bit returns, byte 16.
  constexpr int class_byte = Extended ? 16 : 15;
  constexpr uint32_t class_mask = Extended ? 0xff : 0x1f, return_mask = Extended ? 0x0f : 0x07;
  constexpr int count_shift = Extended ? 4 : 3;
  const uint32_t length = job.length;
  const double sx = job.scale[0], sy = job.scale[1], sz = job.scale[2];
  const double ox = job.offset[0], oy = job.offset[1], oz = job.offset[2];
  const uint8_t* classes = job.classes;
  const double* box = job.box;
  const int32_t returns = job.returns;
  const bool filtered = classes != nullptr || box != nullptr || returns != 0;
  int32_t rmin[3] = {c.raw_min[0], c.raw_min[1], c.raw_min[2]}, rmax[3] = {c.raw_max[0], c.raw_max[1], c.raw_max[2]};
  double lo[3] = {k.min[0], k.min[1], k.min[2]}, hi[3] = {k.max[0], k.max[1], k.max[2]};
  uint64_t o = 0;
  for (uint64_t r = 0; r < count; ++r, p += length) {
    const int32_t X = load_le<int32_t>(p), Y = load_le<int32_t>(p + 4), Z = load_le<int32_t>(p + 8);
    const uint32_t return_byte = p[14];
    const uint32_t cls = p[class_byte] & class_mask;
    const uint32_t return_number = return_byte & return_mask;
    const uint32_t return_count = (return_byte >> count_shift) & return_mask;
    ++c.classes[cls];
    ++c.returns[return_number];
    rmin[0] = std::min(rmin[0], X), rmax[0] = std::max(rmax[0], X);
    rmin[1] = std::min(rmin[1], Y), rmax[1] = std::max(rmax[1], Y);
    rmin[2] = std::min(rmin[2], Z), rmax[2] = std::max(rmax[2], Z);
    // Two operations on purpose, built without contraction: the product rounded to double, then the sum.
    const double x = X * sx + ox, y = Y * sy + oy, z = Z * sz + oz;
    if (filtered) {
      if (classes != nullptr && classes[cls] == 0) continue;
      if (returns == 1 && return_number > 1) continue;
      if (returns == 2 && return_number < return_count) continue;
      if (box != nullptr && (x < box[0] || y < box[1] || z < box[2] || x > box[3] || y > box[4] || z > box[5]))
        continue;
    }
    out[3 * o] = x;
    out[3 * o + 1] = y;
    out[3 * o + 2] = z;
    if (attributes != nullptr) {
      attributes[2 * o] = uint8_t(cls);
      attributes[2 * o + 1] = uint8_t(return_number | (return_count << 4));
    }
    ++o;
    widen_first_kept(lo, hi, x, y, z);
  }
  for (int a = 0; a < 3; ++a) {
    c.raw_min[a] = rmin[a], c.raw_max[a] = rmax[a];
    k.min[a] = lo[a], k.max[a] = hi[a];
  }
  c.any = c.any || count > 0;
  k.kept += o;
  return o;
}

}  // namespace xhd::las
