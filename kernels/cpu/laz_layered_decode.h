// One layered LAZ chunk (point formats 6 to 8: POINT14, RGB14 or RGBNIR14, BYTE14) decoded into raw LAS
// records. The chunk is held whole: its layers are separate streams, each read alongside the others. See
// laz_layered_common.h for the layout and the scanner-channel rules; laz_layered_encode.h is the inverse.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "laz_decoder.h"
#include "laz_items_decode.h"
#include "laz_layered_common.h"

namespace xhd::laz {

// A layer: its arithmetic decoder over its bytes, or absent (0 bytes: the field never changed).
struct DecodeLayer {
  std::unique_ptr<ArithmeticDecoder> decoder;
  bool present() const { return decoder != nullptr; }
  // Past its end every symbol decodes from zeros; the coder reads up to four bytes ahead.
  bool overran() const { return decoder && decoder->overrun() > 4; }
};

// A point's layers opened from the chunk's bytes: sizes[i] bytes each, from `at` on; throws ShortChunk
// when they run past `end`.
inline void open_layers(DecodeLayer* layers, const uint32_t* sizes, size_t count, const uint8_t*& at,
                        const uint8_t* end) {
  for (size_t i = 0; i < count; ++i) {
    if (sizes[i] > uint64_t(end - at)) throw ShortChunk{};
    if (sizes[i] > 0) layers[i].decoder = std::make_unique<ArithmeticDecoder>(at, at + sizes[i]);
    at += sizes[i];
  }
}

class Point14Decoder {
 public:
  static constexpr size_t kLayers = kPoint14Layers;
  DecodeLayer layers[kLayers];

  // The first point (raw); returns the channel the other items get.
  uint32_t init(const uint8_t* record) {
    Point14 p;
    p.load_from(record);
    Channel& c = channel(p.channel);
    start(c, p);
    last_channel_ = p.channel;
    return p.channel;
  }

