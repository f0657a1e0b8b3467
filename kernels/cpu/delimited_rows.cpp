// xhd_count_lines and xhd_parse_delimited: the rows of a CSV / XYZ point file parsed on every core.
//
// The TypeScript parser (src/io/delimited.ts) is the reference and stays the only one that explains a bad
// file. This parser takes only the plain shape that nearly every large point file has, and gives up
// ("not plain") at the first byte outside it, even where the TypeScript parser would accept it (a lone
// '\r', a vertical tab, "nan" in a column that is read...): the caller then parses the whole text itself.
// A lone '\r' (classic Mac line ends) is a line end to the TypeScript parser; here it is always "not
// plain", so that lines, pieces and the row capacity need count only '\n' (such files are rare).
// So whatever this parser accepts, the TypeScript parser accepts too, with the same doubles: every number
// here is correctly rounded (by the exact fast path the TypeScript scanner also takes, else by
// std::from_chars), as JavaScript's Number() rounds it.
//
// The text is cut into pieces at line ends; each piece knows from a first counting pass how many lines
// come before it, which bounds the rows before it, so every thread writes its rows straight into the
// caller's array at that bound. Lines that are not rows (blank, comments) leave gaps that one pass closes.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <system_error>
#include <vector>

#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "ordered_key.h"
#include "prefault.h"
#include "xhd.h"

