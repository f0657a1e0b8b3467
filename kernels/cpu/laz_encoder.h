// LASzip's arithmetic encoder and integer compressor: the exact inverse of laz_decoder.h (same models, same
// order of model updates), so that what is encoded here decodes there, and in any LASzip decoder.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "laz_models.h"

namespace xhd::laz {

class ArithmeticEncoder {
 public:
  explicit ArithmeticEncoder(std::vector<uint8_t>& out) : out_(out) {}

  void encode_symbol(SymbolModel& m, uint32_t symbol) {
    const uint32_t* distribution = m.distribution();
    if (symbol == m.last_symbol()) {
      const uint32_t x = distribution[symbol] * (length_ >> kSymbolLengthShift);
      add(x);
      length_ -= x;
    } else {
      length_ >>= kSymbolLengthShift;
      const uint32_t x = distribution[symbol] * length_;
      add(x);
      length_ = distribution[symbol + 1] * length_ - x;
    }
    if (length_ < kMinLength) renormalize();
    m.count(symbol);
  }

  void encode_bit(BitModel& m, uint32_t bit) {
    const uint32_t x = m.bit0_probability * (length_ >> kBitLengthShift);
    if (bit == 0) {
      length_ = x;
      ++m.bit0_count;
    } else {
      add(x);
      length_ -= x;
    }
    if (length_ < kMinLength) renormalize();
    if (--m.until_update == 0) m.update();
  }

  // The low `bits` (up to 32) of value, raw; the low 16 first when there are more than 19.
  void write_bits(uint32_t bits, uint32_t value) {
    if (bits > 19) {
      write_bits(16, value & 0xffff);
      value >>= 16;
      bits -= 16;
    }
    length_ >>= bits;
    add(value * length_);
    if (length_ < kMinLength) renormalize();
  }

  void write_int(uint32_t value) {
    write_bits(16, value & 0xffff);
    write_bits(16, value >> 16);
  }

  // Flushes the coder: enough bytes that a decoder reading four ahead finds the last symbol.
  void done() {
    bool another = true;
    if (length_ > 2 * kMinLength) {
      add(kMinLength);
      length_ = kMinLength >> 1;
    } else {
      add(kMinLength >> 1);
      length_ = kMinLength >> 9;
      another = false;
    }
    renormalize();
    out_.push_back(0);
    out_.push_back(0);
    if (another) out_.push_back(0);
  }

 private:
  void add(uint32_t x) {
    const uint32_t before = base_;
    base_ += x;
    if (before > base_) carry();
  }

  void carry() {
    size_t p = out_.size();
    while (p > start_ && out_[p - 1] == 0xff) out_[--p] = 0;
    if (p > start_) ++out_[p - 1];
  }

  void renormalize() {
    do {
      out_.push_back(static_cast<uint8_t>(base_ >> 24));
      base_ <<= 8;
      length_ <<= 8;
    } while (length_ < kMinLength);
  }

  std::vector<uint8_t>& out_;
  size_t start_ = out_.size();  // a carry never reaches bytes written before this coder began
  uint32_t base_ = 0;
  uint32_t length_ = 0xffffffffu;
};

class IntegerCompressor {
 public:
  IntegerCompressor(ArithmeticEncoder& encoder, uint32_t contexts, uint32_t width = 32)
      : encoder_(encoder), width_(width), bits_(contexts), correctors_(width + 1) {}

  uint32_t k() const { return k_; }

  void compress(int64_t prediction, int64_t real, uint32_t context) {
    int64_t c;
    if (width_ >= 32) {
      c = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(real - prediction)));
    } else {
      const int64_t range = int64_t(1) << width_, half = range >> 1;
      c = real - prediction;
      if (c < -half) c += range;
      else if (c >= half) c -= range;
    }
    uint64_t c1 = static_cast<uint64_t>(c <= 0 ? -c : c - 1);
    uint32_t k = 0;
    while (c1 > 0) {
      c1 >>= 1;
      ++k;
    }
    k_ = k;
    encoder_.encode_symbol(lazy_model(bits_[context], width_ + 1), k);
    if (k == 0) {
      encoder_.encode_bit(corrector0_, static_cast<uint32_t>(c));
      return;
    }
    if (k >= 32) return;  // the one corrector of 32 bits, INT32_MIN
    c = c < 0 ? c + ((int64_t(1) << k) - 1) : c - 1;
    SymbolModel& model = lazy_model(correctors_[k], 1u << (k < kBitsHigh ? k : kBitsHigh));
    if (k <= kBitsHigh) {
      encoder_.encode_symbol(model, static_cast<uint32_t>(c));
    } else {
      const uint32_t low = k - kBitsHigh;
      encoder_.encode_symbol(model, static_cast<uint32_t>(c >> low));
      encoder_.write_bits(low, static_cast<uint32_t>(c & ((int64_t(1) << low) - 1)));
    }
  }

 private:
  static constexpr uint32_t kBitsHigh = 8;

  ArithmeticEncoder& encoder_;
  uint32_t width_;
  uint32_t k_ = 0;
  BitModel corrector0_;
  std::vector<std::unique_ptr<SymbolModel>> bits_;
  std::vector<std::unique_ptr<SymbolModel>> correctors_;
};

}  // namespace xhd::laz
