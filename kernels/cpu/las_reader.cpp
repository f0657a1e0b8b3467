// xhd_read_las: an uncompressed LAS body (point formats 0-10) read and decoded on every core. Each thread
// takes the next piece of whole records, reads it from the file itself (pread, no shared position), and
// decodes it while it is in cache: X, Y, Z scaled in double as src/io/las-records.ts does (the product, then
// the sum, unfused), every record tallied by class and return, the filters applied, the kept points written
// to the piece's own slot of the output. A pass in file order then packs the pieces' kept points together
// and applies --every, so the result is the TypeScript reader's bit for bit, whatever the threads did.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "open_file.h"
#include "prefault.h"
#include "xhd.h"

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Small enough that a piece is decoded while still in the core's cache, large enough that a pread costs far
// more in copying than in the call.
constexpr uint64_t kDefaultPieceBytes = uint64_t(1) << 20;

// Math.min and Math.max, as computeBounds (src/core/coordinates.ts) folds the thinned points: -0 below +0.
double js_min(double a, double b) { return a < b ? a : b < a ? b : std::signbit(a) ? a : b; }
double js_max(double a, double b) { return a > b ? a : b > a ? b : std::signbit(a) ? b : a; }

template <class T>
T load(const uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));  // LAS is little-endian, as every host this builds for
  return value;
}

struct Job {
  uint64_t body, count, per_piece, pieces, every;
  uint32_t length;
  bool extended;
  double scale[3], offset[3];
  const uint8_t* classes;
  const double* box;
  int32_t returns;
};

// What one thread counted over every record it decoded: sums and integer bounds, which merge in any order.
struct Counts {
  uint64_t classes[256] = {};
  uint64_t returns[16] = {};
  int32_t raw_min[3] = {INT32_MAX, INT32_MAX, INT32_MAX};
  int32_t raw_max[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
  bool any = false;

  void merge(const Counts& o) {
    for (int i = 0; i < 256; ++i) classes[i] += o.classes[i];
    for (int i = 0; i < 16; ++i) returns[i] += o.returns[i];
    for (int k = 0; k < 3; ++k)
      raw_min[k] = std::min(raw_min[k], o.raw_min[k]), raw_max[k] = std::max(raw_max[k], o.raw_max[k]);
    any = any || o.any;
  }
};

// One piece's kept points: how many, and their bounds as the TypeScript loop finds them (`if (x < min)`: of
// equal values the first stays, so -0 and +0 keep file order). Merged in file order, they give its result.
struct PieceKept {
  uint64_t kept = 0;
  double min[3] = {kInf, kInf, kInf}, max[3] = {-kInf, -kInf, -kInf};
};

// Decodes `count` records (formats 6-10 when Extended) into out (kept points, packed) and attributes; returns
// how many were kept. The loop of decodeLasRecords in src/io/las-records.ts, field for field.
template <bool Extended>
uint64_t decode_records(const uint8_t* p, uint64_t count, const Job& job, double* out, uint8_t* attributes, Counts& c,
                        PieceKept& k) {
  constexpr int class_byte = Extended ? 16 : 15;
  constexpr uint32_t class_mask = Extended ? 0xff : 0x1f, return_mask = Extended ? 0x0f : 0x07;
  constexpr int count_shift = Extended ? 4 : 3;
  const uint32_t length = job.length;
  const double sx = job.scale[0], sy = job.scale[1], sz = job.scale[2];
  const double ox = job.offset[0], oy = job.offset[1], oz = job.offset[2];
  const uint8_t* classes = job.classes;
  const double* box = job.box;
  const int32_t returns = job.returns;
  const bool filtered = classes != nullptr || box != nullptr || returns != 0;
  int32_t rmin[3] = {c.raw_min[0], c.raw_min[1], c.raw_min[2]}, rmax[3] = {c.raw_max[0], c.raw_max[1], c.raw_max[2]};
  double lo[3] = {k.min[0], k.min[1], k.min[2]}, hi[3] = {k.max[0], k.max[1], k.max[2]};
  uint64_t o = 0;
  for (uint64_t r = 0; r < count; ++r, p += length) {
    const int32_t X = load<int32_t>(p), Y = load<int32_t>(p + 4), Z = load<int32_t>(p + 8);
    const uint32_t return_byte = p[14];
    const uint32_t cls = p[class_byte] & class_mask;
    const uint32_t return_number = return_byte & return_mask;
    ++c.classes[cls];
    ++c.returns[return_number];
    rmin[0] = std::min(rmin[0], X), rmax[0] = std::max(rmax[0], X);
    rmin[1] = std::min(rmin[1], Y), rmax[1] = std::max(rmax[1], Y);
    rmin[2] = std::min(rmin[2], Z), rmax[2] = std::max(rmax[2], Z);
    // Two operations on purpose, built without contraction: the product rounded to double, then the sum.
    const double x = X * sx + ox, y = Y * sy + oy, z = Z * sz + oz;
    if (filtered) {
      if (classes != nullptr && classes[cls] == 0) continue;
      if (returns == 1 && return_number > 1) continue;
      if (returns == 2 && return_number < ((return_byte >> count_shift) & return_mask)) continue;
      if (box != nullptr && (x < box[0] || y < box[1] || z < box[2] || x > box[3] || y > box[4] || z > box[5]))
        continue;
    }
    out[3 * o] = x;
    out[3 * o + 1] = y;
    out[3 * o + 2] = z;
    if (attributes != nullptr) {
      attributes[2 * o] = uint8_t(cls);
      attributes[2 * o + 1] = uint8_t(return_number | (((return_byte >> count_shift) & return_mask) << 4));
    }
    ++o;
    if (x < lo[0]) lo[0] = x;
    if (x > hi[0]) hi[0] = x;
    if (y < lo[1]) lo[1] = y;
    if (y > hi[1]) hi[1] = y;
    if (z < lo[2]) lo[2] = z;
    if (z > hi[2]) hi[2] = z;
  }
  for (int a = 0; a < 3; ++a) {
    c.raw_min[a] = rmin[a], c.raw_max[a] = rmax[a];
    k.min[a] = lo[a], k.max[a] = hi[a];
  }
  c.any = c.any || count > 0;
  k.kept += o;
  return o;
}

// The file ended inside record `record`; its data ran out at `byte`. The lowest such record is the one
// reported, as a reader going front to back would find it.
struct Truncation {
  std::mutex mutex;
  std::atomic<uint64_t> record{UINT64_MAX};
  uint64_t byte = 0;
  int32_t error_number = 0;

