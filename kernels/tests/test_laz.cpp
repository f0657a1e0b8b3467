// The native LAZ decoder (cpu/laz_reader.cpp) and encoder (laz_writer.cpp, laz_chunk_encode.h) under the
// sanitizers: records encoded and decoded back, on one thread and several; files written by xhd_write_laz
// read back through their own chunk table; and damaged input (a file cut short, chunks cut short, bytes
// overwritten anywhere, chunk lists that lie), which must give a status or deterministic values, never a
// read outside a buffer or a hang.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../cpu/laz_chunk_encode.h"
#include "../cpu/laz_decoder.h"
#include "check.h"
#include "temp_file.h"
#include "xhd.h"

namespace {

using xhd::laz::Item;

// Format 3 records with 8 extra bytes: a scan line's coordinates, returns, classes, times, colours.
const std::vector<Item> kItems = {{6, 20, 2}, {7, 8, 2}, {8, 6, 2}, {0, 8, 2}};
constexpr uint32_t kLength = 42;

std::vector<uint8_t> make_records(uint64_t count, uint32_t seed) {
  std::vector<uint8_t> out(count * kLength);
  uint32_t s = seed;
  int32_t x = 1000000, y = 2000000, z = 5000;
  double t = 1234.5;
  uint32_t n = 1, k = 1;
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t* r = out.data() + i * kLength;
    x += static_cast<int32_t>(xhd_test::xorshift32(s) % 200) - 60;
    y += static_cast<int32_t>(xhd_test::xorshift32(s) % 30) - 15;
    z = xhd_test::xorshift32(s) % 100 == 0 ? static_cast<int32_t>(xhd_test::xorshift32(s))
                                           : z + static_cast<int32_t>(xhd_test::xorshift32(s) % 400) - 200;
    if (k > n) {
      n = 1 + xhd_test::xorshift32(s) % 5;
      k = 1;
    }
    xhd::laz::store<int32_t>(r, x);
    xhd::laz::store<int32_t>(r + 4, y);
    xhd::laz::store<int32_t>(r + 8, z);
    xhd::laz::store<uint16_t>(r + 12, static_cast<uint16_t>(xhd_test::xorshift32(s)));
    r[14] = static_cast<uint8_t>(k++ | (n << 3) | (xhd_test::xorshift32(s) % 8 == 0 ? 0x40 : 0));
    r[15] = static_cast<uint8_t>(xhd_test::xorshift32(s) % 7);
    r[16] = static_cast<uint8_t>(xhd_test::xorshift32(s) % 3);
    r[17] = static_cast<uint8_t>(xhd_test::xorshift32(s) % 2);
    xhd::laz::store<uint16_t>(r + 18, static_cast<uint16_t>(xhd_test::xorshift32(s) % 3));
    const uint32_t step = xhd_test::xorshift32(s) % 1000;
    t = step < 100 ? t : step < 120 ? t - 0.25 : step < 121 ? t + 1e9 : t + 0.0001;
    xhd::laz::store<double>(r + 20, t);
    const uint16_t red = static_cast<uint16_t>(xhd_test::xorshift32(s));
    const bool grey = xhd_test::xorshift32(s) % 3 == 0;
    xhd::laz::store<uint16_t>(r + 28, red);
    xhd::laz::store<uint16_t>(r + 30, grey ? red : static_cast<uint16_t>(xhd_test::xorshift32(s)));
    xhd::laz::store<uint16_t>(r + 32, grey ? red : static_cast<uint16_t>(red + xhd_test::xorshift32(s) % 100));
    xhd::laz::store<double>(r + 34, (xhd_test::xorshift32(s) % 1000) / 7.0);
  }
  return out;
}

// A file of `prefix` bytes and then the chunks, and the chunk list xhd_read_laz takes.
struct LazBody {
  std::vector<uint8_t> file;
  std::vector<uint64_t> chunks;  // offset, bytes, points, first point
  uint64_t points = 0;
};

LazBody encode_body(const std::vector<uint8_t>& records, uint64_t chunk_size, uint64_t prefix) {
  LazBody body;
  body.file.assign(prefix, 0xab);
  const uint64_t count = records.size() / kLength;
  for (uint64_t first = 0; first < count; first += chunk_size) {
    const uint64_t n = std::min(chunk_size, count - first);
    std::vector<uint8_t> chunk;
    xhd::laz::encode_chunk(records.data() + first * kLength, n, kItems, kLength, chunk);
    body.chunks.insert(body.chunks.end(), {body.file.size(), chunk.size(), n, first});
    body.file.insert(body.file.end(), chunk.begin(), chunk.end());
  }
  body.points = count;
  return body;
}