namespace {

using xhd::InvalidArgument;

// Pieces of about this size (cut at the next line end): many more pieces than threads, so that a slow
// piece (long numbers, a VM that deschedules a thread) does not hold the others up.
constexpr uint64_t kDefaultPieceBytes = uint64_t(1) << 20;

uint64_t count_newlines(const uint8_t* p, uint64_t n) {
  uint64_t total = 0;
  while (n > 0) {
    // A 32-bit count per block of bytes keeps the compare-and-add loop vectorizable.
    const uint64_t block = std::min<uint64_t>(n, uint64_t(1) << 20);
    uint32_t count = 0;
    for (uint64_t i = 0; i < block; ++i) count += p[i] == '\n';
    total += count;
    p += block;
    n -= block;
  }
  return total;
}

// The lines of text in [begin, end): its '\n' bytes, plus one for a last line without one.
uint64_t lines_of(const uint8_t* begin, const uint8_t* end) {
  if (begin == end) return 0;
  return count_newlines(begin, uint64_t(end - begin)) + (end[-1] != '\n' ? 1 : 0);
}

struct Format {
  const int8_t* slots;
  int columns;
  bool comma;
};

inline bool is_blank(uint8_t c) { return c == ' ' || c == '\t'; }
inline bool is_digit(uint8_t c) { return uint8_t(c - '0') < 10; }

// A '#' comment: past the next '\n' (or to the end). A quote anywhere, even in a comment, sends the file
// to csv-parse in the TypeScript reader, so it is not plain here. Nor is a lone '\r' (one not just before
// the '\n'): the TypeScript reader ends the comment and the line there (a classic Mac line end), and
// skipping on to the '\n' would drop the rows in between.
inline bool skip_comment(const uint8_t*& p, const uint8_t* end) {
  const void* nl = std::memchr(p, '\n', size_t(end - p));
  const uint8_t* line_end = nl == nullptr ? end : static_cast<const uint8_t*>(nl);
  if (std::memchr(p, '"', size_t(line_end - p)) != nullptr) return false;
  const void* cr = std::memchr(p, '\r', size_t(line_end - p));
  if (cr != nullptr && (nl == nullptr || static_cast<const uint8_t*>(cr) + 1 != line_end)) return false;
  p = nl == nullptr ? end : line_end + 1;
  return true;
}

// 10^0 .. 10^22: exact doubles, so m * 10^k and m / 10^k with an exact integer m (<= 2^53) is one IEEE
// operation on exact operands and therefore correctly rounded (Clinger's fast path, which the TypeScript
// scanner takes too); every other number goes to std::from_chars, which rounds correctly always.
constexpr double kExactPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
constexpr uint64_t kExactMantissa = uint64_t(1) << 53;

// Appends the run of digits at q to mantissa. It stays exact while below 2^53 (the only case where its
// value is used); past that, it is only marked long.
inline int64_t read_digits(const uint8_t*& q, const uint8_t* end, uint64_t& mantissa, bool& long_mantissa) {
  int64_t count = 0;
  for (; q < end && is_digit(*q); ++q, ++count) {
    if (mantissa < kExactMantissa) mantissa = mantissa * 10 + (*q - '0');
    else long_mantissa = true;
  }
  return count;
}

// A number as the TypeScript scanner reads it, [+-]digits[.digits][(e|E)[+-]digits] with at least one
// digit before the exponent, finite and within +-1e15 once rounded; false for anything else (nan, inf,
// "1e", "0x1"...), which the TypeScript parser then reports or reads.
inline bool parse_number(const uint8_t*& p, const uint8_t* end, double& value) {
  const uint8_t* q = p;
  bool negative = false;
  if (q < end && (*q == '+' || *q == '-')) {
    negative = *q == '-';
    ++q;
  }
  const uint8_t* digits = q;  // from_chars takes no '+', so the sign is applied after it
  uint64_t mantissa = 0;
  bool long_mantissa = false;
  int64_t count = read_digits(q, end, mantissa, long_mantissa);
  int64_t scale = 0;
  if (q < end && *q == '.') {
    ++q;
    const int64_t fraction = read_digits(q, end, mantissa, long_mantissa);
    count += fraction;
    scale = -fraction;
  }
  if (count == 0) return false;
  if (q < end && (*q | 0x20) == 'e') {
    ++q;
    bool exponent_negative = false;
    if (q < end && (*q == '+' || *q == '-')) exponent_negative = *q++ == '-';
    const uint8_t* exponent_digits = q;
    int64_t exponent = 0;
    for (; q < end && is_digit(*q); ++q)
      if (exponent < 100000) exponent = exponent * 10 + (*q - '0');
    if (q == exponent_digits) return false;
    scale += exponent_negative ? -exponent : exponent;
  }
  if (mantissa == 0 && !long_mantissa) {
    value = 0;  // whatever the exponent, as the TypeScript scanner has it (and from_chars would agree)
  } else if (!long_mantissa && mantissa <= kExactMantissa && scale >= -22 && scale <= 22) {
    value = scale < 0 ? double(mantissa) / kExactPowersOfTen[-scale] : double(mantissa) * kExactPowersOfTen[scale];
  } else {
    const char* first = reinterpret_cast<const char*>(digits);
    const char* last = reinterpret_cast<const char*>(q);
    // Out of range (overflow, or underflow to zero) is an error here and left to the TypeScript parser.
    const std::from_chars_result parsed = std::from_chars(first, last, value);
    if (parsed.ec != std::errc() || parsed.ptr != last) return false;
  }
  if (negative) value = -value;
  if (!(value <= xhd::kMaxAbsCoordinate && value >= -xhd::kMaxAbsCoordinate)) return false;
  p = q;
  return true;
}

// What may follow a number: a separator, a line end or a comment (a lone '\r' is caught after it).
inline bool ends_number(const uint8_t* p, const uint8_t* end, bool comma) {
  if (p == end) return true;
  const uint8_t c = *p;
  return is_blank(c) || c == '\n' || c == '\r' || c == '#' || (comma && c == ',');
}

// A column that is not read may hold anything up to its separator, as the TypeScript parser skips it;
// a quote (a file with one goes to csv-parse in the TypeScript reader) is not plain.
inline bool skip_field(const uint8_t*& p, const uint8_t* end, bool comma) {
  for (; p < end; ++p) {
    const uint8_t c = *p;
    if (c == '"') return false;
    if (comma ? (c == ',' || c == '\n' || c == '\r' || c == '#')
              : (c == ' ' || c == ',' || (c >= '\t' && c <= '\r') || c == '#'))
      return true;
  }
  return true;
}

// Between two fields: blanks, a comma, blanks (comma files); one or more blanks (the others).
inline bool skip_separator(const uint8_t*& p, const uint8_t* end, bool comma) {
  const uint8_t* start = p;
  while (p < end && is_blank(*p)) ++p;
  if (!comma) return p > start;
  if (p == end || *p != ',') return false;
  ++p;
  while (p < end && is_blank(*p)) ++p;
  return true;
}

// One field's value, or false. At its start there must be something: an empty field, a line end or a
// comment where a field should be is a ragged row, which the TypeScript parser reports.
inline bool read_field(const uint8_t*& p, const uint8_t* end, const Format& format, int column, double* row) {
  if (p == end) return false;
  const uint8_t c = *p;
  if (c == '\n' || c == '\r' || c == '#') return false;
  const int slot = format.slots[column];
  if (slot < 0) return skip_field(p, end, format.comma);  // an empty unread field (",,") is allowed there too
  double value;
  if (!parse_number(p, end, value) || !ends_number(p, end, format.comma)) return false;
  row[slot] = value;
  return true;
}

// After a row's last field: blanks, then a line end, a comment or the end of the text.
inline bool finish_row(const uint8_t*& p, const uint8_t* end) {
  while (p < end && is_blank(*p)) ++p;
  if (p == end) return true;
  if (*p == '\n') {
    ++p;
    return true;
  }
  if (*p == '\r' && p + 1 < end && p[1] == '\n') {
    p += 2;
    return true;
  }
  if (*p == '#') return skip_comment(p, end);
  return false;
}

// Bounds of rows as order keys (ordered_key.h), so that they equal src/io/geometry.ts's bit for bit.
struct RowBounds {
  uint64_t min[3] = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
  uint64_t max[3] = {0, 0, 0};
  void add(const double* row) {
    for (int k = 0; k < 3; ++k) {
      const uint64_t key = xhd::order_key(row[k]);
      min[k] = std::min(min[k], key);
      max[k] = std::max(max[k], key);
    }
  }
  void merge(const RowBounds& other) {
    for (int k = 0; k < 3; ++k) min[k] = std::min(min[k], other.min[k]), max[k] = std::max(max[k], other.max[k]);
  }
};

// The rows of one piece into out (room for `room` rows); false at the first thing that is not plain.
// Counts and bounds are kept in locals and stored once at the end: the threads' results sit side by side
// in memory, and updating them row by row made the cores fight over those cache lines (4x slower).
bool parse_piece(const uint8_t* p, const uint8_t* end, const Format& format, double* out, uint64_t room,
                 uint64_t& piece_rows, RowBounds& piece_bounds) {
  uint64_t rows = 0;
  RowBounds bounds;
  while (p < end) {
    while (p < end && is_blank(*p)) ++p;
    if (p == end) break;
    if (*p == '\n') {
      ++p;
      continue;
    }
    if (*p == '\r') {
      if (p + 1 < end && p[1] == '\n') {
        p += 2;
        continue;
      }
      return false;
    }
    if (*p == '#') {
      if (!skip_comment(p, end)) return false;
      continue;
    }
    if (rows == room) return false;  // cannot happen: a row takes a line
    double row[3] = {0, 0, 0};
    for (int column = 0; column < format.columns; ++column) {
      if (column > 0 && !skip_separator(p, end, format.comma)) return false;
      if (!read_field(p, end, format, column, row)) return false;
    }
    if (!finish_row(p, end)) return false;
    bounds.add(row);
    double* o = out + 3 * rows++;
    o[0] = row[0];
    o[1] = row[1];
    o[2] = row[2];
  }
  piece_rows = rows;
  piece_bounds = bounds;
  return true;
}

// Piece boundaries: starts[i] .. starts[i + 1], each just after a '\n' (or the text's ends).
std::vector<uint64_t> cut_pieces(const uint8_t* text, uint64_t length, uint64_t piece) {
  std::vector<uint64_t> starts{0};
  for (uint64_t at = piece; at < length;) {
    const void* nl = std::memchr(text + at, '\n', size_t(length - at));
    if (nl == nullptr) break;
    const uint64_t next = uint64_t(static_cast<const uint8_t*>(nl) - text) + 1;
    if (next >= length) break;
    starts.push_back(next);
    at = next + piece;
  }
  starts.push_back(length);
  return starts;
}

bool parse_rows(const uint8_t* text, uint64_t length, const Format& format, int threads, uint64_t piece_bytes,
                double* xyz, uint64_t capacity, uint64_t& rows, RowBounds& bounds) {
  const std::vector<uint64_t> starts = cut_pieces(text, length, piece_bytes);
  const size_t pieces = starts.size() - 1;
  std::vector<uint64_t> first_row(pieces + 1, 0);  // lines before each piece: a bound on the rows before it
  xhd::parallel_blocks(pieces, 1, threads, [&](size_t i, size_t, int) {
    first_row[i + 1] = lines_of(text + starts[i], text + starts[i + 1]);
  });
  for (size_t i = 0; i < pieces; ++i) first_row[i + 1] += first_row[i];
  if (first_row[pieces] > capacity) throw InvalidArgument("xyz has room for fewer rows than the text has lines");

  std::vector<uint64_t> piece_rows(pieces, 0);
  std::vector<RowBounds> piece_bounds(pieces);
  std::atomic<bool> plain{true};
  xhd::parallel_blocks(pieces, 1, threads, [&](size_t i, size_t, int) {
    if (!plain.load(std::memory_order_relaxed)) return;  // the caller parses everything again anyway
    const uint64_t room = first_row[i + 1] - first_row[i];
    xhd::prefault_for_writing(xyz + 3 * first_row[i], room * 3 * sizeof(double));
    if (!parse_piece(text + starts[i], text + starts[i + 1], format, xyz + 3 * first_row[i], room, piece_rows[i],
                     piece_bounds[i]))
      plain.store(false, std::memory_order_relaxed);
  });
  if (!plain.load()) return false;
  for (const RowBounds& b : piece_bounds) bounds.merge(b);
  uint64_t done = 0;
  for (size_t i = 0; i < pieces; ++i) {
    if (first_row[i] != done && piece_rows[i] > 0)
      std::memmove(xyz + 3 * done, xyz + 3 * first_row[i], piece_rows[i] * 3 * sizeof(double));
    done += piece_rows[i];
  }
  rows = done;
  return true;
}

uint64_t count_lines(const uint8_t* text, uint64_t length, int threads) {
  if (length == 0) return 0;
  std::atomic<uint64_t> newlines{0};
  xhd::parallel_blocks(length, uint64_t(4) << 20, threads, [&](size_t begin, size_t end, int) {
    newlines.fetch_add(count_newlines(text + begin, end - begin), std::memory_order_relaxed);
  });
  return newlines.load() + (text[length - 1] != '\n' ? 1 : 0);
}

}  // namespace