  // Decodes the next point into record; returns the channel the other items get (LASzip's context: the
  // point's channel where it changed, else 0).
  uint32_t read(uint8_t* record) {
    ArithmeticDecoder& xy = *layers[kXY].decoder;
    Channel& prev = *channels_[last_channel_];
    const uint32_t lpr = (prev.last.return_number == 1 ? 1u : 0u) |
                         (prev.last.return_number >= prev.last.return_count ? 2u : 0u) | (prev.gps_changed ? 4u : 0u);
    const uint32_t changed = xy.decode_symbol(prev.changed[lpr]);
    uint32_t context = 0;
    uint32_t sc = prev.last.channel;
    if (changed & 64) {
      sc = (sc + xy.decode_symbol(prev.scanner) + 1) & 3;
      context = sc;
    }
    Channel& c = channel(sc);
    if (!c.used) start(c, prev.last);
    c.last.channel = static_cast<uint8_t>(sc);
    last_channel_ = sc;
    Point14& p = c.last;

    const bool gps = (changed & 16) != 0;
    uint32_t n = p.return_count, r = p.return_number;
    if (changed & 4) n = xy.decode_symbol(lazy_model(c.return_count[n], 16));
    const bool plus = changed & 1, minus = changed & 2;
    if (plus && !minus) {
      r = (r + 1) & 15;
    } else if (minus && !plus) {
      r = (r + 15) & 15;
    } else if (plus && minus) {
      if (gps) r = xy.decode_symbol(lazy_model(c.return_number[r], 16));
      else r = (r + xy.decode_symbol(c.return_number_same_time) + 2) & 15;
    }
    p.return_count = static_cast<uint8_t>(n);
    p.return_number = static_cast<uint8_t>(r);
    const uint32_t single = n == 1 ? 1 : 0;

    const uint32_t m = (uint32_t(kReturnContext6[n][r]) << 1) | (gps ? 1 : 0);
    const int32_t dx = c.dx.decompress(c.x_median[m].get(), single);
    p.x = static_cast<int32_t>(static_cast<uint32_t>(p.x) + static_cast<uint32_t>(dx));
    c.x_median[m].add(dx);
    const int32_t dy = c.dy.decompress(c.y_median[m].get(), single | ((c.dx.k() < 20 ? c.dx.k() : 20) & ~1u));
    p.y = static_cast<int32_t>(static_cast<uint32_t>(p.y) + static_cast<uint32_t>(dy));
    c.y_median[m].add(dy);
    if (layers[kZ].present()) {
      const uint32_t k = (c.dx.k() + c.dy.k()) >> 1;
      const uint32_t l = return_level8(n, r);
      p.z = c.dz.decompress(c.last_z[l], single | ((k < 18 ? k : 18) & ~1u));
      c.last_z[l] = p.z;
    }
    if (layers[kClass].present()) {
      const uint32_t ctx = ((r == 1 && r >= n) ? 1u : 0u) | ((p.classification & 0x1fu) << 1);
      p.classification = static_cast<uint8_t>(layers[kClass].decoder->decode_symbol(lazy_model(c.classes[ctx], 256)));
    }
    if (layers[kFlags].present()) {
      const uint32_t f = layers[kFlags].decoder->decode_symbol(lazy_model(c.flags[p.flags()], 64));
      p.class_flags = f & 15;
      p.scan_direction = (f >> 4) & 1;
      p.edge = (f >> 5) & 1;
    }
    if (layers[kIntensity].present()) {
      const uint32_t ctx = (gps ? 1u : 0u) | (r >= n ? 2u : 0u) | (r == 1 ? 4u : 0u);
      p.intensity = static_cast<uint16_t>(c.intensity.decompress(c.last_intensity[ctx], ctx >> 1));
      c.last_intensity[ctx] = p.intensity;
    }
    if (changed & 8) p.scan_angle = static_cast<uint16_t>(c.scan_angle.decompress(int16_t(p.scan_angle), gps ? 1 : 0));
    if (layers[kUserData].present()) {
      p.user_data =
          static_cast<uint8_t>(layers[kUserData].decoder->decode_symbol(lazy_model(c.user_data[p.user_data / 4], 256)));
    }
    if (changed & 32) p.point_source = static_cast<uint16_t>(c.point_source.decompress(p.point_source, 0));
    if (gps) read_gps_time(c);
    c.gps_changed = gps;
    p.store_to(record);
    return context;
  }

  // Whether a layer the points used ran past its bytes (the chunk is cut short or damaged).
  bool overran() const {
    for (const DecodeLayer& l : layers)
      if (l.overran()) return true;
    return false;
  }

 private:
  // A layer's decoder, or one over no bytes for an absent layer (never used: its field is not decoded).
  ArithmeticDecoder& on(Point14Layer l) { return layers[l].present() ? *layers[l].decoder : none_; }

  struct Channel {
    explicit Channel(Point14Decoder& d)
        : changed{SymbolModel(128), SymbolModel(128), SymbolModel(128), SymbolModel(128),
                  SymbolModel(128), SymbolModel(128), SymbolModel(128), SymbolModel(128)},
          scanner(3),
          return_number_same_time(13),
          gps_multi(kGps14Symbols),
          gps_zero_diff(kGps14ZeroDiffSymbols),
          dx(d.on(kXY), 2),
          dy(d.on(kXY), 22),
          dz(d.on(kZ), 20),
          intensity(d.on(kIntensity), 4, 16),
          scan_angle(d.on(kScanAngle), 2, 16),
          point_source(d.on(kPointSource), 1, 16),
          gps(d.on(kGpsTime), 9) {}
    bool used = false;
    bool gps_changed = false;
    Point14 last;
    SymbolModel changed[8];
    SymbolModel scanner, return_number_same_time, gps_multi, gps_zero_diff;
    std::unique_ptr<SymbolModel> return_count[16], return_number[16], classes[64], flags[64], user_data[64];
    IntegerDecompressor dx, dy, dz, intensity, scan_angle, point_source, gps;
    uint16_t last_intensity[8] = {};
    int32_t last_z[8] = {};
    Median5 x_median[12], y_median[12];
    uint32_t gps_last = 0, gps_next = 0;
    int64_t gps_times[4] = {};
    int32_t gps_diff[4] = {};
    int32_t gps_extreme[4] = {};
  };

