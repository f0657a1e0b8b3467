// xhd_write_laz: points written as a LAZ file of point format 0-3. Batches of chunks are built into LAS
// records and compressed on every core (laz_chunk_encode.h), then written in order; the chunk table follows
// them, and the header's counts, bounds and chunk table offset are filled in last. A failed write leaves
// no file behind.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "laz_chunk_encode.h"
#include "open_file.h"
#include "xhd.h"

namespace {

using xhd::laz::Item;

constexpr uint32_t kDefaultChunkSize = 50000;

std::vector<Item> items_of(const xhd_laz_points& p) {
  std::vector<Item> items{{xhd::laz::kItemPoint10, 20, 2}};
  if (p.point_format == 1 || p.point_format == 3) items.push_back({xhd::laz::kItemGpsTime11, 8, 2});
  if (p.point_format == 2 || p.point_format == 3) items.push_back({xhd::laz::kItemRgb12, 6, 2});
  if (p.extra_count > 0) items.push_back({xhd::laz::kItemByte, static_cast<uint16_t>(8 * p.extra_count), 2});
  return items;
}

struct OutOfRange {
  uint64_t point;
  double value;
  int axis;
};

struct ChunkStats {
  int32_t min[3] = {INT32_MAX, INT32_MAX, INT32_MAX};
  int32_t max[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
  uint64_t by_return[16] = {};
};

// Points [first, first + n) as LAS records into out; throws OutOfRange at the first coordinate off the grid.
void build_records(const xhd_laz_points& p, uint64_t first, uint64_t n, uint32_t length, uint8_t* out,
                   ChunkStats& stats) {
  std::memset(out, 0, n * length);
  const bool gps = p.point_format == 1 || p.point_format == 3;
  const bool rgb = p.point_format == 2 || p.point_format == 3;
  const uint32_t gps_at = 20, rgb_at = gps ? 28 : 20, extra_at = 20 + (gps ? 8 : 0) + (rgb ? 6 : 0);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t v = first + i;
    uint8_t* r = out + i * length;
    for (int k = 0; k < 3; ++k) {
      const double x = p.xyz[3 * v + k];
      const double q = std::round((x - p.offset[k]) / p.scale[k]);
      if (!(q >= INT32_MIN && q <= INT32_MAX)) throw OutOfRange{v, x, k};
      const int32_t X = static_cast<int32_t>(q);
      xhd::laz::store<int32_t>(r + 4 * k, X);
      stats.min[k] = std::min(stats.min[k], X);
      stats.max[k] = std::max(stats.max[k], X);
    }
    if (p.intensity) xhd::laz::store<uint16_t>(r + 12, p.intensity[v]);
    const uint32_t number = p.return_number ? p.return_number[v] & 7 : 1;
    const uint32_t count = p.return_count ? p.return_count[v] & 7 : 1;
    r[14] = static_cast<uint8_t>(number | (count << 3));
    ++stats.by_return[number];
    if (p.classification) r[15] = p.classification[v];
    if (gps && p.gps_time) xhd::laz::store<double>(r + gps_at, p.gps_time[v]);
    if (rgb && p.rgb) {
      for (int c = 0; c < 3; ++c) xhd::laz::store<uint16_t>(r + rgb_at + 2 * c, p.rgb[3 * v + c]);
    }
    if (p.extra) std::memcpy(r + extra_at, p.extra + v * p.extra_count, 8 * p.extra_count);
  }
}

class OutputFile {
 public:
  explicit OutputFile(const char* path)
      : path_(path), fd_(::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) {
    if (fd_ < 0) throw xhd::SystemError{errno};
  }
  ~OutputFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!kept_) ::unlink(path_);
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(const void* data, uint64_t length, uint64_t offset) const {
    uint64_t done = 0;
    while (done < length) {
      const size_t ask = static_cast<size_t>(std::min<uint64_t>(length - done, uint64_t(1) << 30));
      const ssize_t put = ::pwrite(fd_, static_cast<const char*>(data) + done, ask, static_cast<off_t>(offset + done));
      if (put < 0) {
        if (errno == EINTR) continue;
        throw xhd::SystemError{errno};
      }
      done += static_cast<uint64_t>(put);
    }
  }

