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
#include "las_records.h"
#include "open_file.h"
#include "prefault.h"
#include "xhd.h"

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Small enough that a piece is decoded while still in the core's cache, large enough that a pread costs far
// more in copying than in the call.
constexpr uint64_t kDefaultPieceBytes = uint64_t(1) << 20;

using xhd::js_max;
using xhd::js_min;
using Counts = xhd::las::RecordCounts;  // one thread's tallies over every record it decoded
// One piece's kept points and their bounds; merged in file order, they give the TypeScript reader's result.
using PieceKept = xhd::las::KeptBounds;

struct Job {
  uint64_t body, count, per_piece, pieces, every;
  bool extended;
  xhd::las::RecordJob records;
};

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
  job.records.length = in.record_length;
  job.extended = in.extended != 0;
  const uint64_t piece = in.piece_bytes > 0 ? in.piece_bytes : kDefaultPieceBytes;
  job.per_piece = std::max<uint64_t>(1, piece / in.record_length);
  job.pieces = (job.count + job.per_piece - 1) / job.per_piece;
  job.every = std::max<uint64_t>(in.every, 1);
  for (int k = 0; k < 3; ++k) job.records.scale[k] = in.scale[k], job.records.offset[k] = in.offset[k];
  job.records.classes = in.classes;
  job.records.box = in.box;
  job.records.returns = in.returns;
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
    const uint64_t offset = job.body + first * job.records.length;
    std::vector<uint8_t>& buffer = scratch[tid];
    if (buffer.size() < n * job.records.length) buffer.resize(n * job.records.length);
    double* out = xyz + 3 * first;
    xhd::prefault_for_writing(out, 3 * n * sizeof(double));
    uint64_t got;
    try {
      got = file.read(buffer.data(), n * job.records.length, offset);
    } catch (const xhd::SystemError& e) {
      truncation.set(first, offset, e.code);
      return;
    }
    if (got < n * job.records.length) {
      truncation.set(first + got / job.records.length, offset + got);
      return;
    }
    uint8_t* attr = attributes == nullptr ? nullptr : attributes + 2 * first;
    if (job.extended)
      xhd::las::decode_records<true>(buffer.data(), n, job.records, out, attr, counts[tid], pieces[piece]);
    else xhd::las::decode_records<false>(buffer.data(), n, job.records, out, attr, counts[tid], pieces[piece]);
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
