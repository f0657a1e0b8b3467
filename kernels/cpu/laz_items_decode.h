// The LASzip version-2 item decoders of point formats 0 to 3 and extra bytes (POINT10, GPSTIME11, RGB12,
// BYTE), step for step as src/io/laz-items-v2.ts (the reference): each decodes one item of a point from the
// chunk's arithmetic stream, predicting from the previous point's, and writes it into the point's record.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "laz_decoder.h"
#include "laz_item_common.h"

namespace xhd::laz {

// Damaged data that the format can tell (a GPS time that switches sequence without end).
struct DamagedChunk : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Point10Decoder {
 public:
  explicit Point10Decoder(ArithmeticDecoder& d)
      : d_(d),
        changed_(64),
        scan_angle_{SymbolModel(256), SymbolModel(256)},
        intensity_(d, 4, 16),
        point_source_(d, 1, 16),
        dx_(d, 2),
        dy_(d, 22),
        dz_(d, 20) {}

  void init(const uint8_t* record) { p_.load_from(record); }

  void read(uint8_t* record) {
    const uint32_t changed = d_.decode_symbol(changed_);
    if (changed != 0) {
      if (changed & 32) p_.bits = static_cast<uint8_t>(d_.decode_symbol(lazy_model(bit_byte_[p_.bits], 256)));
    }
    const uint32_t r = p_.bits & 7, n = (p_.bits >> 3) & 7;
    const uint32_t m = kReturnMap[8 * n + r], l = return_level(8 * n + r);
    if (changed != 0) {
      if (changed & 16) {
        p_.intensity = static_cast<uint16_t>(intensity_.decompress(last_intensity_[m], m < 3 ? m : 3));
        last_intensity_[m] = p_.intensity;
      } else {
        p_.intensity = last_intensity_[m];
      }
      if (changed & 8)
        p_.classification = static_cast<uint8_t>(d_.decode_symbol(lazy_model(classification_[p_.classification], 256)));
      if (changed & 4)
        p_.scan_angle = static_cast<uint8_t>(
            fold(static_cast<int32_t>(d_.decode_symbol(scan_angle_[(p_.bits >> 6) & 1])) + p_.scan_angle));
      if (changed & 2) p_.user_data = static_cast<uint8_t>(d_.decode_symbol(lazy_model(user_data_[p_.user_data], 256)));
      if (changed & 1) p_.point_source = static_cast<uint16_t>(point_source_.decompress(p_.point_source, 0));
    }  // nothing changed: the intensity stays the previous point's, not last_intensity_[m]
    const uint32_t single = n == 1 ? 1 : 0;
    const int32_t diff_x = dx_.decompress(x_median_[m].get(), single);
    p_.x = static_cast<int32_t>(static_cast<uint32_t>(p_.x) + static_cast<uint32_t>(diff_x));
    x_median_[m].add(diff_x);
    uint32_t k = dx_.k();
    const int32_t diff_y = dy_.decompress(y_median_[m].get(), single + (k < 20 ? k & ~1u : 20));
    p_.y = static_cast<int32_t>(static_cast<uint32_t>(p_.y) + static_cast<uint32_t>(diff_y));
    y_median_[m].add(diff_y);
    k = (dx_.k() + dy_.k()) >> 1;
    p_.z = dz_.decompress(last_height_[l], single + (k < 18 ? k & ~1u : 18));
    last_height_[l] = p_.z;
    p_.store_to(record);
  }

 private:
  ArithmeticDecoder& d_;
  SymbolModel changed_;
  SymbolModel scan_angle_[2];
  IntegerDecompressor intensity_, point_source_, dx_, dy_, dz_;
  std::unique_ptr<SymbolModel> bit_byte_[256], classification_[256], user_data_[256];
  Median5 x_median_[16], y_median_[16];
  uint16_t last_intensity_[16] = {};
  int32_t last_height_[8] = {};
  Point10 p_;
};

// GPSTIME11 (a double): coded as its 64-bit integer pattern, as differences from one of four sequences
// (multiples of the sequence's last difference, or a new one, or a jump to another sequence).
class GpsTimeDecoder {
 public:
  explicit GpsTimeDecoder(ArithmeticDecoder& d) : d_(d), multi_(kGpsMultiTotal), zero_diff_(6), ic_(d, 9) {}

  void init(const uint8_t* record) { time_[0] = load<int64_t>(record); }

  void read(uint8_t* record) {
    // A switch to another sequence decodes the point again from there; damaged data must not switch forever.
    for (int switches = 0;; ++switches) {
      if (switches > 64) throw DamagedChunk("GPS time sequence switches without end: the compressed data is damaged");
      const uint32_t last = last_;
      if (diff_[last] == 0) {
        const uint32_t multi = d_.decode_symbol(zero_diff_);
        if (multi == 1) {
          diff_[last] = ic_.decompress(0, 0);
          add(diff_[last]);
          extreme_[last] = 0;
        } else if (multi == 2) {
          full();
        } else if (multi > 2) {
          last_ = (last + multi - 2) & 3;
          continue;
        }
      } else {
        int32_t multi = static_cast<int32_t>(d_.decode_symbol(multi_));
        if (multi == 1) {
          add(ic_.decompress(diff_[last], 1));
          extreme_[last] = 0;
        } else if (multi < static_cast<int32_t>(kGpsMultiUnchanged)) {
          int32_t delta;
          if (multi == 0) {
            delta = ic_.decompress(0, 7);
            count_extreme(delta);
          } else if (multi < kGpsMulti) {
            delta = ic_.decompress(times(multi, diff_[last]), multi < 10 ? 2 : 3);
          } else if (multi == kGpsMulti) {
            delta = ic_.decompress(times(kGpsMulti, diff_[last]), 4);
            count_extreme(delta);
          } else {
            multi = kGpsMulti - multi;
            if (multi > kGpsMultiMinus) {
              delta = ic_.decompress(times(multi, diff_[last]), 5);
            } else {
              delta = ic_.decompress(times(kGpsMultiMinus, diff_[last]), 6);
              count_extreme(delta);
            }
          }
          add(delta);
        } else if (multi == static_cast<int32_t>(kGpsMultiCodeFull)) {
          full();
        } else if (multi > static_cast<int32_t>(kGpsMultiCodeFull)) {
          last_ = (last + static_cast<uint32_t>(multi) - kGpsMultiCodeFull) & 3;
          continue;
        }
      }
      break;
    }
    store<int64_t>(record, time_[last_]);
  }