  Channel& channel(uint32_t sc) {
    if (!channels_[sc]) channels_[sc] = std::make_unique<Channel>(*this);
    return *channels_[sc];
  }

  // A channel's first point: the chunk's first, or the point before it on another channel.
  static void start(Channel& c, const Point14& p) {
    c.used = true;
    c.last = p;
    for (int32_t& z : c.last_z) z = p.z;
    for (uint16_t& i : c.last_intensity) i = p.intensity;
    c.gps_times[0] = static_cast<int64_t>(p.gps_time);
  }

  // Math.imul: the product wrapped to int32.
  static int32_t times(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
  }

  static void add(Channel& c, int64_t delta) {
    c.gps_times[c.gps_last] =
        static_cast<int64_t>(static_cast<uint64_t>(c.gps_times[c.gps_last]) + static_cast<uint64_t>(delta));
  }

  void full_time(Channel& c, ArithmeticDecoder& d) {
    c.gps_next = (c.gps_next + 1) & 3;
    const int32_t high =
        c.gps.decompress(static_cast<int32_t>(static_cast<uint64_t>(c.gps_times[c.gps_last]) >> 32), 8);
    const uint32_t low = d.read_int();
    c.gps_times[c.gps_next] = static_cast<int64_t>((static_cast<uint64_t>(static_cast<uint32_t>(high)) << 32) | low);
    c.gps_last = c.gps_next;
    c.gps_diff[c.gps_last] = 0;
    c.gps_extreme[c.gps_last] = 0;
  }

  static void count_extreme(Channel& c, int32_t delta) {
    if (++c.gps_extreme[c.gps_last] > 3) {
      c.gps_diff[c.gps_last] = delta;
      c.gps_extreme[c.gps_last] = 0;
    }
  }

  // The time as one of four sequences: a multiple of the sequence's last difference, a new difference, a
  // full new time starting another sequence, or a jump to another sequence (and the time decoded there).
  void read_gps_time(Channel& c) {
    ArithmeticDecoder& d = on(kGpsTime);
    for (int switches = 0;; ++switches) {
      if (switches > 64) throw DamagedChunk("GPS time sequence switches without end: the compressed data is damaged");
      const uint32_t s = c.gps_last;
      if (c.gps_diff[s] == 0) {
        const uint32_t multi = d.decode_symbol(c.gps_zero_diff);
        if (multi == 0) {
          c.gps_diff[s] = c.gps.decompress(0, 0);
          add(c, c.gps_diff[s]);
          c.gps_extreme[s] = 0;
        } else if (multi == 1) {
          full_time(c, d);
        } else {
          c.gps_last = (s + multi - 1) & 3;
          continue;
        }
      } else {
        const int32_t multi = static_cast<int32_t>(d.decode_symbol(c.gps_multi));
        if (multi == 1) {
          add(c, c.gps.decompress(c.gps_diff[s], 1));
          c.gps_extreme[s] = 0;
        } else if (multi < static_cast<int32_t>(kGps14CodeFull)) {
          int32_t delta;
          if (multi == 0) {
            delta = c.gps.decompress(0, 7);
            count_extreme(c, delta);
          } else if (multi < kGpsMulti) {
            delta = c.gps.decompress(times(multi, c.gps_diff[s]), multi < 10 ? 2 : 3);
          } else if (multi == kGpsMulti) {
            delta = c.gps.decompress(times(kGpsMulti, c.gps_diff[s]), 4);
            count_extreme(c, delta);
          } else {
            const int32_t back = kGpsMulti - multi;
            if (back > kGpsMultiMinus) {
              delta = c.gps.decompress(times(back, c.gps_diff[s]), 5);
            } else {
              delta = c.gps.decompress(times(kGpsMultiMinus, c.gps_diff[s]), 6);
              count_extreme(c, delta);
            }
          }
          add(c, delta);
        } else if (multi == static_cast<int32_t>(kGps14CodeFull)) {
          full_time(c, d);
        } else {
          c.gps_last = (s + static_cast<uint32_t>(multi) - kGps14CodeFull) & 3;
          continue;
        }
      }
      break;
    }
    c.last.gps_time = static_cast<uint64_t>(c.gps_times[c.gps_last]);
  }