extern "C" {

XHD_API int32_t xhd_count_lines(const uint8_t* text, uint64_t length, int32_t threads, uint64_t* lines) {
  return xhd::guarded([&] {
    if (lines == nullptr || (text == nullptr && length > 0)) throw InvalidArgument("text and lines must not be null");
    if (threads < 0) throw InvalidArgument("threads must be >= 0");
    *lines = count_lines(text, length, xhd::resolve_thread_count(threads));
    return int32_t(XHD_OK);
  });
}

XHD_API int32_t xhd_parse_delimited(const uint8_t* text, uint64_t length, const xhd_delimited_layout* layout,
                                    double* xyz, uint64_t capacity, xhd_delimited_result* result) {
  return xhd::guarded([&] {
    if (layout == nullptr || result == nullptr || (text == nullptr && length > 0))
      throw InvalidArgument("text, layout and result must not be null");
    if (xyz == nullptr && capacity > 0) throw InvalidArgument("xyz must not be null");
    if (layout->column_count < 1 || layout->slots == nullptr)
      throw InvalidArgument("need at least one column and its slots");
    if (layout->threads < 0) throw InvalidArgument("threads must be >= 0");
    for (int c = 0; c < layout->column_count; ++c)
      if (layout->slots[c] < -1 || layout->slots[c] > 2) throw InvalidArgument("a slot must be -1, 0, 1 or 2");
    *result = xhd_delimited_result{};
    const Format format{layout->slots, layout->column_count, layout->comma != 0};
    const uint64_t piece = layout->piece_bytes > 0 ? layout->piece_bytes : kDefaultPieceBytes;
    uint64_t rows = 0;
    RowBounds bounds;
    result->plain = parse_rows(text, length, format, xhd::resolve_thread_count(layout->threads), piece, xyz, capacity,
                               rows, bounds);
    result->rows = result->plain ? rows : 0;
    for (int k = 0; k < 3; ++k) {
      result->min[k] = rows == 0 ? INFINITY : xhd::from_order_key<double>(bounds.min[k]);
      result->max[k] = rows == 0 ? -INFINITY : xhd::from_order_key<double>(bounds.max[k]);
    }
    return int32_t(XHD_OK);
  });
}

}  // extern "C"
