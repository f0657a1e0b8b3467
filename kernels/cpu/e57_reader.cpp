// xhd_read_e57: one E57 scan's binary section (a CompressedVector) decoded on every core. The section is taken
// a window of pages at a time (never whole): every thread reads its own run of pages (pread), checks each
// page's CRC-32C and gathers the pages' data bytes in place; one thread then walks the window's packet
// headers (a few bytes each), checking them as src/io/e57-points.ts does and noting where each needed
// field's buffers lie; the buffers are gathered into one contiguous bytestream a field; and the records the
// window completes are decoded on every thread in blocks, each value taken from its field's stream at bit
// (record * bits), converted and moved by the pose in double exactly as the TypeScript loop does.
//
// The TypeScript reader stays the reference and the one that words errors: anything this reader does not
// expect (a bad CRC, a packet that lies, a coordinate beyond 1e15, a file that ends early) gives
// XHD_E57_PROBLEM and nothing else, and the caller decodes the section itself, which names the problem.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#if defined(__SSE4_2__)
#include <nmmintrin.h>
#endif

#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "kept_bounds.h"
#include "open_file.h"
#include "prefault.h"
#include "xhd.h"

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr uint64_t kPage = 1024, kPageData = 1020;
// Logical bytes a window takes by default: enough for every core to read a few runs of pages.
constexpr uint64_t kDefaultWindow = uint64_t(32) << 20;
// Pages a thread reads and checks at a time.
constexpr uint64_t kRunPages = 256;
// Records a decoding task takes, and how many values of each field it unpacks at a time.
constexpr uint64_t kBlockRecords = 65536, kBatch = 1024;
// Zero bytes after a stream's last byte: a value read at the end never reads past the buffer.
constexpr uint64_t kSlack = 16;
// The largest coordinate xhd is exact over (src/io/build.ts MAX_COORDINATE).
constexpr double kMaxCoordinate = 1e15;

// ---- CRC-32C (Castagnoli, reflected 0x82F63B78), as E57 stores at the end of each page (big-endian) ----

struct CrcTables {
  uint32_t t[8][256];
  CrcTables() {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t c = b;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
      t[0][b] = c;
    }
    for (int k = 1; k < 8; ++k)
      for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
  }
};

uint32_t crc32c(const uint8_t* p, uint64_t n) {
  uint32_t crc = 0xffffffffu;
#if defined(__SSE4_2__)
  // The processor's CRC32 instruction computes exactly this polynomial, 8 bytes a step.
  uint64_t c64 = crc;
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c64 = _mm_crc32_u64(c64, word);
  }
  crc = uint32_t(c64);
  for (; n > 0; --n, ++p) crc = _mm_crc32_u8(crc, *p);
#else
  static const CrcTables tables;
  const auto& t = tables.t;
  for (; n >= 8; n -= 8, p += 8) {
    const uint32_t a = crc ^ (uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24);
    crc = t[7][a & 0xff] ^ t[6][(a >> 8) & 0xff] ^ t[5][(a >> 16) & 0xff] ^ t[4][a >> 24] ^ t[3][p[4]] ^ t[2][p[5]] ^
          t[1][p[6]] ^ t[0][p[7]];
  }
  for (; n > 0; --n, ++p) crc = (crc >> 8) ^ t[0][(crc ^ *p) & 0xff];
#endif
  return crc ^ 0xffffffffu;
}

// ---- one needed field's bytestream ----

// A field as the job describes it (one of its four slots).
struct Field {
  int32_t kind, bits;
  int64_t minimum;
  double scale, offset;
};

struct Stream {
  Field field{};
  int index = 0;               // the field's place among the packet's bytestreams
  std::vector<uint8_t> bytes;  // the stream from byte `base` on: carried bytes, then this window's
  uint64_t base = 0;           // the stream byte that bytes[0] is
  uint64_t total_bits = 0;     // bits the packets so far have brought
  uint64_t window_bytes = 0;   // bytes this window's packets bring
  uint64_t carried = 0;        // bytes kept from earlier windows (at the front of `bytes`)

  // Values complete in the stream so far; a field of 0 bits has any number (every value is its minimum).
  uint64_t available() const { return field.bits == 0 ? UINT64_MAX : total_bits / uint64_t(field.bits); }
};

