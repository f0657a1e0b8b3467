// xhd_read_triangle_records (cpu/ply_triangle_records.cpp): the valid prefix of plain 13-byte triangle records,
// exact wherever the first bad record lies (the first record, inside a block, either side of a block boundary,
// the last) and whichever kind it is (an index equal to the vertex count, a negative int32, a count byte other
// than 3), with several threads racing over blocks and a later bad record in an earlier block's way. Records
// are handed over in a heap block of exactly their size, so a read past the last is caught by AddressSanitizer.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "check.h"
#include "random_points.h"
#include "xhd.h"

namespace {

constexpr uint64_t kRecord = 13;
// The library's block (kRecordsPerBlock): the boundaries the cases below sit on.
constexpr uint64_t kBlock = uint64_t(1) << 16;

void put_le32(uint8_t* p, uint32_t v) {
  for (int k = 0; k < 4; ++k) p[k] = uint8_t(v >> (8 * k));
}

// `count` plain records whose indices are below vertex_count, and those indices.
struct Records {
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> indices;
};

Records plain_records(uint64_t count, uint32_t vertex_count, uint64_t seed) {
  xhd_test::Random rng(seed);
  Records r{std::vector<uint8_t>(count * kRecord), std::vector<uint32_t>(3 * count)};
  for (uint64_t i = 0; i < count; ++i) {
    r.bytes[i * kRecord] = 3;
    for (int k = 0; k < 3; ++k) {
      r.indices[3 * i + k] = uint32_t(rng.below(vertex_count));
      put_le32(&r.bytes[i * kRecord + 1 + 4 * k], r.indices[3 * i + k]);
    }
  }
  return r;
}

struct Read {
  int32_t status;
  uint64_t read;
  std::vector<uint32_t> triangles;
};

Read read_records(const std::vector<uint8_t>& bytes, uint32_t vertex_count, int threads) {
  const uint64_t count = bytes.size() / kRecord;
  std::unique_ptr<uint8_t[]> exact(new uint8_t[bytes.size() == 0 ? 1 : bytes.size()]);
  std::memcpy(exact.get(), bytes.data(), bytes.size());
  Read out{0, ~uint64_t(0), std::vector<uint32_t>(3 * count + 1, 0xdeadbeef)};
  out.status = xhd_read_triangle_records(exact.get(), count, vertex_count, threads, out.triangles.data(), &out.read);
  return out;
}

// The read stops exactly at `expected`, with every record before it written as the file holds it.
void check_prefix(const Records& records, const std::vector<uint8_t>& bytes, uint32_t vertex_count,
                  uint64_t expected) {
  for (int threads : {1, 2, 4}) {
    const Read got = read_records(bytes, vertex_count, threads);
    CHECK_EQ(got.status, int32_t(XHD_OK));
    CHECK_EQ(got.read, expected);
    CHECK(std::memcmp(got.triangles.data(), records.indices.data(), 3 * expected * sizeof(uint32_t)) == 0);
  }
}

}  // namespace

TEST(ply_triangle_records_all_valid) {
  const uint32_t vertices = 5000;
  const Records r = plain_records(3 * kBlock + 17, vertices, 1);
  check_prefix(r, r.bytes, vertices, 3 * kBlock + 17);
  // Indices up to vertex_count - 1 are in range.
  Records top = plain_records(10, vertices, 2);
  put_le32(&top.bytes[4 * kRecord + 5], vertices - 1);
  top.indices[3 * 4 + 1] = vertices - 1;
  check_prefix(top, top.bytes, vertices, 10);
}

TEST(ply_triangle_records_first_bad_record) {
  const uint32_t vertices = 5000;
  const uint64_t count = 3 * kBlock + 17;
  const Records r = plain_records(count, vertices, 3);
  // Where: the first record, inside the first and second blocks, either side of a block boundary, the last.
  const uint64_t places[] = {0, 1, 1234, kBlock - 1, kBlock, kBlock + 1, kBlock + 777, 2 * kBlock, count - 1};
  for (uint64_t at : places) {
    // What: an index equal to the vertex count, one far beyond it, negative int32s (read unsigned, 2^31 and
    // more), a count byte of 0, 2, 4 or 255; each in a different corner.
    for (int kind = 0; kind < 8; ++kind) {
      std::vector<uint8_t> bytes = r.bytes;
      uint8_t* record = &bytes[at * kRecord];
      switch (kind) {
        case 0: put_le32(record + 1, vertices); break;
        case 1: put_le32(record + 5, 0x7fffffff); break;
        case 2: put_le32(record + 9, uint32_t(-1)); break;
        case 3: put_le32(record + 1, uint32_t(INT32_MIN)); break;
        case 4: record[0] = 0; break;
        case 5: record[0] = 2; break;
        case 6: record[0] = 4; break;
        case 7: record[0] = 255; break;
      }
      check_prefix(r, bytes, vertices, at);
    }
  }
}

TEST(ply_triangle_records_earliest_of_several_bad) {
  const uint32_t vertices = 100;
  const uint64_t count = 5 * kBlock;
  const Records r = plain_records(count, vertices, 4);
  // Bad records in every block, the earliest in the middle one: blocks after it may stop first.
  std::vector<uint8_t> bytes = r.bytes;
  for (uint64_t at : {4 * kBlock + 3, 3 * kBlock + 9, 2 * kBlock + 500, 2 * kBlock + 501}) bytes[at * kRecord] = 4;
  check_prefix(r, bytes, vertices, 2 * kBlock + 500);
  // Every record bad: nothing read.
  check_prefix(r, r.bytes, 0, 0);
}

TEST(ply_triangle_records_edges) {
  // Zero records: nothing read, and no records or triangles needed.
  uint64_t read = 99;
  CHECK_EQ(xhd_read_triangle_records(nullptr, 0, 10, 2, nullptr, &read), int32_t(XHD_OK));
  CHECK_EQ(read, uint64_t(0));
  // A single record, good and bad.
  const Records one = plain_records(1, 7, 5);
  check_prefix(one, one.bytes, 7, 1);
  std::vector<uint8_t> bad = one.bytes;
  bad[0] = 2;
  check_prefix(one, bad, 7, 0);
  // Refused: null pointers, negative threads.
  uint32_t triangles[3];
  const uint8_t* records = one.bytes.data();
  const int32_t invalid = XHD_ERROR_INVALID_ARGUMENT;
  CHECK_EQ(xhd_read_triangle_records(records, 1, 7, 1, triangles, nullptr), invalid);
  CHECK_EQ(xhd_read_triangle_records(nullptr, 1, 7, 1, triangles, &read), invalid);
  CHECK_EQ(xhd_read_triangle_records(records, 1, 7, 1, nullptr, &read), invalid);
  CHECK_EQ(xhd_read_triangle_records(records, 1, 7, -1, triangles, &read), invalid);
}
