// The native LAS record reader (cpu/las_reader.cpp) under the sanitizers: records of both layouts (formats
// 0-5 and 6-10) with extra bytes, decoded on one thread and in small pieces on several, against a plain
// loop written here; the filters and --every; a file that ends early; arguments that make no sense.
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

struct Record {
  int32_t X, Y, Z;
  uint8_t cls, number, count;
};

constexpr uint64_t kHeader = 17;  // bytes before the first record: the reader starts at body_offset

// Records of `length` bytes (extended: formats 6-10) after kHeader bytes of noise.
std::string records_file(const std::vector<Record>& rs, uint32_t length, bool extended) {
  std::string bytes(kHeader + rs.size() * length, '\0');
  uint32_t s = 12345;
  for (char& c : bytes) c = char((s = s * 1103515245u + 12345u) >> 24);  // every other byte is noise
  for (size_t i = 0; i < rs.size(); ++i) {
    char* p = &bytes[kHeader + i * length];
    std::memcpy(p, &rs[i].X, 4);
    std::memcpy(p + 4, &rs[i].Y, 4);
    std::memcpy(p + 8, &rs[i].Z, 4);
    if (extended) {
      p[14] = char(rs[i].number | (rs[i].count << 4));
      p[16] = char(rs[i].cls);
    } else {
      p[14] = char((rs[i].number & 7) | ((rs[i].count & 7) << 3) | (p[14] & 0xc0));
      p[15] = char((rs[i].cls & 31) | (p[15] & 0xe0));
    }
  }
  return bytes;
}

std::vector<Record> some_records(size_t n) {
  std::vector<Record> rs(n);
  uint32_t s = 99;
  auto next = [&] { return s = s * 1664525u + 1013904223u; };
  for (Record& r : rs) {
    r.X = int32_t(next());
    r.Y = int32_t(next()) / 4;
    r.Z = int32_t(next() % 2000001) - 1000000;
    r.count = uint8_t(1 + next() % 5);
    r.number = uint8_t(next() % (r.count + 1));
    r.cls = uint8_t(next() % 32);
  }
  return rs;
}

xhd_las_job job_for(uint64_t count, uint32_t length, bool extended) {
  xhd_las_job job{};
  job.body_offset = kHeader;
  job.point_count = count;
  job.record_length = length;
  job.extended = extended ? 1 : 0;
  job.scale[0] = 0.001, job.scale[1] = 0.01, job.scale[2] = 0.1;
  job.offset[0] = 500000, job.offset[1] = 4200000, job.offset[2] = -7;
  job.threads = 1;
  return job;
}

// What a plain front-to-back loop keeps: the reference the threaded reader must match.
std::vector<double> expected(const std::vector<Record>& rs, const xhd_las_job& job, std::vector<uint8_t>& attributes) {
  std::vector<double> out;
  uint64_t rank = 0;
  attributes.clear();
  for (const Record& r : rs) {
    const double x = r.X * job.scale[0] + job.offset[0], y = r.Y * job.scale[1] + job.offset[1],
                 z = r.Z * job.scale[2] + job.offset[2];
    if (job.classes != nullptr && job.classes[r.cls] == 0) continue;
    if (job.returns == 1 && r.number > 1) continue;
    if (job.returns == 2 && r.number < r.count) continue;
    if (job.box != nullptr &&
        (x < job.box[0] || y < job.box[1] || z < job.box[2] || x > job.box[3] || y > job.box[4] || z > job.box[5]))
      continue;
    if (job.every > 1 && rank++ % job.every != 0) continue;
    out.insert(out.end(), {x, y, z});
    attributes.insert(attributes.end(), {r.cls, uint8_t(r.number | (r.count << 4))});
  }
  return out;
}