struct Decoded {
  int32_t status;
  xhd_laz_result result;
  std::vector<uint8_t> records;
  std::vector<double> positions;
};

Decoded decode(const char* path, const std::vector<uint64_t>& chunks, uint64_t points, int threads,
               const std::vector<Item>& items = kItems, uint32_t length = kLength, uint64_t piece_bytes = 0) {
  std::vector<uint16_t> item_fields;
  for (const Item& i : items) item_fields.insert(item_fields.end(), {i.type, i.size, i.version});
  xhd_laz_job job{};
  job.chunks = chunks.data();
  job.chunk_count = chunks.size() / 4;
  job.point_count = points;
  job.items = item_fields.data();
  job.item_count = static_cast<uint32_t>(items.size());
  job.record_length = length;
  for (int k = 0; k < 3; ++k) {
    job.scale[k] = 0.01;
    job.offset[k] = 1000;
  }
  job.threads = threads;
  job.piece_bytes = piece_bytes;
  Decoded d{};
  d.records.assign(points * length + 1, 0);
  d.positions.assign(3 * points + 1, 0);
  std::vector<double> chunk_raw(6 * job.chunk_count + 1);
  d.status = xhd_read_laz(path, &job, d.positions.data(), chunk_raw.data(), d.records.data(), nullptr, &d.result);
  d.records.resize(points * length);
  return d;
}

}  // namespace

TEST(laz_round_trip) {
  const std::vector<uint8_t> records = make_records(7001, 11);
  for (uint64_t chunk_size : {uint64_t(1), uint64_t(1000), uint64_t(7001)}) {
    const uint64_t points = chunk_size == 1 ? 40 : 7001;
    const std::vector<uint8_t> some(records.begin(), records.begin() + points * kLength);
    const LazBody body = encode_body(some, chunk_size, 100);
    const xhd_test::TempFile file(body.file);
    for (int threads : {1, 3}) {
      // Chunks read whole, and a few bytes at a time (windows of one record, and of 50 bytes: below one).
      for (uint64_t piece : {uint64_t(0), uint64_t(kLength), uint64_t(50)}) {
        const Decoded d = decode(file.path(), body.chunks, points, threads, kItems, kLength, piece);
        CHECK_EQ(d.status, int32_t(XHD_OK));
        CHECK_EQ(d.result.kind, XHD_LAZ_OK);
        CHECK_EQ(d.result.kept, points);
        CHECK(d.records == some);
        const int32_t X = xhd::laz::load<int32_t>(some.data() + kLength * (points - 1));
        CHECK_EQ(d.positions[3 * (points - 1)], X * 0.01 + 1000);
      }
    }
  }
}