  std::array<std::unique_ptr<Channel>, 4> channels_;
  uint32_t last_channel_ = 0;
  ArithmeticDecoder none_{nullptr, nullptr};
};

// RGB14 (and the RGB of RGBNIR14): RGB12's coding, with a model set a channel.
class Rgb14Decoder {
 public:
  DecodeLayer layer;

  void init(const uint8_t* record, uint32_t sc) {
    Channel& c = channel(sc);
    c.used = true;
    c.last = {load<uint16_t>(record), load<uint16_t>(record + 2), load<uint16_t>(record + 4)};
    last_channel_ = sc;
  }

  void read(uint8_t* record, uint32_t sc) {
    if (!layer.present()) {
      write(record, channels_[last_channel_]->last);
      return;
    }
    Channel& c = channel(sc);
    std::array<uint16_t, 3>* last = &channels_[last_channel_]->last;
    if (sc != last_channel_) {
      // A channel met for the first time starts from the last colour; one met before keeps predicting
      // from the channel left (LASzip's last-item pointer moves only on a first meeting).
      last_channel_ = sc;
      if (!c.used) {
        c.used = true;
        c.last = *last;
        last = &c.last;
      }
    }
    ArithmeticDecoder& d = *layer.decoder;
    const std::array<uint16_t, 3> l = *last;
    const uint32_t sym = d.decode_symbol(c.used_bits);
    auto corrected = [&](int model, int32_t predicted) {
      return static_cast<int32_t>(static_cast<uint8_t>(d.decode_symbol(c.diffs[model]) + predicted));
    };
    int32_t r = sym & 1 ? corrected(0, l[0] & 255) : l[0] & 255;
    r |= sym & 2 ? corrected(1, l[0] >> 8) << 8 : l[0] & 0xff00;
    int32_t g, b;
    if (sym & 64) {
      int32_t diff = (r & 255) - (l[0] & 255);
      g = sym & 4 ? corrected(2, clamp_byte(diff + (l[1] & 255))) : l[1] & 255;
      if (sym & 16) {
        diff = (diff + ((g & 255) - (l[1] & 255))) / 2;
        b = corrected(4, clamp_byte(diff + (l[2] & 255)));
      } else {
        b = l[2] & 255;
      }
      diff = (r >> 8) - (l[0] >> 8);
      g |= sym & 8 ? corrected(3, clamp_byte(diff + (l[1] >> 8))) << 8 : l[1] & 0xff00;
      if (sym & 32) {
        diff = (diff + ((g >> 8) - (l[1] >> 8))) / 2;
        b |= corrected(5, clamp_byte(diff + (l[2] >> 8))) << 8;
      } else {
        b |= l[2] & 0xff00;
      }
    } else {
      g = r;
      b = r;
    }
    *last = {static_cast<uint16_t>(r), static_cast<uint16_t>(g), static_cast<uint16_t>(b)};
    write(record, *last);
  }

 private:
  struct Channel {
    bool used = false;
    std::array<uint16_t, 3> last{};
    SymbolModel used_bits{128};
    SymbolModel diffs[6] = {SymbolModel(256), SymbolModel(256), SymbolModel(256),
                            SymbolModel(256), SymbolModel(256), SymbolModel(256)};
  };

  static void write(uint8_t* record, const std::array<uint16_t, 3>& c) {
    for (int k = 0; k < 3; ++k) store<uint16_t>(record + 2 * k, c[k]);
  }

