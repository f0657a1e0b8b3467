// The layered LAZ coders (cpu/laz_layered_encode.h through xhd_compress_laz_chunk, laz_layered_decode.h
// through xhd_read_laz) under the sanitizers: records of formats 6 to 8 encoded and decoded back on one
// thread and several, with the class and returns handed back; and damaged chunks (bytes overwritten, layer
// sizes that lie, chunks cut short), which must give a status or the same values on any thread count,
// never a read outside a buffer or a hang. laz-perf checks the coders' bits in test/laz-layered.test.ts.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../cpu/laz_item_common.h"
#include "check.h"
#include "temp_file.h"
#include "xhd.h"

namespace {

// Format 8 with 3 extra bytes: POINT14, RGBNIR14, BYTE14.
const std::vector<uint16_t> kItems = {10, 30, 3, 12, 8, 3, 14, 3, 3};
constexpr uint32_t kLength = 41;

// Scan-like records (runs of a field unchanged, pulses of returns, channels in turns) with `noise` of them
// all random bytes.
std::vector<uint8_t> make_records(uint64_t count, uint32_t seed, uint32_t noise_percent) {
  std::vector<uint8_t> out(count * kLength);
  uint32_t s = seed;
  int32_t x = 1000000, y = 2000000, z = 5000;
  double t = 1e8;
  uint32_t n = 1, r = 1, channel = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t* p = out.data() + i * kLength;
    if (xhd_test::xorshift32(s) % 100 < noise_percent) {
      for (uint32_t b = 0; b < kLength; ++b) p[b] = static_cast<uint8_t>(xhd_test::xorshift32(s));
      continue;
    }
    if (r >= n) {
      n = 1 + xhd_test::xorshift32(s) % 5;
      r = 1;
      t += xhd_test::xorshift32(s) % 50 == 0 ? 1e6 : 1e-5;
      if (xhd_test::xorshift32(s) % 30 == 0) channel = xhd_test::xorshift32(s) % 4;
    } else {
      ++r;
    }
    x += static_cast<int32_t>(xhd_test::xorshift32(s) % 200) - 60;
    y += static_cast<int32_t>(xhd_test::xorshift32(s) % 30) - 15;
    z += static_cast<int32_t>(xhd_test::xorshift32(s) % 400) - 200;
    xhd::laz::store<int32_t>(p, x);
    xhd::laz::store<int32_t>(p + 4, y);
    xhd::laz::store<int32_t>(p + 8, z);
    xhd::laz::store<uint16_t>(p + 12, static_cast<uint16_t>(xhd_test::xorshift32(s) % 3000));
    p[14] = static_cast<uint8_t>(r | (n << 4));
    p[15] = static_cast<uint8_t>((channel << 4) | (xhd_test::xorshift32(s) % 20 == 0 ? 0x41 : 0));
    p[16] = static_cast<uint8_t>(xhd_test::xorshift32(s) % 10 == 0 ? xhd_test::xorshift32(s) % 20 : 2);
    p[17] = static_cast<uint8_t>(xhd_test::xorshift32(s) % 50 == 0 ? xhd_test::xorshift32(s) : 0);
    xhd::laz::store<int16_t>(p + 18, static_cast<int16_t>(static_cast<int32_t>(xhd_test::xorshift32(s) % 5) - 2));
    xhd::laz::store<uint16_t>(p + 20, static_cast<uint16_t>(7 + (xhd_test::xorshift32(s) % 100 == 0)));
    xhd::laz::store<double>(p + 22, t);
    for (uint32_t b = 30; b < kLength; ++b)
      p[b] = static_cast<uint8_t>(xhd_test::xorshift32(s) % 4 == 0 ? xhd_test::xorshift32(s) : b);
  }
  return out;
}

struct Body {
  std::vector<uint8_t> file;
  std::vector<uint64_t> chunks;  // offset, bytes, points, first point
  uint64_t points = 0;
};

