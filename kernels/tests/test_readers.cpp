// The native readers (cpu/delimited_rows.cpp, ply_vertex_reader.cpp, file_reader.cpp) on good and
// malformed input. Texts are handed over in heap buffers of exactly their length, with no terminator,
// so a parser that reads one byte past the end is caught by AddressSanitizer; pieces of a few bytes and
// several threads reach the piece cutting and the closing of gaps between pieces.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "check.h"
#include "temp_file.h"
#include "random_points.h"
#include "xhd.h"

namespace {

// A copy of text in a heap block of exactly its size (nothing readable after its last byte).
std::unique_ptr<uint8_t[]> exact_copy(const std::string& text) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[text.size() == 0 ? 1 : text.size()]);
  std::memcpy(copy.get(), text.data(), text.size());
  return copy;
}

struct Parsed {
  int32_t status;
  xhd_delimited_result result;
  std::vector<double> xyz;
};

Parsed parse(const std::string& text, std::vector<int8_t> slots, bool comma, uint64_t piece_bytes, int threads) {
  const std::unique_ptr<uint8_t[]> bytes = exact_copy(text);
  uint64_t lines = 0;
  CHECK_EQ(xhd_count_lines(bytes.get(), text.size(), threads, &lines), int32_t(XHD_OK));
  Parsed out{0, {}, std::vector<double>(3 * lines + 3, -99)};
  const xhd_delimited_layout layout{slots.data(), int32_t(slots.size()), comma ? 1 : 0, threads, 0, piece_bytes};
  out.status = xhd_parse_delimited(bytes.get(), text.size(), &layout, out.xyz.data(), lines, &out.result);
  return out;
}

Parsed parse_xyz(const std::string& text, uint64_t piece_bytes = 0, int threads = 2) {
  return parse(text, {0, 1, 2}, true, piece_bytes, threads);
}

template <class T>
void append(std::string& bytes, T value, bool swap = false) {
  char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  if (swap)
    for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(raw[i], raw[sizeof(T) - 1 - i]);
  bytes.append(raw, sizeof(T));
}

xhd_ply_vertex_layout layout_of(uint64_t body, uint64_t count, uint32_t stride, std::vector<int> offsets,
                                std::vector<int> types, int output) {
  xhd_ply_vertex_layout l{};
  l.body_offset = body;
  l.count = count;
  l.stride = stride;
  for (int k = 0; k < 3; ++k) l.offset[k] = offsets[k], l.type[k] = types[k];
  l.output = output;
  l.threads = 2;
  return l;
}

}  // namespace

TEST(delimited_plain_text) {
  const std::string text =
      "  1 ,\t2,3  \n\n\r\n# a comment\n-0,0.5,.25\n4e2,5.,-6E-1#tail\n1e15,-1e15,0.12345678901234567890123";
  for (uint64_t piece : {uint64_t(0), uint64_t(1), uint64_t(5), uint64_t(13)})
    for (int threads : {1, 3}) {
      const Parsed p = parse_xyz(text, piece, threads);
      CHECK_EQ(p.status, int32_t(XHD_OK));
      CHECK_EQ(p.result.plain, 1);
      CHECK_EQ(p.result.rows, uint64_t(4));
      const std::vector<double> expected{1,   2, 3,    -0.0, 0.5,   0.25,
                                         400, 5, -0.6, 1e15, -1e15, 0.12345678901234567890123};
      CHECK(std::equal(expected.begin(), expected.end(), p.xyz.begin()));
      CHECK(std::signbit(p.xyz[3]));
      CHECK_EQ(p.result.min[0], -0.0);
      CHECK(std::signbit(p.result.min[0]));  // -0 below +0, as Math.min has it
      CHECK_EQ(p.result.max[0], 1e15);
      CHECK_EQ(p.result.min[1], -1e15);
    }
  // Blank-separated columns, one of them not read.
  const Parsed p = parse("x 1 2 3\nlabel\t4 5 6\n", {-1, 0, 1, 2}, false, 0, 2);
  CHECK_EQ(p.result.plain, 1);
  CHECK_EQ(p.result.rows, uint64_t(2));
  CHECK_EQ(p.xyz[5], 6.0);
  // Nothing at all: no rows, empty bounds.
  uint64_t lines = 7;
  CHECK_EQ(xhd_count_lines(nullptr, 0, 1, &lines), int32_t(XHD_OK));
  CHECK_EQ(lines, uint64_t(0));
  int8_t slots[3] = {0, 1, 2};
  const xhd_delimited_layout layout{slots, 3, 1, 1, 0, 0};
  xhd_delimited_result result{};
  CHECK_EQ(xhd_parse_delimited(nullptr, 0, &layout, nullptr, 0, &result), int32_t(XHD_OK));
  CHECK(result.plain == 1 && result.rows == 0 && result.min[0] == INFINITY && result.max[2] == -INFINITY);
}

