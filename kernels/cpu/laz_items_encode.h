// The LASzip version-2 item encoders of point formats 0 to 3 and extra bytes: each the inverse of its
// decoder in laz_items_decode.h (same models, contexts and predictions), so that a record encoded here
// decodes there, and in any LASzip decoder, to the same bytes. Where the format leaves a choice (which
// GPS time sequence or multiplier to code against) these pick a simple valid one.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "laz_encoder.h"
#include "laz_item_common.h"

namespace xhd::laz {

class Point10Encoder {
 public:
  explicit Point10Encoder(ArithmeticEncoder& e)
      : e_(e),
        changed_(64),
        scan_angle_{SymbolModel(256), SymbolModel(256)},
        intensity_(e, 4, 16),
        point_source_(e, 1, 16),
        dx_(e, 2),
        dy_(e, 22),
        dz_(e, 20) {}

  void init(const uint8_t* record) { p_.load_from(record); }

  void write(const uint8_t* record) {
    Point10 q;
    q.load_from(record);
    const uint32_t r = q.bits & 7, n = (q.bits >> 3) & 7;
    const uint32_t m = kReturnMap[8 * n + r], l = return_level(8 * n + r);
    uint32_t changed = (q.bits != p_.bits ? 32u : 0u) | (q.intensity != last_intensity_[m] ? 16u : 0u) |
                       (q.classification != p_.classification ? 8u : 0u) | (q.scan_angle != p_.scan_angle ? 4u : 0u) |
                       (q.user_data != p_.user_data ? 2u : 0u) | (q.point_source != p_.point_source ? 1u : 0u);
    // With nothing marked changed the decoder keeps the previous point's intensity, which need not be
    // last_intensity_[m]: code the intensity (against last_intensity_[m]) when the two differ.
    if (changed == 0 && q.intensity != p_.intensity) changed = 16;
    e_.encode_symbol(changed_, changed);
    if (changed & 32) e_.encode_symbol(lazy_model(bit_byte_[p_.bits], 256), q.bits);
    if (changed & 16) {
      intensity_.compress(last_intensity_[m], q.intensity, m < 3 ? m : 3);
      last_intensity_[m] = q.intensity;
    }
    if (changed & 8) e_.encode_symbol(lazy_model(classification_[p_.classification], 256), q.classification);
    if (changed & 4)
      e_.encode_symbol(scan_angle_[(q.bits >> 6) & 1], static_cast<uint8_t>(q.scan_angle - p_.scan_angle));
    if (changed & 2) e_.encode_symbol(lazy_model(user_data_[p_.user_data], 256), q.user_data);
    if (changed & 1) point_source_.compress(p_.point_source, q.point_source, 0);
    const uint32_t single = n == 1 ? 1 : 0;
    const int32_t diff_x = static_cast<int32_t>(static_cast<uint32_t>(q.x) - static_cast<uint32_t>(p_.x));
    dx_.compress(x_median_[m].get(), diff_x, single);
    x_median_[m].add(diff_x);
    uint32_t k = dx_.k();
    const int32_t diff_y = static_cast<int32_t>(static_cast<uint32_t>(q.y) - static_cast<uint32_t>(p_.y));
    dy_.compress(y_median_[m].get(), diff_y, single + (k < 20 ? k & ~1u : 20));
    y_median_[m].add(diff_y);
    k = (dx_.k() + dy_.k()) >> 1;
    dz_.compress(last_height_[l], q.z, single + (k < 18 ? k & ~1u : 18));
    last_height_[l] = q.z;
    p_ = q;
  }

 private:
  ArithmeticEncoder& e_;
  SymbolModel changed_;
  SymbolModel scan_angle_[2];
  IntegerCompressor intensity_, point_source_, dx_, dy_, dz_;
  std::unique_ptr<SymbolModel> bit_byte_[256], classification_[256], user_data_[256];
  Median5 x_median_[16], y_median_[16];
  uint16_t last_intensity_[16] = {};
  int32_t last_height_[8] = {};
  Point10 p_;
};

// GPSTIME11: each time as a multiple of its sequence's last difference (or a difference of its own, or in
// full when the difference leaves int32). One sequence is used: switching is the decoder's to follow, never
// needed to code a time.
class GpsTimeEncoder {
 public:
  explicit GpsTimeEncoder(ArithmeticEncoder& e) : e_(e), multi_(kGpsMultiTotal), zero_diff_(6), ic_(e, 9) {}

  void init(const uint8_t* record) { time_[0] = load<int64_t>(record); }

