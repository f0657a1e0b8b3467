// One layered LAZ chunk (point formats 6 to 8) encoded from raw LAS records: the inverse of
// laz_layered_decode.h (same models, same contexts, same channel rules), so that what is written here
// decodes there and in any LASzip reader. xhd writes such chunks for its tests and benchmarks (and COPC
// test files) through xhd_compress_laz_chunk. A layer whose field never changed is written as 0 bytes.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "laz_encoder.h"
#include "laz_layered_common.h"

namespace xhd::laz {

// A layer being written: its bytes, its coder, and whether the field changed at all in the chunk.
struct EncodeLayer {
  std::vector<uint8_t> bytes;
  ArithmeticEncoder encoder{bytes};
  bool changed = false;

  // Its size in the chunk (0 for a field that never changed), after flushing the coder.
  uint32_t finish() {
    if (!changed) return 0;
    encoder.done();
    return static_cast<uint32_t>(bytes.size());
  }
};

class Point14Encoder {
 public:
  EncodeLayer layers[kPoint14Layers];

  Point14Encoder() {
    layers[kXY].changed = true;  // X, Y and Z are always written
    layers[kZ].changed = true;
  }

  uint32_t init(const uint8_t* record) {
    Point14 p;
    p.load_from(record);
    start(channel(p.channel), p);
    last_channel_ = p.channel;
    return p.channel;
  }

  uint32_t write(const uint8_t* record) {
    Point14 p;
    p.load_from(record);
    ArithmeticEncoder& xy = layers[kXY].encoder;
    Channel& prev = *channels_[last_channel_];
    const uint32_t lpr = (prev.last.return_number == 1 ? 1u : 0u) |
                         (prev.last.return_number >= prev.last.return_count ? 2u : 0u) | (prev.gps_changed ? 4u : 0u);
    const uint32_t sc = p.channel;
    Channel& c = channel(sc);
    const Point14& old = c.used ? c.last : prev.last;
    const bool gps = p.gps_time != old.gps_time;
    const bool source_changed = p.point_source != old.point_source;
    const bool angle_changed = p.scan_angle != old.scan_angle;
    const uint32_t last_n = old.return_count, last_r = old.return_number, n = p.return_count, r = p.return_number;
    const bool up = r == ((last_r + 1) & 15), down = r == ((last_r + 15) & 15);
    const bool misc = r != last_r && !up && !down;
    const uint32_t changed = ((up || misc) ? 1u : 0u) | ((down || misc) ? 2u : 0u) | (n != last_n ? 4u : 0u) |
                             (angle_changed ? 8u : 0u) | (gps ? 16u : 0u) | (source_changed ? 32u : 0u) |
                             (sc != last_channel_ ? 64u : 0u);
    xy.encode_symbol(prev.changed[lpr], changed);
    uint32_t context = 0;
    if (sc != last_channel_) {
      xy.encode_symbol(prev.scanner, (sc + 3 - last_channel_) & 3);
      context = sc;
    }
    if (!c.used) start(c, prev.last);
    if (n != last_n) xy.encode_symbol(lazy_model(c.return_count[last_n], 16), n);
    if (misc) {
      if (gps) xy.encode_symbol(lazy_model(c.return_number[last_r], 16), r);
      else xy.encode_symbol(c.return_number_same_time, (r + 14 - last_r) & 15);
    }
    const uint32_t single = n == 1 ? 1 : 0;
    const uint32_t m = (uint32_t(kReturnContext6[n][r]) << 1) | (gps ? 1 : 0);
    const int32_t dx = static_cast<int32_t>(static_cast<uint32_t>(p.x) - static_cast<uint32_t>(c.last.x));
    c.dx.compress(c.x_median[m].get(), dx, single);
    c.x_median[m].add(dx);
    const int32_t dy = static_cast<int32_t>(static_cast<uint32_t>(p.y) - static_cast<uint32_t>(c.last.y));
    c.dy.compress(c.y_median[m].get(), dy, single | ((c.dx.k() < 20 ? c.dx.k() : 20) & ~1u));
    c.y_median[m].add(dy);
    {
      const uint32_t k = (c.dx.k() + c.dy.k()) >> 1;
      const uint32_t l = return_level8(n, r);
      c.dz.compress(c.last_z[l], p.z, single | ((k < 18 ? k : 18) & ~1u));
      c.last_z[l] = p.z;
    }
    {
      const uint32_t ctx = ((r == 1 && r >= n) ? 1u : 0u) | ((c.last.classification & 0x1fu) << 1);
      if (p.classification != c.last.classification) layers[kClass].changed = true;
      layers[kClass].encoder.encode_symbol(lazy_model(c.classes[ctx], 256), p.classification);
    }
    {
      if (p.flags() != c.last.flags()) layers[kFlags].changed = true;
      layers[kFlags].encoder.encode_symbol(lazy_model(c.flags[c.last.flags()], 64), p.flags());
    }
    {
      const uint32_t ctx = (gps ? 1u : 0u) | (r >= n ? 2u : 0u) | (r == 1 ? 4u : 0u);
      if (p.intensity != c.last.intensity) layers[kIntensity].changed = true;
      c.intensity.compress(c.last_intensity[ctx], p.intensity, ctx >> 1);
      c.last_intensity[ctx] = p.intensity;
    }
    if (p.scan_angle != c.last.scan_angle) {
      layers[kScanAngle].changed = true;
      c.scan_angle.compress(int16_t(c.last.scan_angle), int16_t(p.scan_angle), gps ? 1 : 0);
    }
    {
      if (p.user_data != c.last.user_data) layers[kUserData].changed = true;
      layers[kUserData].encoder.encode_symbol(lazy_model(c.user_data[c.last.user_data / 4], 256), p.user_data);
    }
    if (source_changed) {
      layers[kPointSource].changed = true;
      c.point_source.compress(c.last.point_source, p.point_source, 0);
    }
    if (gps) {
      layers[kGpsTime].changed = true;
      write_gps_time(c, static_cast<int64_t>(p.gps_time));
    }
    last_channel_ = sc;
    c.gps_changed = gps;
    c.last = p;
    return context;
  }

