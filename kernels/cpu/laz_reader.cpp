// xhd_read_laz: every chunk of a LAZ file (point formats 0-3, and 6-8) read and decoded on every core, each
// thread taking the next chunk, reading it from the file itself (pread) and decoding it into raw records
// (laz_chunk_decode.h for LASzip's pointwise items, read a window at a time; laz_layered_decode.h for the
// layered items, read whole), then scaling X, Y, Z and applying the filters exactly as
// src/io/las-records.ts does, into the chunk's own slot of the positions. The kept points are packed at
// the end.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "laz_chunk_decode.h"
#include "las_records.h"
#include "laz_layered_decode.h"
#include "open_file.h"
#include "xhd.h"

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Records decoded at a time: the buffer stays in the cache, whatever a chunk's size.
constexpr uint64_t kBatch = 4096;
// Compressed bytes read at a time: a LASzip chunk of 50,000 points is about 0.2 to 1 MiB, so most chunks
// come in one read; a chunk of a whole file's points needs no buffer of its size.
constexpr uint64_t kWindowBytes = uint64_t(1) << 20;

using xhd::js_max;
using xhd::js_min;

// A chunk's or a thread's records: their counts and the kept points' bounds.
struct Tally {
  xhd::las::RecordCounts counts;
  xhd::las::KeptBounds kept;

  void merge(const Tally& o) {
    counts.merge(o.counts);
    for (int k = 0; k < 3; ++k) {
      // As mergeTally (src/io/las-records.ts) folds the chunks' tallies.
      kept.min[k] = js_min(kept.min[k], o.kept.min[k]);
      kept.max[k] = js_max(kept.max[k], o.kept.max[k]);
    }
  }
};

struct Chunk {
  uint64_t offset, bytes, points, first;
};

// The file ended inside a chunk, at `byte`.
struct FileEnded {
  uint64_t byte;
};

// A chunk's bytes read from the file a window at a time into one reused buffer, for its decoder.
class ChunkWindows : public xhd::laz::ByteSource {
 public:
  ChunkWindows(const xhd::OpenFile& file, const Chunk& chunk, uint64_t window, std::vector<uint8_t>& buffer)
      : file_(file), chunk_(chunk), window_(window), buffer_(buffer) {}

  // Reads the first window; its length.
  uint64_t first() { return load(); }

  bool more(const uint8_t*& begin, const uint8_t*& end) override {
    if (loaded_ >= chunk_.bytes) return false;
    const uint64_t n = load();
    begin = buffer_.data();
    end = begin + n;
    return true;
  }

 private:
  uint64_t load() {
    const uint64_t n = std::min(window_, chunk_.bytes - loaded_);
    if (buffer_.size() < n) buffer_.resize(n);
    const uint64_t at = chunk_.offset + loaded_;
    const uint64_t got = file_.read(buffer_.data(), n, at);
    if (got < n) {
      // The file ends where the read stopped, or before the window's start for a chunk beyond it.
      uint64_t end = at + got;
      if (got == 0) {
        try {
          end = std::min(end, file_.size());
        } catch (const xhd::SystemError&) {
        }
      }
      throw FileEnded{end};
    }
    loaded_ += n;
    return n;
  }

  const xhd::OpenFile& file_;
  const Chunk& chunk_;
  uint64_t window_;
  std::vector<uint8_t>& buffer_;
  uint64_t loaded_ = 0;
};

// The lowest-numbered chunk that failed and how; chunks above it need not be decoded.
struct Failure {
  std::mutex mutex;
  std::atomic<uint64_t> chunk{UINT64_MAX};
  int32_t kind = XHD_LAZ_OK;
  int32_t error_number = 0;
  uint64_t byte = 0;

  void set(uint64_t c, int32_t k, uint64_t at, int32_t error = 0) {
    std::lock_guard<std::mutex> lock(mutex);
    if (c >= chunk.load()) return;
    chunk.store(c);
    kind = k;
    byte = at;
    error_number = error;
  }
};