  // Closes the file and keeps it (the destructor removes a file not kept: a failed write leaves nothing).
  void keep() {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw xhd::SystemError{errno};
    kept_ = true;
  }

 private:
  const char* path_;
  int fd_;
  bool kept_ = false;
};

// The chunk table: version 0, the chunk count, then each chunk's byte count coded against the previous
// one (the chunks are of fixed size, so the table holds no point counts).
std::vector<uint8_t> chunk_table(const std::vector<uint64_t>& chunk_bytes) {
  std::vector<uint8_t> table(8, 0);
  const uint32_t count = static_cast<uint32_t>(chunk_bytes.size());
  std::memcpy(table.data() + 4, &count, 4);
  if (chunk_bytes.empty()) return table;
  xhd::laz::ArithmeticEncoder encoder(table);
  xhd::laz::IntegerCompressor integers(encoder, 2);
  int64_t previous = 0;
  for (uint64_t bytes : chunk_bytes) {
    integers.compress(previous, static_cast<int64_t>(bytes), 1);
    previous = static_cast<int64_t>(bytes);
  }
  encoder.done();
  return table;
}

void fill_header(std::vector<uint8_t>& h, const xhd_laz_points& p, const ChunkStats& all, double min[3],
                 double max[3]) {
  const uint32_t legacy = p.count <= UINT32_MAX ? static_cast<uint32_t>(p.count) : 0;
  std::memcpy(h.data() + 107, &legacy, 4);
  for (int r = 0; r < 5; ++r) {
    const uint64_t n = all.by_return[r + 1];
    const uint32_t n32 = n <= UINT32_MAX ? static_cast<uint32_t>(n) : 0;
    std::memcpy(h.data() + 111 + 4 * r, &n32, 4);
  }
  for (int k = 0; k < 3; ++k) {
    if (p.count == 0) {
      min[k] = max[k] = 0;
    } else {
      min[k] = all.min[k] * p.scale[k] + p.offset[k];
      max[k] = all.max[k] * p.scale[k] + p.offset[k];
      if (p.scale[k] < 0) std::swap(min[k], max[k]);
    }
    std::memcpy(h.data() + 179 + 16 * k, &max[k], 8);
    std::memcpy(h.data() + 187 + 16 * k, &min[k], 8);
  }
  if (h[25] >= 4 && h.size() >= 375) {
    std::memcpy(h.data() + 247, &p.count, 8);
    for (int r = 0; r < 15; ++r) std::memcpy(h.data() + 255 + 8 * r, &all.by_return[r + 1], 8);
  }
}

}  // namespace

