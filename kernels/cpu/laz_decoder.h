// LASzip's arithmetic decoder and its integer decompressor, step for step as src/io/laz-arithmetic.ts (the
// reference): a value is its prediction plus a corrector, coded as the corrector's bit length k (one model
// per context) and its position among the 2^k correctors of that length (exactly for k <= 8; its top 8
// bits modelled and the rest raw above that). Reading past the chunk's end gives zero bytes and is counted,
// so that a chunk cut short is told from a whole one; damaged bytes decode to wrong values, never outside
// any table.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "laz_models.h"

namespace xhd::laz {

// Where a decoder's bytes come from when those it was given run out: the next window of a chunk read from
// the file a piece at a time (laz_reader.cpp), so that no chunk, however large, is held whole.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // The next bytes in [begin, end), or false when the chunk has none left.
  virtual bool more(const uint8_t*& begin, const uint8_t*& end) = 0;
};

class ArithmeticDecoder {
 public:
  ArithmeticDecoder(const uint8_t* begin, const uint8_t* end, ByteSource* source = nullptr)
      : at_(begin), end_(end), source_(source) {
    for (int i = 0; i < 4; ++i) value_ = (value_ << 8) | next_byte();
  }

  // Bytes asked for past the end of the input.
  uint64_t overrun() const { return overrun_; }

  uint32_t decode_symbol(SymbolModel& m) {
    uint32_t symbol, x, y = length_;
    const uint32_t* distribution = m.distribution();
    if (m.has_table()) {
      length_ >>= kSymbolLengthShift;
      const uint32_t dv = value_ / length_;
      uint32_t t = dv >> m.table_shift();
      // Only damaged data has value >= length, which could point past the table.
      if (t > m.table_size()) t = m.table_size();
      const uint32_t* table = m.table();
      symbol = table[t];
      uint32_t n = table[t + 1] + 1;
      while (n > symbol + 1) {
        const uint32_t k = (symbol + n) >> 1;
        if (distribution[k] > dv) n = k;
        else symbol = k;
      }
      x = distribution[symbol] * length_;
      if (symbol != m.last_symbol()) y = distribution[symbol + 1] * length_;
    } else {
      x = symbol = 0;
      length_ >>= kSymbolLengthShift;
      uint32_t n = m.symbols();
      uint32_t k = n >> 1;
      do {
        const uint32_t z = length_ * distribution[k];
        if (z > value_) {
          n = k;
          y = z;
        } else {
          symbol = k;
          x = z;
        }
      } while ((k = (symbol + n) >> 1) != symbol);
    }
    value_ -= x;
    length_ = y - x;
    if (length_ < kMinLength) renormalize();
    m.count(symbol);
    return symbol;
  }

  uint32_t decode_bit(BitModel& m) {
    const uint32_t x = m.bit0_probability * (length_ >> kBitLengthShift);
    uint32_t bit;
    if (value_ < x) {
      bit = 0;
      length_ = x;
      ++m.bit0_count;
    } else {
      bit = 1;
      value_ -= x;
      length_ -= x;
    }
    if (length_ < kMinLength) renormalize();
    if (--m.until_update == 0) m.update();
    return bit;
  }

  // `bits` raw bits (up to 32), the low 16 first when there are more than 19.
  uint32_t read_bits(uint32_t bits) {
    if (bits > 19) {
      const uint32_t low = read_bits(16);
      return (read_bits(bits - 16) << 16) | low;
    }
    length_ >>= bits;
    const uint32_t symbol = value_ / length_;
    value_ -= length_ * symbol;
    if (length_ < kMinLength) renormalize();
    return symbol;
  }

  uint32_t read_int() {
    const uint32_t low = read_bits(16);
    return (read_bits(16) << 16) | low;
  }

 private:
  uint32_t next_byte() {
    if (at_ < end_) return *at_++;
    if (source_ != nullptr && source_->more(at_, end_) && at_ < end_) return *at_++;
    ++overrun_;
    return 0;
  }

  void renormalize() {
    do {
      value_ = (value_ << 8) | next_byte();
      length_ <<= 8;
    } while (length_ < kMinLength);
  }

  const uint8_t* at_;
  const uint8_t* end_;
  ByteSource* source_;
  uint32_t value_ = 0;
  uint32_t length_ = 0xffffffffu;
  uint64_t overrun_ = 0;
};

class IntegerDecompressor {
 public:
  // `width` bits (1-32); `contexts` models of the corrector's bit length.
  IntegerDecompressor(ArithmeticDecoder& decoder, uint32_t contexts, uint32_t width = 32)
      : decoder_(decoder), width_(width), bits_(contexts), correctors_(width + 1) {}

  // The bit length of the last corrector decoded (LASzip's getK), which some items use as a context.
  uint32_t k() const { return k_; }

  // Values of fewer than 32 bits wrap around their range [0, 2^width); 32-bit values wrap as int32.
  int32_t decompress(int64_t prediction, uint32_t context) {
    const int64_t real = prediction + corrector(lazy_model(bits_[context], width_ + 1));
    if (width_ >= 32) return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(real)));
    const int64_t range = int64_t(1) << width_;
    return static_cast<int32_t>(real < 0 ? real + range : real >= range ? real - range : real);
  }

 private:
  static constexpr uint32_t kBitsHigh = 8;

  int64_t corrector(SymbolModel& model) {
    const uint32_t k = k_ = decoder_.decode_symbol(model);
    if (k == 0) return decoder_.decode_bit(corrector0_);
    if (k >= 32) return width_ >= 32 ? INT32_MIN : -(int64_t(1) << (width_ - 1));
    int64_t c = decoder_.decode_symbol(lazy_model(correctors_[k], 1u << (k < kBitsHigh ? k : kBitsHigh)));
    if (k > kBitsHigh) {
      const uint32_t low = k - kBitsHigh;
      c = (c << low) + decoder_.read_bits(low);
    }
    // c in [0, 2^(k-1)) stands for the negative correctors, c in [2^(k-1), 2^k) for the positive ones.
    return c >= (int64_t(1) << (k - 1)) ? c + 1 : c - ((int64_t(1) << k) - 1);
  }

  ArithmeticDecoder& decoder_;
  uint32_t width_;
  uint32_t k_ = 0;
  BitModel corrector0_;
  std::vector<std::unique_ptr<SymbolModel>> bits_;
  std::vector<std::unique_ptr<SymbolModel>> correctors_;
};

}  // namespace xhd::laz
