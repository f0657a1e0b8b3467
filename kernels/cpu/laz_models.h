// The adaptive models of LASzip's arithmetic coder (after Amir Said's FastAC, as LASzip uses it): a model of
// n symbols and a model of one bit, shared by the decoder (laz_decoder.h) and the encoder (laz_encoder.h).
// Written from the LAZ format's description, step for step as src/io/laz-arithmetic.ts (the reference).
// Every quantity is an unsigned 32-bit integer and every product stays below 2^32.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace xhd::laz {

constexpr uint32_t kMinLength = 0x01000000;
constexpr uint32_t kSymbolLengthShift = 15;
constexpr uint32_t kSymbolMaxCount = 1u << 15;
constexpr uint32_t kBitLengthShift = 13;
constexpr uint32_t kBitMaxCount = 1u << 13;

class SymbolModel {
 public:
  explicit SymbolModel(uint32_t symbols) : symbols_(symbols), last_symbol_(symbols - 1) {
    if (symbols > 16) {
      uint32_t bits = 3;
      while (symbols > (1u << (bits + 2))) ++bits;
      table_size_ = 1u << bits;
      table_shift_ = kSymbolLengthShift - bits;
      table_.assign(table_size_ + 2, 0);
    }
    distribution_.assign(symbols, 0);
    counts_.assign(symbols, 1);
    update_cycle_ = symbols;
    update();
    until_update_ = update_cycle_ = (symbols + 6) >> 1;
  }

  void count(uint32_t symbol) {
    ++counts_[symbol];
    if (--until_update_ == 0) update();
  }

  uint32_t symbols() const { return symbols_; }
  uint32_t last_symbol() const { return last_symbol_; }
  bool has_table() const { return !table_.empty(); }
  uint32_t table_shift() const { return table_shift_; }
  uint32_t table_size() const { return table_size_; }
  const uint32_t* distribution() const { return distribution_.data(); }
  const uint32_t* table() const { return table_.data(); }

 private:
  void update() {
    if ((total_count_ += update_cycle_) > kSymbolMaxCount) {
      total_count_ = 0;
      for (uint32_t n = 0; n < symbols_; ++n) total_count_ += (counts_[n] = (counts_[n] + 1) >> 1);
    }
    const uint32_t scale = 0x80000000u / total_count_;
    uint32_t sum = 0, s = 0;
    const bool table = has_table();
    for (uint32_t k = 0; k < symbols_; ++k) {
      distribution_[k] = (scale * sum) >> (31 - kSymbolLengthShift);
      sum += counts_[k];
      if (table) {
        const uint32_t w = distribution_[k] >> table_shift_;
        while (s < w) table_[++s] = k - 1;
      }
    }
    if (table) {
      table_[0] = 0;
      while (s <= table_size_) table_[++s] = symbols_ - 1;
    }
    update_cycle_ = (5 * update_cycle_) >> 2;
    const uint32_t max_cycle = (symbols_ + 6) << 3;
    if (update_cycle_ > max_cycle) update_cycle_ = max_cycle;
    until_update_ = update_cycle_;
  }

  uint32_t symbols_, last_symbol_;
  uint32_t table_size_ = 0, table_shift_ = 0;
  std::vector<uint32_t> distribution_, counts_, table_;
  uint32_t total_count_ = 0, update_cycle_ = 0, until_update_ = 0;
};

struct BitModel {
  uint32_t bit0_count = 1;
  uint32_t bit_count = 2;
  uint32_t bit0_probability = 1u << (kBitLengthShift - 1);
  uint32_t update_cycle = 4;
  uint32_t until_update = 4;

  void update() {
    if ((bit_count += update_cycle) > kBitMaxCount) {
      bit_count = (bit_count + 1) >> 1;
      bit0_count = (bit0_count + 1) >> 1;
      if (bit0_count == bit_count) ++bit_count;
    }
    const uint32_t scale = 0x80000000u / bit_count;
    bit0_probability = (bit0_count * scale) >> (31 - kBitLengthShift);
    update_cycle = (5 * update_cycle) >> 2;
    if (update_cycle > 64) update_cycle = 64;
    until_update = update_cycle;
  }
};

// A model made on first use: a fresh model is the same whenever it is made, and most contexts of an item
// (and most bit lengths of an integer coder) never occur in a chunk.
inline SymbolModel& lazy_model(std::unique_ptr<SymbolModel>& slot, uint32_t symbols) {
  if (!slot) slot = std::make_unique<SymbolModel>(symbols);
  return *slot;
}

}  // namespace xhd::laz