extern "C" XHD_API int32_t xhd_write_laz(const char* path, const uint8_t* header, uint64_t header_bytes,
                                         const xhd_laz_points* points, xhd_laz_write_result* result) {
  return xhd::guarded([&] {
    if (path == nullptr || header == nullptr || points == nullptr || result == nullptr)
      throw xhd::InvalidArgument("path, header, points and result must not be null");
    const xhd_laz_points& p = *points;
    if (p.count > 0 && p.xyz == nullptr) throw xhd::InvalidArgument("xyz must not be null");
    if (p.point_format < 0 || p.point_format > 3) throw xhd::InvalidArgument("point_format must be 0-3");
    if (p.extra_count > 0 && p.extra == nullptr)
      throw xhd::InvalidArgument("extra must not be null when extra_count > 0");
    if (p.extra_count > 4000)
      throw xhd::InvalidArgument("extra_count must be at most 4000 (a record is at most 65535 bytes)");
    if (p.threads < 0) throw xhd::InvalidArgument("threads must be >= 0");
    if (header_bytes < 227 || std::memcmp(header, "LASF", 4) != 0 || header[25] > 4)
      throw xhd::InvalidArgument("header must be a LAS 1.0-1.4 header of at least 227 bytes");
    uint32_t data_offset;
    std::memcpy(&data_offset, header + 96, 4);
    if (data_offset != header_bytes) throw xhd::InvalidArgument("the header's point data offset must be header_bytes");
    for (int k = 0; k < 3; ++k)
      if (!(std::isfinite(p.scale[k]) && p.scale[k] != 0 && std::isfinite(p.offset[k])))
        throw xhd::InvalidArgument("scale must be finite and nonzero, offset finite");
    *result = xhd_laz_write_result{};
    const std::vector<Item> items = items_of(p);
    uint32_t length = 0;
    for (const Item& item : items) length += item.size;
    const uint64_t chunk_size = p.chunk_size > 0 ? p.chunk_size : kDefaultChunkSize;
    const uint64_t chunk_count = (p.count + chunk_size - 1) / chunk_size;
    if (chunk_count > UINT32_MAX) throw xhd::InvalidArgument("too many chunks for a chunk table");
    const int threads = xhd::resolve_thread_count(p.threads);
    try {
      OutputFile file(path);
      std::vector<uint8_t> head(header, header + header_bytes);
      file.write(head.data(), head.size(), 0);
      uint64_t at = header_bytes + 8;  // the chunk table's offset goes between the header and the chunks
      std::vector<uint64_t> chunk_bytes;
      ChunkStats all;
      // A batch of chunks a few per thread: their compressed bytes are all that is held at once.
      const uint64_t batch = static_cast<uint64_t>(threads) * 4;
      std::vector<std::vector<uint8_t>> encoded(batch);
      std::vector<ChunkStats> stats(batch);
      for (uint64_t first_chunk = 0; first_chunk < chunk_count; first_chunk += batch) {
        const uint64_t n = std::min(batch, chunk_count - first_chunk);
        std::vector<OutOfRange> bad;
        std::mutex bad_mutex;
        xhd::parallel_blocks(n, 1, threads, [&](size_t begin, size_t end, int) {
          std::vector<uint8_t> records;
          for (size_t b = begin; b < end; ++b) {
            const uint64_t c = first_chunk + b;
            const uint64_t first = c * chunk_size, count = std::min(chunk_size, p.count - first);
            records.resize(count * length);
            stats[b] = ChunkStats{};
            encoded[b].clear();
            try {
              build_records(p, first, count, length, records.data(), stats[b]);
            } catch (const OutOfRange& e) {
              std::lock_guard<std::mutex> lock(bad_mutex);
              bad.push_back(e);
              continue;
            }
            xhd::laz::encode_chunk(records.data(), count, items, length, encoded[b]);
          }
        });
        if (!bad.empty()) {
          const OutOfRange& first = *std::min_element(
              bad.begin(), bad.end(), [](const OutOfRange& a, const OutOfRange& b) { return a.point < b.point; });
          result->kind = XHD_LAZ_WRITE_OUT_OF_RANGE;
          result->point = first.point;
          result->value = first.value;
          result->axis = first.axis;
          return int32_t(XHD_OK);  // the file is removed as `file` goes
        }
        for (uint64_t b = 0; b < n; ++b) {
          file.write(encoded[b].data(), encoded[b].size(), at);
          at += encoded[b].size();
          chunk_bytes.push_back(encoded[b].size());
          for (int k = 0; k < 3; ++k) {
            all.min[k] = std::min(all.min[k], stats[b].min[k]);
            all.max[k] = std::max(all.max[k], stats[b].max[k]);
          }
          for (int r = 0; r < 16; ++r) all.by_return[r] += stats[b].by_return[r];
        }
      }
      const std::vector<uint8_t> table = chunk_table(chunk_bytes);
      const int64_t table_offset = static_cast<int64_t>(at);
      file.write(table.data(), table.size(), at);
      at += table.size();
      fill_header(head, p, all, result->min, result->max);
      file.write(head.data(), head.size(), 0);
      file.write(&table_offset, 8, header_bytes);
      file.keep();
      result->chunks = static_cast<uint32_t>(chunk_count);
      result->bytes = at;
    } catch (const xhd::SystemError& error) {
      result->kind = XHD_LAZ_WRITE_SYSTEM_ERROR;
      result->error_number = error.code;
    }
    return int32_t(XHD_OK);
  });
}
