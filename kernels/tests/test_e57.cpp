// The native E57 section reader (cpu/e57_reader.cpp) under the sanitizers: a section of data packets
// written here (fields of 13, 37 and 2 bits and a double, values straddling bytes and packets, an index
// packet between data packets), paged with CRC-32C, read on one thread and on several with windows from
// smaller than a packet to the whole section, against the values written; then a bad CRC, a lying packet
// and a file cut short, which must each give XHD_E57_PROBLEM and no more.
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"
#include "temp_file.h"
#include "xhd.h"

namespace {

uint32_t crc32c_bitwise(const uint8_t* p, size_t n) {
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
  }
  return ~crc;
}

// Logical bytes as a file of 1024-byte pages, each ending in the big-endian CRC-32C of its 1020 data bytes.
std::vector<uint8_t> paged(const std::vector<uint8_t>& logical) {
  const size_t pages = (logical.size() + 1019) / 1020;
  std::vector<uint8_t> file(pages * 1024, 0);
  for (size_t p = 0; p < pages; ++p) {
    const size_t n = std::min<size_t>(1020, logical.size() - p * 1020);
    std::memcpy(file.data() + p * 1024, logical.data() + p * 1020, n);
    const uint32_t crc = crc32c_bitwise(file.data() + p * 1024, 1020);
    for (int b = 0; b < 4; ++b) file[p * 1024 + 1020 + b] = uint8_t(crc >> (24 - 8 * b));
  }
  return file;
}

// A field's values packed from bit 0, little-endian.
struct BitWriter {
  std::vector<uint8_t> bytes;
  uint64_t bits = 0;
  void put(uint64_t value, int width) {
    for (int i = 0; i < width; ++i, ++bits) {
      if (bits % 8 == 0) bytes.push_back(0);
      if ((value >> i) & 1) bytes.back() |= uint8_t(1 << (bits % 8));
    }
  }
};

constexpr int kRecords = 3000;
constexpr uint64_t kDataStart = 40;  // logical bytes before the first packet (a section header's room)

struct Section {
  std::vector<uint8_t> logical;
  std::vector<double> x, y, z;
  std::vector<int> state;
  uint64_t end;
};

// Four fields: x Integer of 13 bits from -100, y Float double, z ScaledInteger of 37 bits from -2^36 (scale
// 0.25, offset 1000), the invalid state of 2 bits. Each field's stream is cut into packets at its own pace,
// so a record's values lie in different packets.
Section make_section() {
  Section s;
  BitWriter streams[4];
  for (int i = 0; i < kRecords; ++i) {
    const uint64_t rx = uint64_t(i * 2654435761u) % 8192, rz = (uint64_t(i) * 0x9e3779b97f4aULL) % (uint64_t(1) << 37);
    const double y = 4200000.0 + i / 1024.0;
    s.state.push_back(i % 7 == 3 ? 1 : i % 11 == 5 ? 2 : 0);
    s.x.push_back(double(int64_t(rx) - 100));
    s.y.push_back(y);
    s.z.push_back(double(int64_t(rz) - (int64_t(1) << 36)) * 0.25 + 1000);
    streams[0].put(rx, 13);
    uint64_t raw;
    std::memcpy(&raw, &y, 8);
    streams[1].put(raw, 64);
    streams[2].put(rz, 37);
    streams[3].put(uint64_t(s.state.back()), 2);
  }
  s.logical.assign(kDataStart, 0xab);
  size_t taken[4] = {0, 0, 0, 0};
  for (int packet = 0;; ++packet) {
    bool more = false;
    for (int f = 0; f < 4; ++f) more = more || taken[f] < streams[f].bytes.size();
    if (!more) break;
    if (packet == 2) {  // an index packet (16 bytes), which readers step over
      const uint8_t index[16] = {0, 0, 15, 0};
      s.logical.insert(s.logical.end(), index, index + 16);
    }
    const size_t pace[4] = {97, 1211, 300, 40};  // bytes of each stream a packet takes
    size_t lengths[4];
    for (int f = 0; f < 4; ++f) lengths[f] = std::min(pace[f], streams[f].bytes.size() - taken[f]);
    const size_t length = 6 + 8 + lengths[0] + lengths[1] + lengths[2] + lengths[3];
    const size_t at = s.logical.size();
    s.logical.resize(at + length, 0);
    uint8_t* p = s.logical.data() + at;
    p[0] = 1;
    p[2] = uint8_t((length - 1) & 0xff);
    p[3] = uint8_t((length - 1) >> 8);
    p[4] = 4;
    size_t o = 14;
    for (int f = 0; f < 4; ++f) {
      p[6 + 2 * f] = uint8_t(lengths[f] & 0xff);
      p[7 + 2 * f] = uint8_t(lengths[f] >> 8);
      std::memcpy(p + o, streams[f].bytes.data() + taken[f], lengths[f]);
      o += lengths[f];
      taken[f] += lengths[f];
    }
  }
  s.end = s.logical.size();
  return s;
}