  void set(uint64_t r, uint64_t at, int32_t error = 0) {
    std::lock_guard<std::mutex> lock(mutex);
    if (r >= record.load()) return;
    record.store(r);
    byte = at;
    error_number = error;
  }
};

Job checked_job(const xhd_las_job& in) {
  if (in.record_length < 20) throw xhd::InvalidArgument("record_length must be at least 20 (point format 0)");
  if (in.extended != 0 && in.record_length < 30) throw xhd::InvalidArgument("extended records take at least 30 bytes");
  if (in.threads < 0) throw xhd::InvalidArgument("threads must be >= 0");
  if (in.returns < 0 || in.returns > 2) throw xhd::InvalidArgument("returns must be 0, 1 or 2");
  if (in.point_count > UINT64_MAX / in.record_length || in.body_offset > UINT64_MAX - in.point_count * in.record_length)
    throw xhd::InvalidArgument("the records' extent overflows");
  Job job{};
  job.body = in.body_offset;
  job.count = in.point_count;
  job.length = in.record_length;
  job.extended = in.extended != 0;
  const uint64_t piece = in.piece_bytes > 0 ? in.piece_bytes : kDefaultPieceBytes;
  job.per_piece = std::max<uint64_t>(1, piece / in.record_length);
  job.pieces = (job.count + job.per_piece - 1) / job.per_piece;
  job.every = std::max<uint64_t>(in.every, 1);
  for (int k = 0; k < 3; ++k) job.scale[k] = in.scale[k], job.offset[k] = in.offset[k];
  job.classes = in.classes;
  job.box = in.box;
  job.returns = in.returns;
  return job;
}

// Moves each piece's kept points (and attributes) down to follow the previous piece's, keeping with --every
// the first of every `every` in file order; returns the count kept. Pieces only ever move down.
uint64_t pack(const Job& job, const std::vector<PieceKept>& pieces, double* xyz, uint8_t* attributes,
              double bounds[6]) {
  uint64_t at = 0, rank = 0;
  for (int k = 0; k < 3; ++k) bounds[k] = kInf, bounds[3 + k] = -kInf;
  for (uint64_t p = 0; p < job.pieces; ++p) {
    const uint64_t first = p * job.per_piece, kept = pieces[p].kept;
    if (job.every == 1) {
      if (at != first && kept > 0) {
        std::memmove(xyz + 3 * at, xyz + 3 * first, 3 * kept * sizeof(double));
        if (attributes != nullptr) std::memmove(attributes + 2 * at, attributes + 2 * first, 2 * kept);
      }
      at += kept;
      continue;
    }
    // The first point of this piece to keep: the next rank that is a multiple of every.
    for (uint64_t i = (job.every - rank % job.every) % job.every; i < kept; i += job.every, ++at) {
      const double* from = xyz + 3 * (first + i);
      for (int k = 0; k < 3; ++k) {
        bounds[k] = js_min(bounds[k], from[k]);
        bounds[3 + k] = js_max(bounds[3 + k], from[k]);
      }
      std::memmove(xyz + 3 * at, from, 3 * sizeof(double));
      if (attributes != nullptr) std::memmove(attributes + 2 * at, attributes + 2 * (first + i), 2);
    }
    rank += kept;
  }
  return at;
}

void read_body(const xhd::OpenFile& file, const Job& job, int threads, double* xyz, uint8_t* attributes,
               xhd_las_result& result) {
  const int workers =
      static_cast<int>(std::min<uint64_t>(uint64_t(std::max(threads, 1)), std::max<uint64_t>(job.pieces, 1)));
  std::vector<Counts> counts(workers);
  std::vector<PieceKept> pieces(job.pieces);
  std::vector<std::vector<uint8_t>> scratch(workers);
  Truncation truncation;
  xhd::parallel_blocks(job.pieces, 1, workers, [&](size_t piece, size_t, int tid) {
    const uint64_t first = piece * job.per_piece;
    if (first >= truncation.record.load(std::memory_order_relaxed)) return;  // cannot hold an earlier end
    const uint64_t n = std::min(job.per_piece, job.count - first);
    const uint64_t offset = job.body + first * job.length;
    std::vector<uint8_t>& buffer = scratch[tid];
    if (buffer.size() < n * job.length) buffer.resize(n * job.length);
    double* out = xyz + 3 * first;
    xhd::prefault_for_writing(out, 3 * n * sizeof(double));
    uint64_t got;
    try {
      got = file.read(buffer.data(), n * job.length, offset);
    } catch (const xhd::SystemError& e) {
      truncation.set(first, offset, e.code);
      return;
    }
    if (got < n * job.length) {
      truncation.set(first + got / job.length, offset + got);
      return;
    }
    uint8_t* attr = attributes == nullptr ? nullptr : attributes + 2 * first;
    if (job.extended) decode_records<true>(buffer.data(), n, job, out, attr, counts[tid], pieces[piece]);
    else decode_records<false>(buffer.data(), n, job, out, attr, counts[tid], pieces[piece]);
  });
  if (truncation.record.load() != UINT64_MAX) {
    result.kind = truncation.error_number != 0 ? XHD_LAS_SYSTEM_ERROR : XHD_LAS_TRUNCATED;
    result.error_number = truncation.error_number;
    result.record = truncation.record.load();
    result.byte = truncation.byte;
    return;
  }
  Counts total;
  for (const Counts& c : counts) total.merge(c);
  std::copy(total.classes, total.classes + 256, result.class_counts);
  std::copy(total.returns, total.returns + 16, result.return_counts);
  for (int k = 0; k < 3; ++k) {
    result.raw_min[k] = total.any ? double(total.raw_min[k]) : kInf;
    result.raw_max[k] = total.any ? double(total.raw_max[k]) : -kInf;
    result.min[k] = kInf, result.max[k] = -kInf;
  }
  for (const PieceKept& p : pieces) {
    for (int k = 0; k < 3; ++k) {
      if (p.min[k] < result.min[k]) result.min[k] = p.min[k];
      if (p.max[k] > result.max[k]) result.max[k] = p.max[k];
    }
  }
  double thinned[6];
  result.kept = pack(job, pieces, xyz, attributes, thinned);
  if (job.every > 1) {
    for (int k = 0; k < 3; ++k) result.min[k] = thinned[k], result.max[k] = thinned[3 + k];
  }
}

}  // namespace

extern "C" XHD_API int32_t xhd_read_las(const char* path, const xhd_las_job* job, double* positions,
                                        uint8_t* attributes, xhd_las_result* result) {
  return xhd::guarded([&] {
    if (path == nullptr || job == nullptr || result == nullptr || (positions == nullptr && job->point_count > 0))
      throw xhd::InvalidArgument("path, job, positions and result must not be null");
    *result = xhd_las_result{};
    const Job checked = checked_job(*job);
    try {
      const xhd::OpenFile file(path);
      read_body(file, checked, xhd::resolve_thread_count(job->threads), positions, attributes, *result);
    } catch (const xhd::SystemError& error) {
      *result = xhd_las_result{};
      result->kind = XHD_LAS_SYSTEM_ERROR;
      result->error_number = error.code;
    }
    return int32_t(XHD_OK);
  });
}