 private:
  struct Channel {
    explicit Channel(Point14Encoder& e)
        : changed{SymbolModel(128), SymbolModel(128), SymbolModel(128), SymbolModel(128),
                  SymbolModel(128), SymbolModel(128), SymbolModel(128), SymbolModel(128)},
          scanner(3),
          return_number_same_time(13),
          gps_multi(kGps14Symbols),
          gps_zero_diff(kGps14ZeroDiffSymbols),
          dx(e.layers[kXY].encoder, 2),
          dy(e.layers[kXY].encoder, 22),
          dz(e.layers[kZ].encoder, 20),
          intensity(e.layers[kIntensity].encoder, 4, 16),
          scan_angle(e.layers[kScanAngle].encoder, 2, 16),
          point_source(e.layers[kPointSource].encoder, 1, 16),
          gps(e.layers[kGpsTime].encoder, 9) {}
    bool used = false;
    bool gps_changed = false;
    Point14 last;
    SymbolModel changed[8];
    SymbolModel scanner, return_number_same_time, gps_multi, gps_zero_diff;
    std::unique_ptr<SymbolModel> return_count[16], return_number[16], classes[64], flags[64], user_data[64];
    IntegerCompressor dx, dy, dz, intensity, scan_angle, point_source, gps;
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

  static void start(Channel& c, const Point14& p) {
    c.used = true;
    c.last = p;
    for (int32_t& z : c.last_z) z = p.z;
    for (uint16_t& i : c.last_intensity) i = p.intensity;
    c.gps_times[0] = static_cast<int64_t>(p.gps_time);
  }

  static int32_t times(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
  }

  static void count_extreme(Channel& c, int32_t delta) {
    if (++c.gps_extreme[c.gps_last] > 3) {
      c.gps_diff[c.gps_last] = delta;
      c.gps_extreme[c.gps_last] = 0;
    }
  }

  // A full new time: the high 32 bits against the current sequence's, the low 32 raw; it starts the next
  // of the four sequences.
  void write_full(Channel& c, int64_t time) {
    ArithmeticEncoder& e = layers[kGpsTime].encoder;
    c.gps_next = (c.gps_next + 1) & 3;
    c.gps.compress(static_cast<int32_t>(static_cast<uint64_t>(c.gps_times[c.gps_last]) >> 32),
                   static_cast<int32_t>(static_cast<uint64_t>(time) >> 32), 8);
    e.write_int(static_cast<uint32_t>(static_cast<uint64_t>(time)));
    c.gps_last = c.gps_next;
    c.gps_times[c.gps_last] = time;
    c.gps_diff[c.gps_last] = 0;
    c.gps_extreme[c.gps_last] = 0;
  }