xhd_e57_job job_for(const Section& s) {
  xhd_e57_job job{};
  job.data_start = kDataStart;
  job.section_end = s.end;
  job.records = kRecords;
  const int32_t kinds[4] = {XHD_E57_INTEGER, XHD_E57_FLOAT64, XHD_E57_SCALED, XHD_E57_INTEGER};
  const int32_t bits[4] = {13, 64, 37, 2};
  const int64_t minimums[4] = {-100, 0, -(int64_t(1) << 36), 0};
  for (int k = 0; k < 4; ++k) {
    job.kind[k] = kinds[k], job.bits[k] = bits[k], job.minimum[k] = minimums[k];
    job.stream[k] = k;
    job.scale[k] = k == 2 ? 0.25 : 1;
    job.offset[k] = k == 2 ? 1000 : 0;
  }
  job.field_count = 4;
  return job;
}

}  // namespace

TEST(e57_section_good) {
  const Section s = make_section();
  const xhd_test::TempFile file(paged(s.logical));
  std::vector<double> want;
  for (int i = 0; i < kRecords; ++i)
    if (s.state[i] == 0) want.insert(want.end(), {s.x[i] + 10, s.y[i] - 20, s.z[i] + 0.5});  // translated below
  const double pose[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 10, -20, 0.5};
  for (int threads : {1, 3}) {
    for (uint64_t window : {uint64_t(0), uint64_t(500), uint64_t(5000), uint64_t(1) << 20}) {
      xhd_e57_job job = job_for(s);
      job.threads = threads;
      job.piece_bytes = window;
      job.pose = pose;
      std::vector<double> xyz(3 * kRecords, -1);
      xhd_e57_result result{};
      CHECK_EQ(xhd_read_e57(file.path(), &job, xyz.data(), &result), int32_t(XHD_OK));
      CHECK_EQ(result.kind, XHD_E57_OK);
      CHECK_EQ(result.kept, uint64_t(want.size() / 3));
      CHECK_EQ(result.kept + result.invalid, uint64_t(kRecords));
      CHECK(std::memcmp(xyz.data(), want.data(), want.size() * sizeof(double)) == 0);
      double lo = INFINITY;
      for (size_t i = 2; i < want.size(); i += 3) lo = std::min(lo, want[i]);
      CHECK_EQ(result.min[2], lo);
      // Spherical: the values come back as stored (no pose), the invalid records skipped the same way.
      job.spherical = 1;
      CHECK_EQ(xhd_read_e57(file.path(), &job, xyz.data(), &result), int32_t(XHD_OK));
      CHECK_EQ(result.kind, XHD_E57_OK);
      CHECK_EQ(xyz[0], want[0] - 10);
    }
  }
}

TEST(e57_section_problems) {
  const Section s = make_section();
  std::vector<uint8_t> bytes = paged(s.logical);
  std::vector<double> xyz(3 * kRecords);
  xhd_e57_result result{};
  const xhd_e57_job job = job_for(s);
  {  // one data byte changed, its page's CRC not
    std::vector<uint8_t> bad = bytes;
    bad[5 * 1024 + 17] ^= 4;
    const xhd_test::TempFile file(bad);
    CHECK_EQ(xhd_read_e57(file.path(), &job, xyz.data(), &result), int32_t(XHD_OK));
    CHECK_EQ(result.kind, XHD_E57_PROBLEM);
  }
  {  // the file cut short
    const xhd_test::TempFile file(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 4 * 1024));
    CHECK_EQ(xhd_read_e57(file.path(), &job, xyz.data(), &result), int32_t(XHD_OK));
    CHECK_EQ(result.kind, XHD_E57_PROBLEM);
  }
  {  // the first packet claims 5 bytestreams
    std::vector<uint8_t> logical = s.logical;
    logical[kDataStart + 4] = 5;
    const xhd_test::TempFile file(paged(logical));
    CHECK_EQ(xhd_read_e57(file.path(), &job, xyz.data(), &result), int32_t(XHD_OK));
    CHECK_EQ(result.kind, XHD_E57_PROBLEM);
  }
  {  // more records than the packets hold: the section ends first
    const xhd_test::TempFile file(bytes);
    xhd_e57_job more = job;
    more.records = kRecords + 1;
    std::vector<double> room(3 * (kRecords + 1));
    CHECK_EQ(xhd_read_e57(file.path(), &more, room.data(), &result), int32_t(XHD_OK));
    CHECK_EQ(result.kind, XHD_E57_PROBLEM);
    xhd_e57_job bad = job;
    bad.stream[1] = 0;  // two slots on one stream
    CHECK_EQ(xhd_read_e57(file.path(), &bad, xyz.data(), &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));
    bad = job;
    bad.bits[1] = 32;  // a double of 32 bits
    CHECK_EQ(xhd_read_e57(file.path(), &bad, xyz.data(), &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  }
  CHECK_EQ(xhd_read_e57("/nonexistent/xhd.e57", &job, xyz.data(), &result), int32_t(XHD_OK));
  CHECK_EQ(result.kind, XHD_E57_SYSTEM_ERROR);
  CHECK_EQ(result.error_number, ENOENT);
}