std::vector<Chunk> checked_chunks(const xhd_laz_job& job) {
  std::vector<Chunk> chunks(job.chunk_count);
  uint64_t first = 0;
  for (uint64_t c = 0; c < job.chunk_count; ++c) {
    const uint64_t* e = job.chunks + 4 * c;
    chunks[c] = Chunk{e[0], e[1], e[2], e[3]};
    if (e[3] != first || e[2] == 0 || e[1] == 0)
      throw xhd::InvalidArgument("LAZ chunks must be in order, each of at least one point and one byte");
    if (e[2] > job.point_count - first) throw xhd::InvalidArgument("LAZ chunks hold more points than point_count");
    first += e[2];
  }
  if (first != job.point_count) throw xhd::InvalidArgument("LAZ chunks hold fewer points than point_count");
  return chunks;
}

}  // namespace

extern "C" XHD_API int32_t xhd_read_laz(const char* path, const xhd_laz_job* job, double* positions, double* chunk_raw,
                                        uint8_t* records, uint8_t* attributes, xhd_laz_result* result) {
  return xhd::guarded([&] {
    if (path == nullptr || job == nullptr || result == nullptr || (positions == nullptr && job->point_count > 0) ||
        (job->chunks == nullptr && job->chunk_count > 0) || (job->items == nullptr && job->item_count > 0))
      throw xhd::InvalidArgument("path, job, positions, chunks, items and result must not be null");
    if (job->threads < 0) throw xhd::InvalidArgument("threads must be >= 0");
    if (job->returns < 0 || job->returns > 2) throw xhd::InvalidArgument("returns must be 0, 1 or 2");
    *result = xhd_laz_result{};
    Tally total;
    std::vector<xhd::laz::Item> items(job->item_count);
    uint32_t length = 0;
    for (uint32_t i = 0; i < job->item_count; ++i) {
      items[i] = xhd::laz::Item{job->items[3 * i], job->items[3 * i + 1], job->items[3 * i + 2]};
      length += items[i].size;
    }
    const bool layered = xhd::laz::decodes_layered(items.data(), job->item_count);
    if ((!layered && !xhd::laz::decodes_v2(items.data(), job->item_count)) || length != job->record_length) {
      result->kind = XHD_LAZ_UNSUPPORTED;
      return int32_t(XHD_OK);
    }
    // Layered items are formats 6-8 (extended records), pointwise ones 0-3.
    xhd::las::RecordJob record_job;
    record_job.length = job->record_length;
    for (int k = 0; k < 3; ++k) record_job.scale[k] = job->scale[k], record_job.offset[k] = job->offset[k];
    record_job.classes = job->classes;
    record_job.box = job->box;
    record_job.returns = job->returns;
    const std::vector<Chunk> chunks = checked_chunks(*job);
    std::vector<uint64_t> kept(chunks.size(), 0);
    std::vector<Tally> tallies;
    Failure failure;
    try {
      const xhd::OpenFile file(path);
      const int threads = static_cast<int>(
          std::min<uint64_t>(xhd::resolve_thread_count(job->threads), std::max<size_t>(chunks.size(), 1)));
      tallies.resize(threads);
      std::atomic<uint64_t> next{0};
      // The window holds at least the raw first record (which the decoder takes from the first window).
      const uint64_t window =
          std::max<uint64_t>(job->piece_bytes > 0 ? job->piece_bytes : kWindowBytes, job->record_length);
      xhd::WorkerPool::shared().run(threads, [&](int tid) {
        // Every thread claims chunks from one counter; a chunk above a failed one is skipped.
        std::vector<uint8_t> bytes, decoded;
        Tally& tally = tallies[tid];
        try {
          for (;;) {
            const uint64_t c = next.fetch_add(1, std::memory_order_relaxed);
            if (c >= chunks.size() || c > failure.chunk.load(std::memory_order_relaxed)) return;
            const Chunk& chunk = chunks[c];
            // Decoded a batch at a time into a small buffer (or straight into the caller's records), from
            // the chunk's bytes read a window at a time.
            Tally own;
            uint64_t kept_here = 0;
            try {
              ChunkWindows windows(file, chunk, layered ? chunk.bytes : window, bytes);
              const uint64_t first = windows.first();
              // Pointwise items decode from a window at a time; layered ones need the whole chunk (one window).
              std::unique_ptr<xhd::laz::ChunkDecoder> pointwise;
              std::unique_ptr<xhd::laz::LayeredChunkDecoder> layers;
              if (layered) {
                layers = std::make_unique<xhd::laz::LayeredChunkDecoder>(bytes.data(), first, chunk.points, items,
                                                                         job->record_length);
              } else {
                pointwise = std::make_unique<xhd::laz::ChunkDecoder>(bytes.data(), first, chunk.points, items,
                                                                     job->record_length, &windows);
              }
              for (uint64_t done = 0; done < chunk.points;) {
                const uint64_t n = std::min(kBatch, chunk.points - done);
                uint8_t* out;
                if (records != nullptr) {
                  out = records + (chunk.first + done) * job->record_length;
                } else {
                  decoded.resize(kBatch * job->record_length);
                  out = decoded.data();
                }
                if (layers) layers->next(out, n);
                else pointwise->next(out, n);
                const uint64_t at = chunk.first + kept_here;
                double* to = positions + 3 * at;
                uint8_t* attributes_to = attributes != nullptr ? attributes + 2 * at : nullptr;
                if (layered)
                  kept_here +=
                      xhd::las::decode_records<true>(out, n, record_job, to, attributes_to, own.counts, own.kept);
                else
                  kept_here +=
                      xhd::las::decode_records<false>(out, n, record_job, to, attributes_to, own.counts, own.kept);
                done += n;
              }
            } catch (const FileEnded& e) {
              failure.set(c, XHD_LAZ_TRUNCATED, e.byte);
              continue;
            } catch (const xhd::SystemError& e) {
              failure.set(c, XHD_LAZ_SYSTEM_ERROR, chunk.offset, e.code);
              continue;
            } catch (const xhd::laz::ShortChunk&) {
              failure.set(c, XHD_LAZ_SHORT_CHUNK, chunk.offset);
              continue;
            } catch (const xhd::laz::DamagedChunk&) {
              failure.set(c, XHD_LAZ_DAMAGED, chunk.offset);
              continue;
            }
            kept[c] = kept_here;
            if (chunk_raw != nullptr) {
              // A chunk holds at least one point (checked_chunks), so its raw bounds are set.
              for (int k = 0; k < 3; ++k) {
                chunk_raw[6 * c + k] = double(own.counts.raw_min[k]);
                chunk_raw[6 * c + 3 + k] = double(own.counts.raw_max[k]);
              }
            }
            tally.merge(own);
          }
        } catch (...) {
          failure.set(0, -1, 0);  // out of memory (the only other throw): reported as such below
        }
      });
    } catch (const xhd::SystemError& error) {
      result->kind = XHD_LAZ_SYSTEM_ERROR;
      result->error_number = error.code;
      return int32_t(XHD_OK);
    }
    if (failure.kind == -1) throw std::bad_alloc();
    if (failure.kind != XHD_LAZ_OK) {
      result->kind = failure.kind;
      result->chunk = failure.chunk.load();
      result->byte = failure.byte;
      result->error_number = failure.error_number;
      return int32_t(XHD_OK);
    }
    // Each chunk's kept points start at its first point's slot; packed in order, they only move down.
    uint64_t at = 0;
    for (size_t c = 0; c < chunks.size(); ++c) {
      if (at != chunks[c].first && kept[c] > 0) {
        std::memmove(positions + 3 * at, positions + 3 * chunks[c].first, 3 * kept[c] * sizeof(double));
        if (attributes != nullptr) std::memmove(attributes + 2 * at, attributes + 2 * chunks[c].first, 2 * kept[c]);
      }
      at += kept[c];
    }
    for (const Tally& t : tallies) total.merge(t);
    result->kept = at;
    std::copy(total.counts.classes, total.counts.classes + 256, result->class_counts);
    std::copy(total.counts.returns, total.counts.returns + 16, result->return_counts);
    for (int k = 0; k < 3; ++k) {
      result->raw_min[k] = total.counts.any ? double(total.counts.raw_min[k]) : kInf;
      result->raw_max[k] = total.counts.any ? double(total.counts.raw_max[k]) : -kInf;
      result->min[k] = total.kept.min[k];
      result->max[k] = total.kept.max[k];
    }
    return int32_t(XHD_OK);
  });
}