  // The difference from sequence s's last time, when it fits an int32.
  static bool diff_of(const Channel& c, uint32_t s, int64_t time, int32_t& diff) {
    const int64_t d = static_cast<int64_t>(static_cast<uint64_t>(time) - static_cast<uint64_t>(c.gps_times[s]));
    if (d < INT32_MIN || d > INT32_MAX) return false;
    diff = static_cast<int32_t>(d);
    return true;
  }

  // The inverse of Point14Decoder::read_gps_time. The encoder picks among the codes the decoder reads:
  // a difference against the current sequence where it fits 32 bits, else another sequence whose
  // difference fits (a jump), else a full time.
  void write_gps_time(Channel& c, int64_t time) {
    ArithmeticEncoder& e = layers[kGpsTime].encoder;
    const uint32_t s = c.gps_last;
    int32_t diff;
    if (c.gps_diff[s] == 0) {
      if (diff_of(c, s, time, diff)) {
        e.encode_symbol(c.gps_zero_diff, 0);
        c.gps.compress(0, diff, 0);
        c.gps_diff[s] = diff;
        c.gps_times[s] = time;
        c.gps_extreme[s] = 0;
        return;
      }
      for (uint32_t j = 1; j < 4; ++j) {
        const uint32_t other = (s + j) & 3;
        if (c.gps_times[other] != 0 && diff_of(c, other, time, diff)) {
          e.encode_symbol(c.gps_zero_diff, j + 1);
          c.gps_last = other;
          write_gps_time(c, time);
          return;
        }
      }
      e.encode_symbol(c.gps_zero_diff, 1);
      write_full(c, time);
      return;
    }
    if (diff_of(c, s, time, diff)) {
      const int32_t last = c.gps_diff[s];
      // The multiple of the last difference nearest this one (as LASzip rounds it), within the codes.
      const double ratio = static_cast<double>(diff) / static_cast<double>(last);
      const int32_t multi = ratio >= 0 ? static_cast<int32_t>(ratio + 0.5) : static_cast<int32_t>(ratio - 0.5);
      if (multi == 1) {
        e.encode_symbol(c.gps_multi, 1);
        c.gps.compress(last, diff, 1);
        c.gps_extreme[s] = 0;
      } else if (multi > 0) {
        if (multi < kGpsMulti) {
          e.encode_symbol(c.gps_multi, static_cast<uint32_t>(multi));
          c.gps.compress(times(multi, last), diff, multi < 10 ? 2 : 3);
        } else {
          e.encode_symbol(c.gps_multi, kGpsMulti);
          c.gps.compress(times(kGpsMulti, last), diff, 4);
          count_extreme(c, diff);
        }
      } else if (multi < 0) {
        if (multi > kGpsMultiMinus) {
          e.encode_symbol(c.gps_multi, static_cast<uint32_t>(kGpsMulti - multi));
          c.gps.compress(times(multi, last), diff, 5);
        } else {
          e.encode_symbol(c.gps_multi, static_cast<uint32_t>(kGpsMulti - kGpsMultiMinus));
          c.gps.compress(times(kGpsMultiMinus, last), diff, 6);
          count_extreme(c, diff);
        }
      } else {
        e.encode_symbol(c.gps_multi, 0);
        c.gps.compress(0, diff, 7);
        count_extreme(c, diff);
      }
      c.gps_times[s] = time;
      return;
    }
    for (uint32_t j = 1; j < 4; ++j) {
      const uint32_t other = (s + j) & 3;
      if (c.gps_times[other] != 0 && diff_of(c, other, time, diff)) {
        e.encode_symbol(c.gps_multi, kGps14CodeFull + j);
        c.gps_last = other;
        write_gps_time(c, time);
        return;
      }
    }
    e.encode_symbol(c.gps_multi, kGps14CodeFull);
    write_full(c, time);
  }

  std::array<std::unique_ptr<Channel>, 4> channels_;
  uint32_t last_channel_ = 0;
};

// The inverse of Rgb14Decoder, channel rules included.
class Rgb14Encoder {
 public:
  EncodeLayer layer;