template <class T>
T load(const uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

// The integer of value `i`: (raw bits + minimum) rounded once to double, as JavaScript's Number of the exact
// sum gives it; a ScaledInteger then scaled and offset, the product and the sum rounded apart.
void take_values(const Stream& s, uint64_t first, uint64_t count, double* into) {
  const Field& f = s.field;
  const uint64_t bits = uint64_t(f.bits);
  const uint8_t* b = s.bytes.data();
  const bool scaled = f.kind == XHD_E57_SCALED;
  const double scale = f.scale, offset = f.offset;
  if (f.kind == XHD_E57_FLOAT64) {
    const uint8_t* p = b + (first * 8 - s.base);
    for (uint64_t i = 0; i < count; ++i) into[i] = load<double>(p + 8 * i);
    return;
  }
  if (f.kind == XHD_E57_FLOAT32) {
    const uint8_t* p = b + (first * 4 - s.base);
    for (uint64_t i = 0; i < count; ++i) into[i] = double(load<float>(p + 4 * i));
    return;
  }
  if (bits == 0) {
    const double v = scaled ? double(f.minimum) * scale + offset : double(f.minimum);
    std::fill(into, into + count, v);
    return;
  }
  const uint64_t base_bit = 8 * s.base;
  uint64_t bit = first * bits - base_bit;
  // Up to 57 bits fit in one unaligned 8-byte load whatever the value's first bit; the sum fits in 64 bits
  // when the minimum is within 2^62 and the raw value below 2^57.
  const bool narrow = bits <= 57 && f.minimum > -(int64_t(1) << 62) && f.minimum < (int64_t(1) << 62);
  if (narrow) {
    const uint64_t mask = (uint64_t(1) << bits) - 1;
    const int64_t minimum = f.minimum;
    for (uint64_t i = 0; i < count; ++i, bit += bits) {
      const uint64_t raw = (load<uint64_t>(b + (bit >> 3)) >> (bit & 7)) & mask;
      const double integer = double(int64_t(raw) + minimum);
      into[i] = scaled ? integer * scale + offset : integer;
    }
    return;
  }
  for (uint64_t i = 0; i < count; ++i, bit += bits) {
    const uint8_t* p = b + (bit >> 3);
    unsigned __int128 word = (unsigned __int128)load<uint64_t>(p + 8) << 64 | load<uint64_t>(p);
    word >>= (bit & 7);
    const uint64_t raw = bits == 64 ? uint64_t(word) : uint64_t(word) & ((uint64_t(1) << bits) - 1);
    const double integer = double(__int128(raw) + __int128(f.minimum));
    into[i] = scaled ? integer * scale + offset : integer;
  }
}

// ---- the job ----

struct Pose {
  bool any = false, rotates = false;
  double m[9] = {}, t[3] = {};
};

struct Block {
  uint64_t kept = 0, invalid = 0;
  bool bad = false;
  double min[3] = {kInf, kInf, kInf}, max[3] = {-kInf, -kInf, -kInf};
};

// Decodes records [first, first + count) into out (the valid ones, packed, from the block's own slot).
void decode_block(const std::vector<Stream>& streams, int state_slot, bool spherical, const Pose& pose, uint64_t first,
                  uint64_t count, double* out, Block& block, std::vector<double>& scratch) {
  const size_t fields = streams.size();
  scratch.resize(fields * kBatch);
  double lo[3] = {kInf, kInf, kInf}, hi[3] = {-kInf, -kInf, -kInf};
  uint64_t o = 0;
  for (uint64_t done = 0; done < count; done += kBatch) {
    const uint64_t n = std::min(kBatch, count - done);
    for (size_t s = 0; s < fields; ++s) take_values(streams[s], first + done, n, scratch.data() + s * kBatch);
    const double* a = scratch.data();
    const double* b = a + kBatch;
    const double* c = b + kBatch;
    const double* state = state_slot >= 0 ? scratch.data() + state_slot * kBatch : nullptr;
    for (uint64_t i = 0; i < n; ++i) {
      if (state != nullptr && state[i] != 0) {  // 1: a direction without a range, 2: no point at all
        ++block.invalid;
        continue;
      }
      double x = a[i], y = b[i], z = c[i];
      if (spherical) {  // written unconverted: the caller converts with JavaScript's own cos and sin
        out[3 * o] = x, out[3 * o + 1] = y, out[3 * o + 2] = z;
        ++o;
        continue;
      }
      if (pose.rotates) {
        const double px = x, py = y, pz = z;
        const double* m = pose.m;
        x = m[0] * px + m[1] * py + m[2] * pz + pose.t[0];
        y = m[3] * px + m[4] * py + m[5] * pz + pose.t[1];
        z = m[6] * px + m[7] * py + m[8] * pz + pose.t[2];
      } else if (pose.any) {
        x += pose.t[0];
        y += pose.t[1];
        z += pose.t[2];
      }
      // Non-finite or beyond 1e15 (NaN fails every comparison): the caller's reader names it.
      if (!(x <= kMaxCoordinate && x >= -kMaxCoordinate && y <= kMaxCoordinate && y >= -kMaxCoordinate &&
            z <= kMaxCoordinate && z >= -kMaxCoordinate)) {
        block.bad = true;
        return;
      }
      out[3 * o] = x, out[3 * o + 1] = y, out[3 * o + 2] = z;
      ++o;
      xhd::widen_first_kept(lo, hi, x, y, z);
    }
  }
  block.kept = o;
  for (int k = 0; k < 3; ++k) block.min[k] = lo[k], block.max[k] = hi[k];
}

struct Problem {};  // the section is not as expected: the caller's reader takes it

class SectionReader {
 public:
  SectionReader(const xhd::OpenFile& file, const xhd_e57_job& job, int threads, double* out)
      : file_(file), job_(job), threads_(threads), out_(out) {
    // The coordinates first, then the invalid state: the order of e57-points.ts's `needed`.
    if (job.field_count < 0) throw xhd::InvalidArgument("field_count must be >= 0");
    slot_of_.assign(size_t(job.field_count), -1);
    for (int k = 0; k < 4; ++k) {
      if (k == 3 && job.stream[3] < 0) break;
      const int slot = add_stream(job, k);
      if (k == 3) state_slot_ = slot;
    }
    if (job.pose != nullptr) {
      pose_.any = true;
      std::copy(job.pose, job.pose + 9, pose_.m);
      std::copy(job.pose + 9, job.pose + 12, pose_.t);
      const double* m = pose_.m;
      pose_.rotates = !(m[0] == 1 && m[1] == 0 && m[2] == 0 && m[3] == 0 && m[4] == 1 && m[5] == 0 && m[6] == 0 &&
                        m[7] == 0 && m[8] == 1);
    }
    window_ = job.piece_bytes > 0 ? std::max<uint64_t>(job.piece_bytes, 8) : kDefaultWindow;
  }

  void run(xhd_e57_result& result) {
    uint64_t pos = job_.data_start;
    for (int k = 0; k < 3; ++k) min_[k] = kInf, max_[k] = -kInf;
    uint64_t window = window_;
    while (decoded_ < job_.records) {
      if (pos + 4 > job_.section_end) throw Problem{};  // the section ends before its records do
      const uint64_t before = decoded_, from = pos;
      pos = window_pass(pos, window);
      // A packet larger than the window: the next pass takes a window that holds it.
      window = pos == from && decoded_ == before ? 2 * window : window_;
    }
    result.kept = kept_;
    result.invalid = invalid_;
    for (int k = 0; k < 3; ++k) result.min[k] = min_[k], result.max[k] = max_[k];
  }

 private:
  int add_stream(const xhd_e57_job& job, int k) {
    const int index = job.stream[k];
    if (index < 0 || index >= job.field_count) throw xhd::InvalidArgument("a field's stream is out of range");
    if (slot_of_[index] >= 0) throw xhd::InvalidArgument("two slots name the same stream");
    Stream s;
    s.field = Field{job.kind[k], job.bits[k], job.minimum[k], job.scale[k], job.offset[k]};
    s.index = index;
    const Field& f = s.field;
    if (f.kind < XHD_E57_INTEGER || f.kind > XHD_E57_FLOAT64 || f.bits < 0 || f.bits > 64 ||
        (f.kind == XHD_E57_FLOAT64 && f.bits != 64) || (f.kind == XHD_E57_FLOAT32 && f.bits != 32))
      throw xhd::InvalidArgument("a field's kind and bits disagree");
    slot_of_[index] = int(streams_.size());
    streams_.push_back(std::move(s));
    return int(streams_.size()) - 1;
  }

  // Reads and checks the pages holding logical [pos, pos + window) (within the section) into data_; returns
  // the logical offset data_ starts at.
  uint64_t load_pages(uint64_t pos, uint64_t window, uint64_t& end) {
    const uint64_t first_page = pos / kPageData;
    end = std::min(job_.section_end, pos + window);
    const uint64_t last_page = (end - 1) / kPageData;
    const uint64_t pages = last_page - first_page + 1;
    data_.resize(pages * kPageData);
    end = std::min(job_.section_end, (last_page + 1) * kPageData);
    std::atomic<bool> failed{false};
    std::atomic<int> error{0};
    const uint64_t runs = (pages + kRunPages - 1) / kRunPages;
    raw_.resize(std::max(threads_, 1));
    xhd::parallel_blocks(runs, 1, threads_, [&](size_t run, size_t, int tid) {
      if (failed.load(std::memory_order_relaxed)) return;
      const uint64_t p0 = run * kRunPages, n = std::min(kRunPages, pages - p0);
      std::vector<uint8_t>& raw = raw_[tid];
      raw.resize(n * kPage);
      uint64_t got;
      try {
        got = file_.read(raw.data(), n * kPage, (first_page + p0) * kPage);
      } catch (const xhd::SystemError& e) {
        error.store(e.code);
        failed.store(true);
        return;
      }
      if (got < n * kPage) {
        failed.store(true);
        return;
      }
      for (uint64_t p = 0; p < n; ++p) {
        const uint8_t* page = raw.data() + p * kPage;
        const uint32_t stored = uint32_t(page[kPageData]) << 24 | uint32_t(page[kPageData + 1]) << 16 |
                                uint32_t(page[kPageData + 2]) << 8 | uint32_t(page[kPageData + 3]);
        if (crc32c(page, kPageData) != stored) {
          failed.store(true);
          return;
        }
        std::memcpy(data_.data() + (p0 + p) * kPageData, page, kPageData);
      }
    });
    if (error.load() != 0) throw xhd::SystemError{error.load()};
    if (failed.load()) throw Problem{};
    return first_page * kPageData;
  }

  // One window: pages read and checked, packets walked, streams gathered, records decoded. Returns the
  // logical offset of the first packet not taken.
  uint64_t window_pass(uint64_t pos, uint64_t window) {
    uint64_t end;
    const uint64_t start = load_pages(pos, window, end);
    const uint8_t* data = data_.data();
    struct Piece {
      uint64_t from, bytes;
      int slot;
      uint64_t to;
    };
    std::vector<Piece> pieces;
    for (Stream& s : streams_) s.window_bytes = 0;
    uint64_t ready = decoded_;
    const uint64_t fields = uint64_t(job_.field_count);
    while (ready < job_.records) {
      if (pos + 4 > job_.section_end) throw Problem{};
      if (pos + 4 > end) break;
      const uint8_t* head = data + (pos - start);
      const uint32_t type = head[0];
      const uint64_t length = uint64_t(head[2] | (head[3] << 8)) + 1;
      if (pos + length > job_.section_end) throw Problem{};
      if (pos + length > end) break;
      if (type == 0 || type == 2) {  // index and empty packets hold no records
        pos += length;
        continue;
      }
      if (type != 1 || length < 6) throw Problem{};
      const uint64_t stream_count = uint64_t(head[4] | (head[5] << 8));
      if (stream_count != fields) throw Problem{};
      uint64_t buffer = 6 + 2 * stream_count;
      if (buffer > length) throw Problem{};
      for (uint64_t k = 0; k < stream_count; ++k) {
        const uint64_t bytes = uint64_t(head[6 + 2 * k] | (head[7 + 2 * k] << 8));
        if (buffer + bytes > length) throw Problem{};
        const int slot = slot_of_[k];
        if (slot >= 0 && bytes > 0) {
          Stream& s = streams_[slot];
          pieces.push_back({pos - start + buffer, bytes, slot, s.window_bytes});
          s.window_bytes += bytes;
          s.total_bits += 8 * bytes;
        }
        buffer += bytes;
      }
      uint64_t available = job_.records;
      for (const Stream& s : streams_) available = std::min(available, s.available());
      ready = std::max(ready, available);
      pos += length;
    }
    // Each stream: the bytes carried from earlier windows, then this window's, then zeros.
    for (Stream& s : streams_) {
      s.bytes.resize(s.carried + s.window_bytes + kSlack);
      std::fill(s.bytes.end() - kSlack, s.bytes.end(), uint8_t(0));
    }
    xhd::parallel_blocks(pieces.size(), 64, threads_, [&](size_t begin, size_t stop, int) {
      for (size_t i = begin; i < stop; ++i) {
        const Piece& p = pieces[i];
        Stream& s = streams_[p.slot];
        std::memcpy(s.bytes.data() + s.carried + p.to, data + p.from, p.bytes);
      }
    });
    decode(decoded_, ready);
    decoded_ = ready;
    // Keep each stream's bytes from the first one the next record needs.
    for (Stream& s : streams_) {
      const uint64_t next = s.field.bits == 0 ? s.base + s.carried + s.window_bytes : decoded_ * s.field.bits / 8;
      const uint64_t drop = std::min<uint64_t>(next - s.base, s.carried + s.window_bytes);
      const uint64_t keep = s.carried + s.window_bytes - drop;
      std::memmove(s.bytes.data(), s.bytes.data() + drop, keep);
      s.base += drop;
      s.carried = keep;
    }
    return pos;
  }

  // Decodes records [first, last) in blocks on every thread, then packs the blocks' points in order.
  void decode(uint64_t first, uint64_t last) {
    if (last <= first) return;
    const uint64_t blocks = (last - first + kBlockRecords - 1) / kBlockRecords;
    std::vector<Block> result(blocks);
    scratch_.resize(std::max(threads_, 1));
    const bool spherical = job_.spherical != 0;
    double* slot = out_ + 3 * (kept_ + 0);
    xhd::parallel_blocks(blocks, 1, threads_, [&](size_t b, size_t, int tid) {
      const uint64_t r0 = first + b * kBlockRecords, n = std::min(kBlockRecords, last - r0);
      double* out = slot + 3 * (r0 - first);
      xhd::prefault_for_writing(out, 3 * n * sizeof(double));
      decode_block(streams_, state_slot_, spherical, pose_, r0, n, out, result[b], scratch_[tid]);
    });
    for (uint64_t b = 0; b < blocks; ++b) {
      const Block& r = result[b];
      if (r.bad) throw Problem{};
      const double* from = slot + 3 * (b * kBlockRecords);
      if (from != out_ + 3 * kept_ && r.kept > 0) std::memmove(out_ + 3 * kept_, from, 3 * r.kept * sizeof(double));
      kept_ += r.kept;
      invalid_ += r.invalid;
      for (int k = 0; k < 3; ++k) {
        if (r.min[k] < min_[k]) min_[k] = r.min[k];
        if (r.max[k] > max_[k]) max_[k] = r.max[k];
      }
    }
  }

  const xhd::OpenFile& file_;
  const xhd_e57_job& job_;
  int threads_;
  double* out_;
  std::vector<Stream> streams_;
  std::vector<int> slot_of_;
  int state_slot_ = -1;
  Pose pose_;
  uint64_t window_ = kDefaultWindow;
  std::vector<uint8_t> data_;
  std::vector<std::vector<uint8_t>> raw_;
  std::vector<std::vector<double>> scratch_;
  uint64_t decoded_ = 0, kept_ = 0, invalid_ = 0;
  double min_[3], max_[3];
};

}  // namespace

extern "C" XHD_API int32_t xhd_read_e57(const char* path, const xhd_e57_job* job, double* positions,
                                        xhd_e57_result* result) {
  return xhd::guarded([&] {
    if (path == nullptr || job == nullptr || result == nullptr || (positions == nullptr && job->records > 0))
      throw xhd::InvalidArgument("path, job, positions and result must not be null");
    if (job->threads < 0) throw xhd::InvalidArgument("threads must be >= 0");
    if (job->data_start > job->section_end) throw xhd::InvalidArgument("data_start lies after section_end");
    *result = xhd_e57_result{};
    try {
      const xhd::OpenFile file(path);
      SectionReader reader(file, *job, xhd::resolve_thread_count(job->threads), positions);
      reader.run(*result);
      result->kind = XHD_E57_OK;
    } catch (const Problem&) {
      *result = xhd_e57_result{};
      result->kind = XHD_E57_PROBLEM;
    } catch (const xhd::SystemError& error) {
      *result = xhd_e57_result{};
      result->kind = XHD_E57_SYSTEM_ERROR;
      result->error_number = error.code;
    }
    return int32_t(XHD_OK);
  });
}