TEST(laz_bad_input) {
  const std::vector<uint8_t> records = make_records(3000, 5);
  const LazBody body = encode_body(records, 1000, 64);
  {
    // The file cut inside its last chunk: the chunk runs past the file's end, which is named.
    std::vector<uint8_t> cut(body.file.begin(), body.file.end() - 10);
    const xhd_test::TempFile file(cut);
    for (uint64_t piece : {uint64_t(0), uint64_t(100)}) {
      const Decoded d = decode(file.path(), body.chunks, 3000, 2, kItems, kLength, piece);
      CHECK_EQ(d.result.kind, XHD_LAZ_TRUNCATED);
      CHECK_EQ(d.result.chunk, uint64_t(2));
      CHECK_EQ(d.result.byte, uint64_t(cut.size()));
    }
  }
  const xhd_test::TempFile file(body.file);
  {
    // A chunk said to be shorter than it is: its bytes run out before its points.
    std::vector<uint64_t> chunks = body.chunks;
    chunks[4 + 1] = 300;
    const Decoded d = decode(file.path(), chunks, 3000, 3);
    CHECK_EQ(d.result.kind, XHD_LAZ_SHORT_CHUNK);
    CHECK_EQ(d.result.chunk, uint64_t(1));
    CHECK_EQ(d.result.byte, chunks[4]);
    // Shorter than its first (raw) point.
    chunks[4 + 1] = 10;
    CHECK_EQ(decode(file.path(), chunks, 3000, 1).result.kind, XHD_LAZ_SHORT_CHUNK);
  }
  {
    // A chunk placed past the end of the file.
    std::vector<uint64_t> chunks = body.chunks;
    chunks[8] = body.file.size() + 1000;
    const Decoded d = decode(file.path(), chunks, 3000, 2);
    CHECK_EQ(d.result.kind, XHD_LAZ_TRUNCATED);
    CHECK_EQ(d.result.byte, uint64_t(body.file.size()));
  }
  {
    // Chunk lists that lie about the points are refused as arguments.
    std::vector<uint64_t> chunks = body.chunks;
    chunks[4 + 3] = 999;
    CHECK_EQ(decode(file.path(), chunks, 3000, 1).status, int32_t(XHD_ERROR_INVALID_ARGUMENT));
    CHECK_EQ(decode(file.path(), body.chunks, 2999, 1).status, int32_t(XHD_ERROR_INVALID_ARGUMENT));
    CHECK_EQ(decode(file.path(), body.chunks, 3001, 1).status, int32_t(XHD_ERROR_INVALID_ARGUMENT));
  }
  {
    // Items other than the version-2 ones of formats 0-3: nothing read, the caller decodes.
    std::vector<Item> items = kItems;
    items[1].version = 3;
    CHECK_EQ(decode(file.path(), body.chunks, 3000, 1, items).result.kind, XHD_LAZ_UNSUPPORTED);
    CHECK_EQ(decode(file.path(), body.chunks, 3000, 1, kItems, kLength + 1).result.kind, XHD_LAZ_UNSUPPORTED);
  }
  CHECK_EQ(decode("/nonexistent/xhd.laz", body.chunks, 3000, 1).result.kind, XHD_LAZ_SYSTEM_ERROR);
}

// Bytes overwritten anywhere in the chunks: LAZ has no checksum, so most damage decodes to wrong values
// (which the TypeScript checks against the header's bounds); what must hold is no crash, no hang, and the
// same outcome on one thread and on several.
TEST(laz_damaged_bytes) {
  const std::vector<uint8_t> records = make_records(4000, 9);
  const LazBody body = encode_body(records, 1000, 16);
  uint32_t s = 77;
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<uint8_t> damaged = body.file;
    const uint32_t run = 1 + xhd_test::xorshift32(s) % 64;
    const uint64_t at = 16 + xhd_test::xorshift32(s) % (damaged.size() - 16 - run);
    for (uint32_t i = 0; i < run; ++i)
      damaged[at + i] = static_cast<uint8_t>(trial % 2 == 0 ? xhd_test::xorshift32(s) : 0xff);
    const xhd_test::TempFile file(damaged);
    const Decoded one = decode(file.path(), body.chunks, 4000, 1);
    const Decoded three = decode(file.path(), body.chunks, 4000, 3);
    CHECK_EQ(one.status, int32_t(XHD_OK));
    CHECK_EQ(one.result.kind, three.result.kind);
    CHECK_EQ(one.result.chunk, three.result.chunk);
    if (one.result.kind == XHD_LAZ_OK) CHECK(one.records == three.records);
  }
}