  void init(const uint8_t* record, uint32_t sc) {
    Channel& c = channel(sc);
    c.used = true;
    c.last = read(record);
    last_channel_ = sc;
  }

  void write(const uint8_t* record, uint32_t sc) {
    const std::array<uint16_t, 3> v = read(record);
    Channel& c = channel(sc);
    std::array<uint16_t, 3>* last = &channels_[last_channel_]->last;
    if (!c.used) {
      c.used = true;
      c.last = *last;
      last = &c.last;
    }
    const std::array<uint16_t, 3> l = *last;
    auto differs = [](uint32_t a, uint32_t b, uint32_t mask) { return ((a ^ b) & mask) != 0; };
    const uint32_t sym = (differs(l[0], v[0], 0xff) ? 1u : 0u) | (differs(l[0], v[0], 0xff00) ? 2u : 0u) |
                         (differs(l[1], v[1], 0xff) ? 4u : 0u) | (differs(l[1], v[1], 0xff00) ? 8u : 0u) |
                         (differs(l[2], v[2], 0xff) ? 16u : 0u) | (differs(l[2], v[2], 0xff00) ? 32u : 0u) |
                         ((differs(v[0], v[1], 0xffff) || differs(v[0], v[2], 0xffff)) ? 64u : 0u);
    ArithmeticEncoder& e = layer.encoder;
    if (sym != 0) layer.changed = true;
    e.encode_symbol(c.used_bits, sym);
    int32_t diff_l = 0, diff_h = 0;
    auto put = [&](int model, int32_t corrector) { e.encode_symbol(c.diffs[model], static_cast<uint8_t>(corrector)); };
    if (sym & 1) {
      diff_l = (v[0] & 255) - (l[0] & 255);
      put(0, diff_l);
    }
    if (sym & 2) {
      diff_h = (v[0] >> 8) - (l[0] >> 8);
      put(1, diff_h);
    }
    if (sym & 64) {
      if (sym & 4) put(2, (v[1] & 255) - clamp_byte(diff_l + (l[1] & 255)));
      if (sym & 16) {
        diff_l = (diff_l + (v[1] & 255) - (l[1] & 255)) / 2;
        put(4, (v[2] & 255) - clamp_byte(diff_l + (l[2] & 255)));
      }
      if (sym & 8) put(3, (v[1] >> 8) - clamp_byte(diff_h + (l[1] >> 8)));
      if (sym & 32) {
        diff_h = (diff_h + (v[1] >> 8) - (l[1] >> 8)) / 2;
        put(5, (v[2] >> 8) - clamp_byte(diff_h + (l[2] >> 8)));
      }
    }
    *last = v;
    last_channel_ = sc;
  }

 private:
  struct Channel {
    bool used = false;
    std::array<uint16_t, 3> last{};
    SymbolModel used_bits{128};
    SymbolModel diffs[6] = {SymbolModel(256), SymbolModel(256), SymbolModel(256),
                            SymbolModel(256), SymbolModel(256), SymbolModel(256)};
  };

  static std::array<uint16_t, 3> read(const uint8_t* r) {
    return {load<uint16_t>(r), load<uint16_t>(r + 2), load<uint16_t>(r + 4)};
  }

  Channel& channel(uint32_t sc) {
    if (!channels_[sc]) channels_[sc] = std::make_unique<Channel>();
    return *channels_[sc];
  }

  std::array<std::unique_ptr<Channel>, 4> channels_;
  uint32_t last_channel_ = 0;
};

class Nir14Encoder {
 public:
  EncodeLayer layer;

  void init(const uint8_t* record, uint32_t sc) {
    Channel& c = channel(sc);
    c.used = true;
    c.last = load<uint16_t>(record);
    last_channel_ = sc;
  }