 private:
  // Math.imul: the product wrapped to int32.
  static int32_t times(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
  }

  void add(int32_t delta) {
    time_[last_] =
        static_cast<int64_t>(static_cast<uint64_t>(time_[last_]) + static_cast<uint64_t>(static_cast<int64_t>(delta)));
  }

  void full() {
    next_ = (next_ + 1) & 3;
    const int32_t high = ic_.decompress(static_cast<int32_t>(static_cast<uint64_t>(time_[last_]) >> 32), 8);
    const uint32_t low = d_.read_int();
    time_[next_] = static_cast<int64_t>((static_cast<uint64_t>(static_cast<uint32_t>(high)) << 32) | low);
    last_ = next_;
    diff_[last_] = 0;
    extreme_[last_] = 0;
  }

  // An outlying difference replaces the sequence's difference once it has come four times in a row.
  void count_extreme(int32_t delta) {
    if (++extreme_[last_] > 3) {
      diff_[last_] = delta;
      extreme_[last_] = 0;
    }
  }

  ArithmeticDecoder& d_;
  SymbolModel multi_, zero_diff_;
  IntegerDecompressor ic_;
  uint32_t last_ = 0, next_ = 0;
  int64_t time_[4] = {};
  int32_t diff_[4] = {};
  int32_t extreme_[4] = {};
};

// RGB12 (three 16-bit channels): each byte coded when it changed, green and blue predicted from red's change.
class RgbDecoder {
 public:
  explicit RgbDecoder(ArithmeticDecoder& d)
      : d_(d), used_(128), diffs_{SymbolModel(256), SymbolModel(256), SymbolModel(256),
                                  SymbolModel(256), SymbolModel(256), SymbolModel(256)} {}

  void init(const uint8_t* record) {
    r_ = load<uint16_t>(record);
    g_ = load<uint16_t>(record + 2);
    b_ = load<uint16_t>(record + 4);
  }

  void read(uint8_t* record) {
    const uint32_t sym = d_.decode_symbol(used_);
    const int32_t lr = r_, lg = g_, lb = b_;
    int32_t r = sym & 1 ? static_cast<int32_t>(fold(sym_of(0) + (lr & 255))) : lr & 255;
    r |= sym & 2 ? static_cast<int32_t>(fold(sym_of(1) + (lr >> 8))) << 8 : lr & 0xff00;
    int32_t g, b;
    if (sym & 64) {
      int32_t diff = (r & 255) - (lr & 255);
      g = sym & 4 ? static_cast<int32_t>(fold(sym_of(2) + clamp_byte(diff + (lg & 255)))) : lg & 255;
      if (sym & 16) {
        diff = (diff + ((g & 255) - (lg & 255))) / 2;  // C++ division truncates, as Math.trunc
        b = static_cast<int32_t>(fold(sym_of(4) + clamp_byte(diff + (lb & 255))));
      } else {
        b = lb & 255;
      }
      diff = (r >> 8) - (lr >> 8);
      g |= sym & 8 ? static_cast<int32_t>(fold(sym_of(3) + clamp_byte(diff + (lg >> 8)))) << 8 : lg & 0xff00;
      if (sym & 32) {
        diff = (diff + ((g >> 8) - (lg >> 8))) / 2;
        b |= static_cast<int32_t>(fold(sym_of(5) + clamp_byte(diff + (lb >> 8)))) << 8;
      } else {
        b |= lb & 0xff00;
      }
    } else {
      g = r;
      b = r;
    }
    r_ = static_cast<uint16_t>(r);
    g_ = static_cast<uint16_t>(g);
    b_ = static_cast<uint16_t>(b);
    store<uint16_t>(record, r_);
    store<uint16_t>(record + 2, g_);
    store<uint16_t>(record + 4, b_);
  }

 private:
  int32_t sym_of(int model) { return static_cast<int32_t>(d_.decode_symbol(diffs_[model])); }

  ArithmeticDecoder& d_;
  SymbolModel used_;
  SymbolModel diffs_[6];
  uint16_t r_ = 0, g_ = 0, b_ = 0;
};

// BYTE (extra bytes): each byte's difference from the previous point's, one model a byte.
class BytesDecoder {
 public:
  BytesDecoder(ArithmeticDecoder& d, uint32_t size) : d_(d), last_(size) {
    models_.reserve(size);
    for (uint32_t i = 0; i < size; ++i) models_.emplace_back(256);
  }

  void init(const uint8_t* record) {
    for (size_t i = 0; i < last_.size(); ++i) last_[i] = record[i];
  }

  void read(uint8_t* record) {
    for (size_t i = 0; i < last_.size(); ++i) {
      last_[i] = static_cast<uint8_t>(last_[i] + d_.decode_symbol(models_[i]));
      record[i] = last_[i];
    }
  }

 private:
  ArithmeticDecoder& d_;
  std::vector<SymbolModel> models_;
  std::vector<uint8_t> last_;
};

}  // namespace xhd::laz