void check_read(const std::vector<Record>& rs, const xhd_test::TempFile& file, xhd_las_job job) {
  std::vector<uint8_t> want_attributes;
  const std::vector<double> want = expected(rs, job, want_attributes);
  for (int threads : {1, 3}) {
    for (uint64_t piece : {uint64_t(0), uint64_t(3 * job.record_length + 1)}) {
      job.threads = threads;
      job.piece_bytes = piece;
      std::vector<double> xyz(3 * rs.size() + 1, -1);
      std::vector<uint8_t> attributes(2 * rs.size() + 1, 0xee);
      xhd_las_result result{};
      CHECK_EQ(xhd_read_las(file.path(), &job, xyz.data(), attributes.data(), &result), int32_t(XHD_OK));
      CHECK_EQ(result.kind, XHD_LAS_OK);
      CHECK_EQ(result.kept, uint64_t(want.size() / 3));
      CHECK(std::memcmp(xyz.data(), want.data(), want.size() * sizeof(double)) == 0);
      CHECK(std::memcmp(attributes.data(), want_attributes.data(), want_attributes.size()) == 0);
      uint64_t all = 0;
      for (uint64_t c : result.class_counts) all += c;
      CHECK_EQ(all, uint64_t(rs.size()));
      for (int k = 0; k < 3 && !want.empty(); ++k) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = k; i < want.size(); i += 3) lo = std::min(lo, want[i]), hi = std::max(hi, want[i]);
        CHECK_EQ(result.min[k], lo);
        CHECK_EQ(result.max[k], hi);
      }
    }
  }
}

}  // namespace

TEST(las_records_both_layouts) {
  const std::vector<Record> rs = some_records(500);
  for (bool extended : {false, true}) {
    const uint32_t length = extended ? 30 + 7 : 28 + 5;  // formats 6 and 1, with extra bytes
    const xhd_test::TempFile file(records_file(rs, length, extended));
    xhd_las_job job = job_for(rs.size(), length, extended);
    check_read(rs, file, job);
    uint8_t classes[256] = {};
    classes[2] = classes[6] = classes[17] = 1;
    job.classes = classes;
    check_read(rs, file, job);
    job.classes = nullptr;
    job.returns = 1;
    check_read(rs, file, job);
    job.returns = 2;
    job.every = 3;
    check_read(rs, file, job);
    const double box[6] = {-1e6, -1e9, -5e4, 2e6, 3e6, 5e4};
    job.box = box;
    check_read(rs, file, job);
  }
}

TEST(las_records_bad_files) {
  const std::vector<Record> rs = some_records(40);
  const std::string bytes = records_file(rs, 28, false);
  const xhd_test::TempFile short_file(bytes.substr(0, bytes.size() - 30));  // ends 2 bytes into record 38
  std::vector<double> xyz(3 * 40);
  xhd_las_result result{};
  xhd_las_job job = job_for(40, 28, false);
  job.threads = 3;
  job.piece_bytes = 28 * 4;
  CHECK_EQ(xhd_read_las(short_file.path(), &job, xyz.data(), nullptr, &result), int32_t(XHD_OK));
  CHECK_EQ(result.kind, XHD_LAS_TRUNCATED);
  CHECK_EQ(result.record, uint64_t(38));
  CHECK_EQ(result.byte, uint64_t(bytes.size() - 30));
  CHECK_EQ(xhd_read_las("/nonexistent/xhd.las", &job, xyz.data(), nullptr, &result), int32_t(XHD_OK));
  CHECK_EQ(result.kind, XHD_LAS_SYSTEM_ERROR);
  CHECK_EQ(result.error_number, ENOENT);
  xhd_las_job bad = job;
  bad.record_length = 19;
  CHECK_EQ(xhd_read_las(short_file.path(), &bad, xyz.data(), nullptr, &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  bad = job;
  bad.extended = 1;  // 28-byte records cannot hold format 6's fields
  CHECK_EQ(xhd_read_las(short_file.path(), &bad, xyz.data(), nullptr, &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  bad = job;
  bad.point_count = UINT64_MAX / 8;
  CHECK_EQ(xhd_read_las(short_file.path(), &bad, xyz.data(), nullptr, &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  bad = job;
  bad.returns = 3;
  CHECK_EQ(xhd_read_las(short_file.path(), &bad, xyz.data(), nullptr, &result), int32_t(XHD_ERROR_INVALID_ARGUMENT));
}