  void write(const uint8_t* record, uint32_t sc) {
    const uint16_t v = load<uint16_t>(record);
    Channel& c = channel(sc);
    uint16_t* last = &channels_[last_channel_]->last;
    if (!c.used) {
      c.used = true;
      c.last = *last;
      last = &c.last;
    }
    const bool low = (*last & 0xff) != (v & 0xff), high = (*last & 0xff00) != (v & 0xff00);
    const uint32_t sym = (low ? 1u : 0u) | (high ? 2u : 0u);
    ArithmeticEncoder& e = layer.encoder;
    if (sym != 0) layer.changed = true;
    e.encode_symbol(c.used_bits, sym);
    if (low) e.encode_symbol(c.diffs[0], static_cast<uint8_t>((v & 255) - (*last & 255)));
    if (high) e.encode_symbol(c.diffs[1], static_cast<uint8_t>((v >> 8) - (*last >> 8)));
    *last = v;
    last_channel_ = sc;
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

class Byte14Encoder {
 public:
  explicit Byte14Encoder(uint32_t size) : layers(size), size_(size) {}

  std::vector<EncodeLayer> layers;

  void init(const uint8_t* record, uint32_t sc) {
    Channel& c = channel(sc);
    c.used = true;
    c.last.assign(record, record + size_);
    last_channel_ = sc;
  }

  void write(const uint8_t* record, uint32_t sc) {
    Channel& c = channel(sc);
    std::vector<uint8_t>* last = &channels_[last_channel_]->last;
    if (!c.used) {
      c.used = true;
      c.last = *last;
      last = &c.last;
    }
    for (uint32_t i = 0; i < size_; ++i) {
      const uint8_t diff = static_cast<uint8_t>(record[i] - (*last)[i]);
      layers[i].encoder.encode_symbol(c.models[i], diff);
      if (diff != 0) {
        layers[i].changed = true;
        (*last)[i] = record[i];
      }
    }
    last_channel_ = sc;
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
};

// Appends the layered chunk of `points` records (laid out as `items`, which decodes_layered accepts) to out.
inline void encode_layered_chunk(const uint8_t* records, uint64_t points, const std::vector<Item>& items,
                                 uint32_t record_length, std::vector<uint8_t>& out) {
  if (points == 0) return;
  Point14Encoder point;
  std::unique_ptr<Rgb14Encoder> rgb;
  std::unique_ptr<Nir14Encoder> nir;
  std::unique_ptr<Byte14Encoder> bytes;
  for (size_t i = 1; i < items.size(); ++i) {
    if (items[i].type == kItemRgb14 || items[i].type == kItemRgbNir14) {
      rgb = std::make_unique<Rgb14Encoder>();
      if (items[i].type == kItemRgbNir14) nir = std::make_unique<Nir14Encoder>();
    } else {
      bytes = std::make_unique<Byte14Encoder>(items[i].size);
    }
  }
  const uint32_t rgb_at = 30, nir_at = 36, bytes_at = 30 + (rgb ? 6 : 0) + (nir ? 2 : 0);
  out.insert(out.end(), records, records + record_length);
  uint32_t sc = point.init(records);
  if (rgb) rgb->init(records + rgb_at, sc);
  if (nir) nir->init(records + nir_at, sc);
  if (bytes) bytes->init(records + bytes_at, sc);
  const uint8_t* record = records + record_length;
  for (uint64_t p = 1; p < points; ++p, record += record_length) {
    sc = point.write(record);
    if (rgb) rgb->write(record + rgb_at, sc);
    if (nir) nir->write(record + nir_at, sc);
    if (bytes) bytes->write(record + bytes_at, sc);
  }
  std::vector<EncodeLayer*> layers;
  for (EncodeLayer& l : point.layers) layers.push_back(&l);
  if (rgb) layers.push_back(&rgb->layer);
  if (nir) layers.push_back(&nir->layer);
  if (bytes)
    for (EncodeLayer& l : bytes->layers) layers.push_back(&l);
  const uint32_t count = static_cast<uint32_t>(points);
  out.insert(out.end(), reinterpret_cast<const uint8_t*>(&count), reinterpret_cast<const uint8_t*>(&count) + 4);
  std::vector<uint32_t> sizes;
  // A chunk of one point has no coded points: every layer is empty.
  for (EncodeLayer* l : layers) sizes.push_back(points > 1 ? l->finish() : 0);
  for (uint32_t s : sizes)
    out.insert(out.end(), reinterpret_cast<const uint8_t*>(&s), reinterpret_cast<const uint8_t*>(&s) + 4);
  for (size_t i = 0; i < layers.size(); ++i)
    out.insert(out.end(), layers[i]->bytes.begin(), layers[i]->bytes.begin() + sizes[i]);
}

}  // namespace xhd::laz