  Channel& channel(uint32_t sc) {
    if (!channels_[sc]) channels_[sc] = std::make_unique<Channel>();
    return *channels_[sc];
  }

  std::array<std::unique_ptr<Channel>, 4> channels_;
  uint32_t last_channel_ = 0;
};

// The NIR of RGBNIR14: its low and high byte each coded when it changed.
class Nir14Decoder {
 public:
  DecodeLayer layer;

  void init(const uint8_t* record, uint32_t sc) {
    Channel& c = channel(sc);
    c.used = true;
    c.last = load<uint16_t>(record);
    last_channel_ = sc;
  }

  void read(uint8_t* record, uint32_t sc) {
    if (!layer.present()) {
      store<uint16_t>(record, channels_[last_channel_]->last);
      return;
    }
    Channel& c = channel(sc);
    uint16_t* last = &channels_[last_channel_]->last;
    if (sc != last_channel_) {
      last_channel_ = sc;
      if (!c.used) {
        c.used = true;
        c.last = *last;
        last = &c.last;
      }
    }
    ArithmeticDecoder& d = *layer.decoder;
    const uint32_t sym = d.decode_symbol(c.used_bits);
    uint32_t v = sym & 1 ? static_cast<uint8_t>(d.decode_symbol(c.diffs[0]) + (*last & 255)) : *last & 255;
    v |= sym & 2 ? uint32_t(static_cast<uint8_t>(d.decode_symbol(c.diffs[1]) + (*last >> 8))) << 8 : *last & 0xff00;
    *last = static_cast<uint16_t>(v);
    store<uint16_t>(record, *last);
  }

 private:
  struct Channel {
    bool used = false;
    uint16_t last = 0;
    SymbolModel used_bits{4};
    SymbolModel diffs[2] = {SymbolModel(256), SymbolModel(256)};
  };

  Channel& channel(uint32_t sc) {
    if (!channels_[sc]) channels_[sc] = std::make_unique<Channel>();
    return *channels_[sc];
  }

  std::array<std::unique_ptr<Channel>, 4> channels_;
  uint32_t last_channel_ = 0;
};

// BYTE14 (extra bytes): each byte its own layer, coded as its difference from the last point's.
class Byte14Decoder {
 public:
  explicit Byte14Decoder(uint32_t size) : size_(size), layers(size) {}

  void init(const uint8_t* record, uint32_t sc) {
    Channel& c = channel(sc);
    c.used = true;
    c.last.assign(record, record + size_);
    last_channel_ = sc;
  }

  void read(uint8_t* record, uint32_t sc) {
    Channel& c = channel(sc);
    std::vector<uint8_t>* last = &channels_[last_channel_]->last;
    if (sc != last_channel_) {
      last_channel_ = sc;
      if (!c.used) {
        c.used = true;
        c.last = *last;
        last = &c.last;
      }
    }
    for (uint32_t i = 0; i < size_; ++i) {
      if (layers[i].present())
        (*last)[i] = static_cast<uint8_t>((*last)[i] + layers[i].decoder->decode_symbol(c.models[i]));
      record[i] = (*last)[i];
    }
  }

  bool overran() const {
    for (const DecodeLayer& l : layers)
      if (l.overran()) return true;
    return false;
  }

 private:
  struct Channel {
    explicit Channel(uint32_t size) : models(size, SymbolModel(256)), last(size, 0) {}
    bool used = false;
    std::vector<SymbolModel> models;
    std::vector<uint8_t> last;
  };

  Channel& channel(uint32_t sc) {
    if (!channels_[sc]) channels_[sc] = std::make_unique<Channel>(size_);
    return *channels_[sc];
  }

  uint32_t size_;
  std::array<std::unique_ptr<Channel>, 4> channels_;
  uint32_t last_channel_ = 0;