// xhd_write_laz's file read back through its own chunk table.
TEST(laz_write_then_read) {
  const uint64_t count = 2500;
  std::vector<double> xyz(3 * count), extra(count);
  std::vector<uint8_t> classes(count), number(count), returns(count);
  std::vector<double> gps(count);
  std::vector<uint16_t> rgb(3 * count), intensity(count);
  uint32_t s = 3;
  for (uint64_t i = 0; i < count; ++i) {
    for (int k = 0; k < 3; ++k) xyz[3 * i + k] = 500000 + (xhd_test::xorshift32(s) % 100000) * 0.01;
    classes[i] = static_cast<uint8_t>(xhd_test::xorshift32(s) % 10);
    returns[i] = static_cast<uint8_t>(1 + xhd_test::xorshift32(s) % 3);
    number[i] = static_cast<uint8_t>(1 + xhd_test::xorshift32(s) % returns[i]);
    gps[i] = 1000 + i * 0.5;
    for (int c = 0; c < 3; ++c) rgb[3 * i + c] = static_cast<uint16_t>(xhd_test::xorshift32(s));
    intensity[i] = static_cast<uint16_t>(xhd_test::xorshift32(s));
    extra[i] = i / 3.0;
  }
  // A LAS 1.2 header with nothing but the fields the writer needs; the VLRs are not read back here.
  std::vector<uint8_t> header(227, 0);
  std::memcpy(header.data(), "LASF", 4);
  header[24] = 1;
  header[25] = 2;
  const uint32_t offset = 227;
  std::memcpy(header.data() + 96, &offset, 4);
  xhd_laz_points p{};
  p.count = count;
  p.xyz = xyz.data();
  p.intensity = intensity.data();
  p.return_number = number.data();
  p.return_count = returns.data();
  p.classification = classes.data();
  p.gps_time = gps.data();
  p.rgb = rgb.data();
  p.extra = extra.data();
  p.extra_count = 1;
  p.point_format = 3;
  for (int k = 0; k < 3; ++k) {
    p.scale[k] = 0.01;
    p.offset[k] = 500000;
  }
  p.chunk_size = 1000;
  p.threads = 2;
  const xhd_test::TempFile placeholder(std::vector<uint8_t>{});
  const std::string path = std::string(placeholder.path()) + ".laz";
  xhd_laz_write_result w{};
  CHECK_EQ(xhd_write_laz(path.c_str(), header.data(), header.size(), &p, &w), int32_t(XHD_OK));
  CHECK_EQ(w.kind, XHD_LAZ_WRITE_OK);
  CHECK_EQ(w.chunks, uint32_t(3));
  // The chunk table: its offset after the header, then version, count and the coded byte counts.
  std::vector<uint8_t> file(w.bytes);
  const int fd = open(path.c_str(), O_RDONLY);
  CHECK(fd >= 0);
  CHECK_EQ(read(fd, file.data(), file.size()), ssize_t(file.size()));
  close(fd);
  int64_t table;
  std::memcpy(&table, file.data() + 227, 8);
  uint32_t table_count;
  std::memcpy(&table_count, file.data() + table + 4, 4);
  CHECK_EQ(table_count, uint32_t(3));
  xhd::laz::ArithmeticDecoder decoder(file.data() + table + 8, file.data() + file.size());
  xhd::laz::IntegerDecompressor integers(decoder, 2);
  std::vector<uint64_t> chunks;
  uint64_t at = 227 + 8, previous = 0;
  for (uint64_t c = 0; c < 3; ++c) {
    const uint64_t bytes = static_cast<uint32_t>(integers.decompress(static_cast<int64_t>(previous), 1));
    chunks.insert(chunks.end(), {at, bytes, std::min<uint64_t>(1000, count - 1000 * c), 1000 * c});
    at += bytes;
    previous = bytes;
  }
  CHECK_EQ(at, uint64_t(table));
  const Decoded d = decode(path.c_str(), chunks, count, 2);
  CHECK_EQ(d.result.kind, XHD_LAZ_OK);
  bool same = d.result.kind == XHD_LAZ_OK;
  for (uint64_t i = 0; same && i < count; ++i) {
    const uint8_t* r = d.records.data() + i * kLength;
    for (int k = 0; k < 3; ++k)
      same = same &&
             xhd::laz::load<int32_t>(r + 4 * k) == static_cast<int32_t>(std::round((xyz[3 * i + k] - 500000) / 0.01));
    same = same && r[15] == classes[i] && (r[14] & 7) == number[i] && ((r[14] >> 3) & 7) == returns[i];
    same = same && xhd::laz::load<double>(r + 20) == gps[i] && xhd::laz::load<uint16_t>(r + 30) == rgb[3 * i + 1];
    same = same && xhd::laz::load<double>(r + 34) == extra[i] && xhd::laz::load<uint16_t>(r + 12) == intensity[i];
  }
  CHECK(same);
  unlink(path.c_str());
  // A coordinate off the grid: refused, naming the point, and no file left.
  xyz[3 * 1700 + 2] = 1e300;
  CHECK_EQ(xhd_write_laz(path.c_str(), header.data(), header.size(), &p, &w), int32_t(XHD_OK));
  CHECK_EQ(w.kind, XHD_LAZ_WRITE_OUT_OF_RANGE);
  CHECK_EQ(w.point, uint64_t(1700));
  CHECK_EQ(w.axis, 2);
  CHECK(access(path.c_str(), F_OK) != 0);
}