  void write(const uint8_t* record) {
    const int64_t t = load<int64_t>(record);
    const int64_t delta64 = static_cast<int64_t>(static_cast<uint64_t>(t) - static_cast<uint64_t>(time_[last_]));
    const bool fits = delta64 >= INT32_MIN && delta64 <= INT32_MAX;
    const int32_t delta = fits ? static_cast<int32_t>(delta64) : 0;
    if (diff_[last_] == 0) {
      if (delta64 == 0) {
        e_.encode_symbol(zero_diff_, 0);
      } else if (fits) {
        e_.encode_symbol(zero_diff_, 1);
        ic_.compress(0, delta, 0);
        diff_[last_] = delta;
        time_[last_] = t;
        extreme_[last_] = 0;
      } else {
        e_.encode_symbol(zero_diff_, 2);
        full(t);
      }
      return;
    }
    if (delta64 == 0) {
      e_.encode_symbol(multi_, kGpsMultiUnchanged);
      return;
    }
    if (!fits) {
      e_.encode_symbol(multi_, kGpsMultiCodeFull);
      full(t);
      return;
    }
    const int32_t diff = diff_[last_];
    const double ratio = static_cast<double>(delta) / diff;
    const int32_t multi = std::fabs(ratio) < 1000 ? static_cast<int32_t>(std::lround(ratio)) : 0;
    if (multi == 1) {
      e_.encode_symbol(multi_, 1);
      ic_.compress(diff, delta, 1);
      extreme_[last_] = 0;
    } else if (multi >= 2 && multi < kGpsMulti) {
      e_.encode_symbol(multi_, static_cast<uint32_t>(multi));
      ic_.compress(times(multi, diff), delta, multi < 10 ? 2 : 3);
    } else if (multi < 0 && multi > kGpsMultiMinus) {
      e_.encode_symbol(multi_, static_cast<uint32_t>(kGpsMulti - multi));
      ic_.compress(times(multi, diff), delta, 5);
    } else {
      e_.encode_symbol(multi_, 0);
      ic_.compress(0, delta, 7);
      count_extreme(delta);
    }
    time_[last_] = t;
  }

 private:
  static int32_t times(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
  }

  void full(int64_t t) {
    next_ = (next_ + 1) & 3;
    ic_.compress(static_cast<int32_t>(static_cast<uint64_t>(time_[last_]) >> 32),
                 static_cast<int32_t>(static_cast<uint64_t>(t) >> 32), 8);
    e_.write_int(static_cast<uint32_t>(static_cast<uint64_t>(t)));
    time_[next_] = t;
    last_ = next_;
    diff_[last_] = 0;
    extreme_[last_] = 0;
  }

  void count_extreme(int32_t delta) {
    if (++extreme_[last_] > 3) {
      diff_[last_] = delta;
      extreme_[last_] = 0;
    }
  }

  ArithmeticEncoder& e_;
  SymbolModel multi_, zero_diff_;
  IntegerCompressor ic_;
  uint32_t last_ = 0, next_ = 0;
  int64_t time_[4] = {};
  int32_t diff_[4] = {};
  int32_t extreme_[4] = {};
};

class RgbEncoder {
 public:
  explicit RgbEncoder(ArithmeticEncoder& e)
      : e_(e), used_(128), diffs_{SymbolModel(256), SymbolModel(256), SymbolModel(256),
                                  SymbolModel(256), SymbolModel(256), SymbolModel(256)} {}

  void init(const uint8_t* record) {
    r_ = load<uint16_t>(record);
    g_ = load<uint16_t>(record + 2);
    b_ = load<uint16_t>(record + 4);
  }

  void write(const uint8_t* record) {
    const int32_t r = load<uint16_t>(record), g = load<uint16_t>(record + 2), b = load<uint16_t>(record + 4);
    const int32_t lr = r_, lg = g_, lb = b_;
    const uint32_t sym = ((lr & 0xff) != (r & 0xff) ? 1u : 0u) | ((lr & 0xff00) != (r & 0xff00) ? 2u : 0u) |
                         ((lg & 0xff) != (g & 0xff) ? 4u : 0u) | ((lg & 0xff00) != (g & 0xff00) ? 8u : 0u) |
                         ((lb & 0xff) != (b & 0xff) ? 16u : 0u) | ((lb & 0xff00) != (b & 0xff00) ? 32u : 0u) |
                         (r != g || r != b ? 64u : 0u);
    e_.encode_symbol(used_, sym);
    if (sym & 1) put(0, (r & 255) - (lr & 255));
    if (sym & 2) put(1, (r >> 8) - (lr >> 8));
    if (sym & 64) {
      int32_t diff = (r & 255) - (lr & 255);
      if (sym & 4) put(2, (g & 255) - clamp_byte(diff + (lg & 255)));
      if (sym & 16) {
        diff = (diff + ((g & 255) - (lg & 255))) / 2;
        put(4, (b & 255) - clamp_byte(diff + (lb & 255)));
      }
      diff = (r >> 8) - (lr >> 8);
      if (sym & 8) put(3, (g >> 8) - clamp_byte(diff + (lg >> 8)));
      if (sym & 32) {
        diff = (diff + ((g >> 8) - (lg >> 8))) / 2;
        put(5, (b >> 8) - clamp_byte(diff + (lb >> 8)));
      }
    }
    r_ = static_cast<uint16_t>(r);
    g_ = static_cast<uint16_t>(g);
    b_ = static_cast<uint16_t>(b);
  }

 private:
  void put(int model, int32_t difference) { e_.encode_symbol(diffs_[model], static_cast<uint8_t>(difference)); }

  ArithmeticEncoder& e_;
  SymbolModel used_;
  SymbolModel diffs_[6];
  uint16_t r_ = 0, g_ = 0, b_ = 0;
};

class BytesEncoder {
 public:
  BytesEncoder(ArithmeticEncoder& e, uint32_t size) : e_(e), last_(size) {
    models_.reserve(size);
    for (uint32_t i = 0; i < size; ++i) models_.emplace_back(256);
  }

  void init(const uint8_t* record) {
    for (size_t i = 0; i < last_.size(); ++i) last_[i] = record[i];
  }

  void write(const uint8_t* record) {
    for (size_t i = 0; i < last_.size(); ++i) {
      e_.encode_symbol(models_[i], static_cast<uint8_t>(record[i] - last_[i]));
      last_[i] = record[i];
    }
  }

 private:
  ArithmeticEncoder& e_;
  std::vector<SymbolModel> models_;
  std::vector<uint8_t> last_;
};

}  // namespace xhd::laz