 public:
  std::vector<DecodeLayer> layers;
};

// A whole layered chunk decoded a batch of records at a time. Throws ShortChunk when its bytes run out
// before its points (or its layers before their points), DamagedChunk where damage can be told.
class LayeredChunkDecoder {
 public:
  LayeredChunkDecoder(const uint8_t* chunk, uint64_t bytes, uint64_t points, const std::vector<Item>& items,
                      uint32_t record_length)
      : points_(points), record_length_(record_length) {
    if (points == 0) return;
    for (size_t i = 1; i < items.size(); ++i) {
      if (items[i].type == kItemRgb14 || items[i].type == kItemRgbNir14) {
        rgb_ = std::make_unique<Rgb14Decoder>();
        if (items[i].type == kItemRgbNir14) nir_ = std::make_unique<Nir14Decoder>();
      } else {
        bytes_ = std::make_unique<Byte14Decoder>(items[i].size);
        bytes_size_ = items[i].size;
      }
    }
    const uint8_t* at = chunk;
    const uint8_t* end = chunk + bytes;
    if (bytes < uint64_t(record_length) + 4) throw ShortChunk{};
    first_.assign(at, at + record_length);
    at += record_length;
    // The chunk states its point count; one that disagrees with the chunk table's is damaged.
    if (load<uint32_t>(at) != points) throw DamagedChunk("the chunk's point count disagrees with the chunk table");
    at += 4;
    const size_t layer_count = kPoint14Layers + (rgb_ ? 1 : 0) + (nir_ ? 1 : 0) + bytes_size_;
    if (uint64_t(end - at) < 4 * layer_count) throw ShortChunk{};
    std::vector<uint32_t> sizes(layer_count);
    for (size_t i = 0; i < layer_count; ++i, at += 4) sizes[i] = load<uint32_t>(at);
    const uint32_t* s = sizes.data();
    open_layers(point_.layers, s, kPoint14Layers, at, end);
    s += kPoint14Layers;
    if (rgb_) open_layers(&rgb_->layer, s++, 1, at, end);
    if (nir_) open_layers(&nir_->layer, s++, 1, at, end);
    if (bytes_) open_layers(bytes_->layers.data(), s, bytes_size_, at, end);
    // Every point after the first starts with its change bits in the X and Y layer.
    if (points > 1 && !point_.layers[kXY].present()) throw ShortChunk{};
  }

  // Decodes the chunk's next n records into out.
  void next(uint8_t* out, uint64_t n) {
    const uint32_t rgb_at = 30, nir_at = 36, bytes_at = 30 + (rgb_ ? 6 : 0) + (nir_ ? 2 : 0);
    uint8_t* record = out;
    uint64_t p = 0;
    if (done_ == 0 && n > 0) {
      std::memcpy(out, first_.data(), record_length_);
      const uint32_t sc = point_.init(out);
      if (rgb_) rgb_->init(out + rgb_at, sc);
      if (nir_) nir_->init(out + nir_at, sc);
      if (bytes_) bytes_->init(out + bytes_at, sc);
      record += record_length_;
      p = 1;
    }
    for (; p < n; ++p, record += record_length_) {
      const uint32_t sc = point_.read(record);
      if (rgb_) rgb_->read(record + rgb_at, sc);
      if (nir_) nir_->read(record + nir_at, sc);
      if (bytes_) bytes_->read(record + bytes_at, sc);
      if ((p & 1023) == 0 && overran()) throw ShortChunk{};
    }
    done_ += n;
    if (done_ == points_ && overran()) throw ShortChunk{};
  }

 private:
  bool overran() const {
    return point_.overran() || (rgb_ && rgb_->layer.overran()) || (nir_ && nir_->layer.overran()) ||
           (bytes_ && bytes_->overran());
  }

  uint64_t points_;
  uint32_t record_length_;
  uint64_t done_ = 0;
  std::vector<uint8_t> first_;
  Point14Decoder point_;
  std::unique_ptr<Rgb14Decoder> rgb_;
  std::unique_ptr<Nir14Decoder> nir_;
  std::unique_ptr<Byte14Decoder> bytes_;
  uint32_t bytes_size_ = 0;
};

}  // namespace xhd::laz