Body encode(const std::vector<uint8_t>& records, uint64_t chunk_size) {
  Body body;
  body.file.assign(32, 0xab);
  const uint64_t count = records.size() / kLength;
  for (uint64_t first = 0; first < count; first += chunk_size) {
    const uint64_t n = std::min(chunk_size, count - first);
    uint64_t written = 0;
    std::vector<uint8_t> chunk(1);
    // Too little room: the call says how much it needs and writes nothing.
    CHECK_EQ(xhd_compress_laz_chunk(records.data() + first * kLength, n, kItems.data(), 3, kLength, chunk.data(), 1,
                                    &written),
             int32_t(XHD_ERROR_INVALID_ARGUMENT));
    chunk.resize(written);
    CHECK_EQ(xhd_compress_laz_chunk(records.data() + first * kLength, n, kItems.data(), 3, kLength, chunk.data(),
                                    chunk.size(), &written),
             int32_t(XHD_OK));
    body.chunks.insert(body.chunks.end(), {body.file.size(), chunk.size(), n, first});
    body.file.insert(body.file.end(), chunk.begin(), chunk.end());
  }
  body.points = count;
  return body;
}

struct Decoded {
  int32_t status;
  xhd_laz_result result;
  std::vector<uint8_t> records, attributes;
};

Decoded decode(const char* path, const Body& body, int threads) {
  xhd_laz_job job{};
  job.chunks = body.chunks.data();
  job.chunk_count = body.chunks.size() / 4;
  job.point_count = body.points;
  job.items = kItems.data();
  job.item_count = 3;
  job.record_length = kLength;
  for (int k = 0; k < 3; ++k) job.scale[k] = 0.01;
  job.threads = threads;
  Decoded d{};
  d.records.assign(body.points * kLength + 1, 0);
  d.attributes.assign(2 * body.points + 1, 0);
  std::vector<double> positions(3 * body.points + 1), chunk_raw(6 * job.chunk_count + 1);
  d.status =
      xhd_read_laz(path, &job, positions.data(), chunk_raw.data(), d.records.data(), d.attributes.data(), &d.result);
  d.records.resize(body.points * kLength);
  d.attributes.resize(2 * body.points);
  return d;
}

}  // namespace

TEST(laz_layered_round_trip) {
  for (uint32_t noise : {0u, 3u, 100u}) {
    const std::vector<uint8_t> records = make_records(5000, 11 + noise, noise);
    const Body body = encode(records, 1200);
    const xhd_test::TempFile file(body.file);
    for (int threads : {1, 3}) {
      const Decoded d = decode(file.path(), body, threads);
      CHECK_EQ(d.status, int32_t(XHD_OK));
      CHECK_EQ(d.result.kind, int32_t(XHD_LAZ_OK));
      CHECK_EQ(d.result.kept, uint64_t(5000));
      CHECK(d.records == records);
      bool same = true;
      for (uint64_t i = 0; i < 5000; ++i) {
        const uint8_t* p = records.data() + i * kLength;
        same = same && d.attributes[2 * i] == p[16] && d.attributes[2 * i + 1] == p[14];
      }
      CHECK(same);
    }
  }
  // Items other than formats 6-8's are refused by the encoder.
  const std::vector<uint16_t> waves = {10, 30, 3, 13, 29, 3};
  std::vector<uint8_t> record(59, 0), out(4096);
  uint64_t written = 0;
  CHECK_EQ(xhd_compress_laz_chunk(record.data(), 1, waves.data(), 2, 59, out.data(), out.size(), &written),
           int32_t(XHD_ERROR_INVALID_ARGUMENT));
}

TEST(laz_layered_damaged) {
  const std::vector<uint8_t> records = make_records(4000, 5, 1);
  const Body body = encode(records, 1000);
  uint32_t s = 99;
  for (int trial = 0; trial < 80; ++trial) {
    std::vector<uint8_t> damaged = body.file;
    if (trial % 4 == 3) {
      // The file cut short inside a chunk.
      damaged.resize(32 + xhd_test::xorshift32(s) % (damaged.size() - 32));
    } else {
      const uint32_t run = 1 + xhd_test::xorshift32(s) % 32;
      const uint64_t at = 32 + xhd_test::xorshift32(s) % (damaged.size() - 32 - run);
      for (uint32_t i = 0; i < run; ++i)
        damaged[at + i] = static_cast<uint8_t>(trial % 2 == 0 ? xhd_test::xorshift32(s) : 0xff);
    }
    const xhd_test::TempFile file(damaged);
    const Decoded one = decode(file.path(), body, 1);
    const Decoded three = decode(file.path(), body, 3);
    CHECK_EQ(one.status, int32_t(XHD_OK));
    CHECK_EQ(one.result.kind, three.result.kind);
    CHECK_EQ(one.result.chunk, three.result.chunk);
    if (trial % 4 == 3) CHECK(one.result.kind != XHD_LAZ_OK);
    if (one.result.kind == XHD_LAZ_OK) CHECK(one.records == three.records);
  }
}