TEST(delimited_not_plain) {
  // Each of these is left to the TypeScript parser (plain = 0), never misread.
  const char* texts[] = {"1,2\n",
                         "1,,3\n",
                         "1,2,3\r",
                         "1,2,3\r\r\n",
                         "nan,1,2\n",
                         "1e,2,3\n",
                         "1,2,\"3\"\n",
                         "# \"q\"\n1,2,3",
                         "1,2,3 4\n",
                         "1e999,2,3",
                         "1e-999,2,3",
                         "+,1,2",
                         "0x1,2,3",
                         "1.0000000000000002e15,0,0",
                         "1,2,3,\n",
                         "1,2,3\n4,5",
                         "\r\n1,2,3\r5,6,7",
                         "1;2;3",
                         "1,2,-",
                         "1,2,3e+",
                         "1,2,.",
                         "1,2,3\x0b"};
  for (const char* text : texts) {
    const Parsed p = parse_xyz(text, 3, 2);
    CHECK_EQ(p.status, int32_t(XHD_OK));
    if (!CHECK_EQ(p.result.plain, 0)) std::fprintf(stderr, "  text: %s\n", text);
    CHECK_EQ(p.result.rows, uint64_t(0));
  }
  // Bad layouts are refused, not read.
  int8_t bad_slot[3] = {0, 1, 5};
  const xhd_delimited_layout bad{bad_slot, 3, 1, 1, 0, 0};
  xhd_delimited_result result{};
  double xyz[3];
  const uint8_t text[] = {'1', ',', '2', ',', '3'};
  CHECK_EQ(xhd_parse_delimited(text, 5, &bad, xyz, 1, &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  int8_t slots[3] = {0, 1, 2};
  const xhd_delimited_layout good{slots, 3, 1, 1, 0, 0};
  CHECK_EQ(xhd_parse_delimited(text, 5, &good, xyz, 0, &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));  // no room
}

TEST(delimited_every_prefix) {
  // Every prefix of a file, as a file cut short would give it: the rows before the cut are the whole
  // file's, and nothing past the prefix is read.
  const std::string text = "0.5,1,2\n-3.25,4e1,5\r\n# c\n6,  7.125 ,8\n9,10,11e-1\n";
  const Parsed whole = parse_xyz(text);
  CHECK_EQ(whole.result.rows, uint64_t(4));
  bool consistent = true;
  for (size_t n = 0; n <= text.size(); ++n) {
    for (uint64_t piece : {uint64_t(0), uint64_t(4)}) {
      const Parsed p = parse_xyz(text.substr(0, n), piece, 2);
      consistent = consistent && p.status == XHD_OK;
      if (p.result.plain != 1) continue;
      consistent = consistent && p.result.rows <= whole.result.rows;
      // Rows that ended before the cut are read as in the whole file.
      for (uint64_t r = 0; r + 1 < p.result.rows; ++r)
        for (int k = 0; k < 3; ++k) consistent = consistent && p.xyz[3 * r + k] == whole.xyz[3 * r + k];
    }
  }
  CHECK(consistent);
}

TEST(delimited_mutations) {
  // Random bytes of a number file replaced by bytes that matter to the parser: whatever it makes of the
  // result, it stays within the buffer and keeps only finite values within +-1e15.
  xhd_test::Random rng(61);
  std::string base;
  for (int r = 0; r < 40; ++r)
    base += std::to_string(rng.uniform(-1e3, 1e3)) + "," + std::to_string(r) + ",-" + std::to_string(r * 0.5) + "\n";
  const std::string alphabet = "0123456789.,eE+- \t\r\n#\"x";
  int plain = 0;
  bool sane = true;
  for (int round = 0; round < 300; ++round) {
    std::string text = base;
    const int edits = 1 + int(rng.below(4));
    for (int e = 0; e < edits; ++e) text[rng.below(text.size())] = alphabet[rng.below(alphabet.size())];
    if (rng.below(4) == 0) text.resize(rng.below(text.size()));
    const Parsed p = parse_xyz(text, 1 + rng.below(64), 1 + int(rng.below(3)));
    sane = sane && p.status == XHD_OK;
    if (p.result.plain != 1) continue;
    ++plain;
    for (uint64_t i = 0; i < 3 * p.result.rows; ++i) sane = sane && std::fabs(p.xyz[i]) <= 1e15;
  }
  CHECK(sane);
  CHECK(plain > 0);  // some mutations leave a plain file (a digit for a digit)
}

TEST(ply_vertices_good_files) {
  // float32 x, y, z back to back (read straight into the output), 150 records, small pieces.
  std::string packed = "header bytes";
  std::vector<float> expected;
  for (int i = 0; i < 150; ++i)
    for (int k = 0; k < 3; ++k) {
      expected.push_back(float(i) * 0.5f - float(k));
      append(packed, expected.back());
    }
  const xhd_test::TempFile packed_file(packed);
  xhd_ply_vertex_layout l = layout_of(12, 150, 12, {0, 4, 8}, {XHD_FLOAT32, XHD_FLOAT32, XHD_FLOAT32}, XHD_FLOAT32);
  l.piece_bytes = 12 * 7 + 5;
  l.threads = 3;
  std::vector<float> got(3 * 150);
  xhd_read_result result{};
  CHECK_EQ(xhd_read_ply_vertices(packed_file.path(), &l, got.data(), &result), int32_t(XHD_OK));
  CHECK_EQ(result.kind, XHD_READ_OK);
  CHECK(got == expected);
  CHECK_EQ(result.max[0], 74.5);
  CHECK_EQ(result.min[2], -2.0);

  // Big-endian records of mixed types (int16 x, uint8 y, float64 z) among other properties, to doubles;
  // then the same file read as 2D (no z).
  std::string mixed;
  for (int i = 0; i < 40; ++i) {
    append<uint32_t>(mixed, 0xdeadbeef, true);
    append<int16_t>(mixed, int16_t(-i * 100), true);
    append<uint8_t>(mixed, uint8_t(i));
    append<double>(mixed, i * 0.125, true);
    append<uint8_t>(mixed, 0);
  }
  const xhd_test::TempFile mixed_file(mixed);
  l = layout_of(0, 40, 16, {4, 6, 7}, {XHD_INT16, XHD_UINT8, XHD_FLOAT64}, XHD_FLOAT64);
  l.swap_bytes = 1;
  std::vector<double> xyz(3 * 40);
  CHECK_EQ(xhd_read_ply_vertices(mixed_file.path(), &l, xyz.data(), &result), int32_t(XHD_OK));
  CHECK_EQ(result.kind, XHD_READ_OK);
  CHECK(xyz[3 * 39] == -3900 && xyz[3 * 39 + 1] == 39 && xyz[3 * 39 + 2] == 39 * 0.125);
  l.offset[2] = -1;
  CHECK_EQ(xhd_read_ply_vertices(mixed_file.path(), &l, xyz.data(), &result), int32_t(XHD_OK));
  CHECK(xyz[3 * 39] == -3900 && xyz[3 * 39 + 2] == 0);

  // No records: bounds are empty.
  l.count = 0;
  CHECK_EQ(xhd_read_ply_vertices(mixed_file.path(), &l, nullptr, &result), int32_t(XHD_OK));
  CHECK(result.kind == XHD_READ_OK && result.min[0] == INFINITY);
}

TEST(ply_vertices_scaled_las_records) {
  // LAS-like records of 20 bytes (int32 X, Y, Z, then other fields), scaled and offset in double: each value
  // is the product, rounded, then the sum, never a fused multiply-add; a scale without double output, or a
  // zero or non-finite scale, is refused.
  std::string body;
  std::vector<double> expected;
  const double scale[3] = {0.001, 0.01, 0.00025}, add[3] = {512000.0, 4200000.5, -12.75};
  for (int i = 0; i < 90; ++i) {
    const int32_t raw[3] = {i * 7919 - 300000, -i * 104729, i * 31 + 5};
    for (int k = 0; k < 3; ++k) {
      append<int32_t>(body, raw[k]);
      volatile double product = double(raw[k]) * scale[k];  // rounded on its own, as the reader must
      expected.push_back(product + add[k]);
    }
    append<uint32_t>(body, 0xabcdef01u);
    append<uint32_t>(body, 0);
  }
  const xhd_test::TempFile file(body);
  xhd_ply_vertex_layout l = layout_of(0, 90, 20, {0, 4, 8}, {XHD_INT32, XHD_INT32, XHD_INT32}, XHD_FLOAT64);
  for (int k = 0; k < 3; ++k) l.scale[k] = scale[k], l.add[k] = add[k];
  l.piece_bytes = 20 * 11;
  l.threads = 2;
  std::vector<double> got(3 * 90);
  xhd_read_result result{};
  CHECK_EQ(xhd_read_ply_vertices(file.path(), &l, got.data(), &result), int32_t(XHD_OK));
  CHECK_EQ(result.kind, XHD_READ_OK);
  CHECK(got == expected);
  CHECK_EQ(result.min[1], expected[3 * 89 + 1]);
  l.output = XHD_FLOAT32;
  CHECK_EQ(xhd_read_ply_vertices(file.path(), &l, got.data(), &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  l.output = XHD_FLOAT64;
  l.scale[1] = 0;
  CHECK_EQ(xhd_read_ply_vertices(file.path(), &l, got.data(), &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  l.scale[1] = INFINITY;
  CHECK_EQ(xhd_read_ply_vertices(file.path(), &l, got.data(), &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  // A huge scale takes a value past 1e15: the record is reported as for any file.
  l.scale[1] = 1e12;
  CHECK_EQ(xhd_read_ply_vertices(file.path(), &l, got.data(), &result), int32_t(XHD_OK));
  CHECK_EQ(result.kind, XHD_READ_BAD_VALUE);
  CHECK_EQ(result.record, uint64_t(1));  // record 0 holds y = 0; record 1 -104729 * 1e12, beyond -1e15
}

TEST(ply_vertices_bad_files) {
  std::string bytes;
  for (int i = 0; i < 100; ++i)
    for (int k = 0; k < 3; ++k) append<double>(bytes, i == 37 && k == 1 ? NAN : i == 61 ? 2e15 : i + k);
  const xhd_test::TempFile file(bytes);
  std::vector<double> xyz(3 * 101);
  xhd_read_result result{};
  xhd_ply_vertex_layout l = layout_of(0, 100, 24, {0, 8, 16}, {XHD_FLOAT64, XHD_FLOAT64, XHD_FLOAT64}, XHD_FLOAT64);
  l.piece_bytes = 24 * 9;
  // The first bad record in the file is reported, whichever thread met it first.
  CHECK_EQ(xhd_read_ply_vertices(file.path(), &l, xyz.data(), &result), int32_t(XHD_OK));
  CHECK_EQ(result.kind, XHD_READ_BAD_VALUE);
  CHECK_EQ(result.record, uint64_t(37));
  CHECK_EQ(result.byte, uint64_t(37 * 24));
  CHECK(std::isnan(result.value));
  // Past the end: the file ends inside record 100 (here, before it starts).
  const xhd_test::TempFile short_file(bytes.substr(0, 24 * 30 + 10));
  l.count = 31;
  CHECK_EQ(xhd_read_ply_vertices(short_file.path(), &l, xyz.data(), &result), int32_t(XHD_OK));
  CHECK_EQ(result.kind, XHD_READ_TRUNCATED);
  CHECK_EQ(result.record, uint64_t(30));
  CHECK_EQ(result.byte, uint64_t(24 * 30 + 10));
  // A file that is not there.
  CHECK_EQ(xhd_read_ply_vertices("/nonexistent/xhd.ply", &l, xyz.data(), &result), int32_t(XHD_OK));
  CHECK_EQ(result.kind, XHD_READ_SYSTEM_ERROR);
  CHECK_EQ(result.error_number, ENOENT);
  // Layouts that do not fit their records are refused before anything is read.
  xhd_ply_vertex_layout bad = l;
  bad.offset[2] = 20;  // 20 + 8 > 24
  CHECK_EQ(xhd_read_ply_vertices(file.path(), &bad, xyz.data(), &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  bad = l;
  bad.type[0] = 8;
  CHECK_EQ(xhd_read_ply_vertices(file.path(), &bad, xyz.data(), &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  bad = l;
  bad.count = UINT64_MAX / 8;
  CHECK_EQ(xhd_read_ply_vertices(file.path(), &bad, xyz.data(), &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  bad = l;
  bad.output = XHD_FLOAT32;  // float output of float64 coordinates
  CHECK_EQ(xhd_read_ply_vertices(file.path(), &bad, xyz.data(), &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  bad = l;
  bad.stride = 0;
  CHECK_EQ(xhd_read_ply_vertices(file.path(), &bad, xyz.data(), &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));
}

TEST(read_file_ranges) {
  std::string bytes(10000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = char(i * 7);
  const xhd_test::TempFile file(bytes);
  std::vector<uint8_t> buffer(20000, 0xff);
  xhd_file_read result{};
  CHECK_EQ(xhd_read_file(file.path(), 100, 5000, 3, buffer.data(), &result), int32_t(XHD_OK));
  CHECK_EQ(result.bytes, uint64_t(5000));
  CHECK(std::memcmp(buffer.data(), bytes.data() + 100, 5000) == 0);
  // Asked past the end: what there is.
  CHECK_EQ(xhd_read_file(file.path(), 9000, 20000, 2, buffer.data(), &result), int32_t(XHD_OK));
  CHECK_EQ(result.bytes, uint64_t(1000));
  CHECK_EQ(xhd_read_file("/nonexistent/xhd.bin", 0, 10, 1, buffer.data(), &result), int32_t(XHD_OK));
  CHECK_EQ(result.error_number, ENOENT);
}
