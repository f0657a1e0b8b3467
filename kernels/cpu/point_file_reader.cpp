#include "point_file_reader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../abi/validate.h"
#include "decoded_chunk_cache.h"
#include "kept_bounds.h"

namespace xhd {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// The readers' limit (src/io/build.ts MAX_COORDINATE): up to 1e15 a double still resolves 1/8.
constexpr double kLargestCoordinate = 1e15;

// Math.min and Math.max as checkChunkBounds (laz-body.ts) uses them: NaN when either is, so that header bounds
// that are not numbers refuse nothing there and here alike.
double js_min_nan(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::nan("") : js_min(a, b); }
double js_max_nan(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::nan("") : js_max(a, b); }

// A binary PLY's vertices or an uncompressed LAS body: positioned reads of the records asked for.
class RecordsReader final : public PointFileReader {
 public:
  RecordsReader(const xhd_point_file& file, int threads) : path_(file.path), layout_(file.layout) {
    layout_.threads = threads;
  }

  xhd_read_result read(uint64_t first, uint64_t n, void* xyz) override {
    xhd_ply_vertex_layout layout = layout_;
    layout.body_offset += first * layout.stride;
    layout.count = n;
    xhd_read_result r{};
    if (xhd_read_ply_vertices(path_, &layout, xyz, &r) != XHD_OK)
      throw std::runtime_error(std::string("reading a point file: ") + xhd_last_error());
    if (r.kind != XHD_READ_OK) r.record += first;
    return r;
  }

  uint64_t piece_end(uint64_t first, uint64_t most, const AxisRange*) const override {
    return std::min(layout_.count, first + most);
  }

 private:
  const char* path_;
  xhd_ply_vertex_layout layout_;
};

// A LAZ body. A chunk decodes only from its start, so a read decodes the whole chunks that hold its records
// (every core on its own chunks, xhd_read_laz) and keeps them: the plan's sample reads runs spread over the
// file in order, and a pass's pieces end at chunk ends (piece_end), so no chunk is decoded twice in a row.
// Decoded chunks also go to a temporary file (decoded_chunk_cache.h), read back by later passes instead of
// decoded again.
class LazReader final : public PointFileReader {
 public:
  LazReader(const xhd_point_file& file, int threads)
      : path_(file.path), job_(file.laz_job), check_bounds_(file.laz_check_bounds != 0) {
    if (file.layout.output != XHD_FLOAT64) throw InvalidArgument("a LAZ point file's output must be XHD_FLOAT64");
    if (job_.classes != nullptr || job_.box != nullptr || job_.returns != 0)
      throw InvalidArgument("a LAZ point file is every point of its file: its job's filters must be null");
    if (job_.point_count != file.layout.count)
      throw InvalidArgument("a LAZ point file's layout.count must be its job's point_count");
    if (job_.chunks == nullptr && job_.chunk_count > 0) throw InvalidArgument("a LAZ point file's chunks must not be null");
    firsts_.resize(job_.chunk_count + 1);
    uint64_t first = 0;
    for (uint64_t c = 0; c < job_.chunk_count; ++c) {
      const uint64_t* e = job_.chunks + 4 * c;
      if (e[3] != first || e[2] == 0 || e[2] > job_.point_count - first)
        throw InvalidArgument("a LAZ point file's chunks must be in order, each of at least one point, within point_count");
      firsts_[c] = first;
      first += e[2];
    }
    firsts_[job_.chunk_count] = first;
    extent_.assign(6 * job_.chunk_count, std::numeric_limits<double>::quiet_NaN());
    if (first != job_.point_count) throw InvalidArgument("a LAZ point file's chunks hold fewer points than point_count");
    job_.threads = threads;
    for (int k = 0; k < 6; ++k) bounds_[k] = file.laz_bounds[k];
    cache_ = std::make_unique<DecodedChunkCache>(firsts_);
  }

  xhd_read_result read(uint64_t first, uint64_t n, void* xyz) override {
    xhd_read_result r{};
    for (int k = 0; k < 3; ++k) {
      r.min[k] = kInfinity;
      r.max[k] = -kInfinity;
    }
    if (n == 0) return r;
    const uint64_t c0 = chunk_of(first), c1 = chunk_of(first + n - 1);
    if (!held_ || c0 < held_first_ || c1 > held_last_) {
      const xhd_read_result problem = decode(c0, c1);
      if (problem.kind != XHD_READ_OK) return problem;
    }
    const double* from = positions_.data() + 3 * (first - firsts_[held_first_]);
    double* out = static_cast<double*>(xyz);
    for (uint64_t i = 0; i < n; ++i) {
      for (int k = 0; k < 3; ++k) {
        const double v = from[3 * i + k];
        if (!(v <= kLargestCoordinate && v >= -kLargestCoordinate)) {
          xhd_read_result bad{};
          bad.kind = XHD_READ_BAD_VALUE;
          bad.record = first + i;
          bad.value = v;
          return bad;
        }
        out[3 * i + k] = v;
        r.min[k] = js_min(r.min[k], v);
        r.max[k] = js_max(r.max[k], v);
      }
    }
    return r;
  }

  uint64_t piece_end(uint64_t first, uint64_t most, const AxisRange* need) const override {
    const uint64_t count = job_.point_count;
    if (first >= count) return count;
    // Whole chunks from first's, up to about `most` records, stopping before one the range skips.
    uint64_t c = chunk_of(first) + 1;
    while (c < job_.chunk_count && firsts_[c] - first < most && !(need != nullptr && outside(c, *need))) ++c;
    return firsts_[c];
  }

  uint64_t next_needed(uint64_t first, const AxisRange& need) const override {
    if (first >= job_.point_count) return job_.point_count;
    uint64_t c = chunk_of(first);
    if (!outside(c, need)) return first;
    while (c < job_.chunk_count && outside(c, need)) ++c;
    return firsts_[c];
  }

  uint64_t held_bytes() const override { return positions_.capacity() * sizeof(double); }
  uint64_t chunks_decoded() const override { return chunks_decoded_; }

 private:
  // Whether chunk c is known to hold no point within `need`: its points' extent on the axis, from its decode.
  bool outside(uint64_t c, const AxisRange& need) const {
    const double lo = extent_[6 * c + need.axis], hi = extent_[6 * c + 3 + need.axis];
    return hi < need.lo || lo > need.hi;  // unknown (NaN): false
  }

  uint64_t chunk_of(uint64_t record) const {
    return static_cast<uint64_t>(std::upper_bound(firsts_.begin(), firsts_.end() - 1, record) - firsts_.begin()) - 1;
  }

  // Chunks c0 to c1 decoded into positions_; a problem as xhd_read_result gives it (chunks numbered in the file).
  xhd_read_result decode(uint64_t c0, uint64_t c1) {
    held_ = false;
    const uint64_t count = c1 - c0 + 1;
    if (cache_->holds(c0, c1)) {
      // Decoded before, when their extents were taken and checked against the header's bounds.
      positions_.resize(3 * (firsts_[c1 + 1] - firsts_[c0]));
      if (cache_->load(c0, c1, positions_.data())) {
        held_ = true;
        held_first_ = c0;
        held_last_ = c1;
        return xhd_read_result{};
      }
    }
    chunks_decoded_ += count;
    run_chunks_.resize(4 * count);
    for (uint64_t c = c0; c <= c1; ++c) {
      const uint64_t* e = job_.chunks + 4 * c;
      uint64_t* to = run_chunks_.data() + 4 * (c - c0);
      to[0] = e[0];
      to[1] = e[1];
      to[2] = e[2];
      to[3] = e[3] - firsts_[c0];
    }
    xhd_laz_job run = job_;
    run.chunks = run_chunks_.data();
    run.chunk_count = count;
    run.point_count = firsts_[c1 + 1] - firsts_[c0];
    positions_.resize(3 * run.point_count);
    raw_.resize(6 * count);
    xhd_laz_result found{};
    if (xhd_read_laz(path_, &run, positions_.data(), raw_.data(), nullptr, nullptr, &found) != XHD_OK)
      throw std::runtime_error(std::string("decoding a LAZ point file: ") + xhd_last_error());
    xhd_read_result r{};
    switch (found.kind) {
      case XHD_LAZ_OK:
        break;
      case XHD_LAZ_SYSTEM_ERROR:
        r.kind = XHD_READ_SYSTEM_ERROR;
        r.error_number = found.error_number;
        return r;
      case XHD_LAZ_UNSUPPORTED:
        throw InvalidArgument("a LAZ point file's items are not those of point formats 0-3 or 6-8");
      default:
        r.kind = XHD_READ_LAZ_CHUNK;
        r.error_number = found.kind;
        r.record = c0 + found.chunk;
        r.byte = found.byte;
        return r;
    }
    if (found.kept != run.point_count) throw std::logic_error("a LAZ read without filters kept fewer points than it read");
    // Each chunk's extent: its integer bounds scaled as its points are (the scaling is monotone, so these are
    // its decoded points' own extremes), for the bounds check and for the passes that skip chunks.
    for (uint64_t c = 0; c < count; ++c) {
      for (int k = 0; k < 3; ++k) {
        const double a = raw_[6 * c + k] * job_.scale[k] + job_.offset[k];
        const double b = raw_[6 * c + 3 + k] * job_.scale[k] + job_.offset[k];
        extent_[6 * (c0 + c) + k] = js_min_nan(a, b);
        extent_[6 * (c0 + c) + 3 + k] = js_max_nan(a, b);
      }
    }
    if (check_bounds_) {
      const xhd_read_result outside = chunk_outside_bounds(c0, count);
      if (outside.kind != XHD_READ_OK) return outside;
    }
    cache_->keep(c0, c1, positions_.data());
    held_ = true;
    held_first_ = c0;
    held_last_ = c1;
    return r;
  }

  // LAZ has no checksum: a damaged chunk decodes to points, just wrong ones, and typically far away. The
  // first decoded chunk whose extent (decode's) reaches outside the header's bounds by more than the slack,
  // as checkChunkBounds (src/io/laz-body.ts) finds it, in the same double operations.
  xhd_read_result chunk_outside_bounds(uint64_t c0, uint64_t count) const {
    xhd_read_result r{};
    for (uint64_t c = 0; c < count; ++c) {
      for (int k = 0; k < 3; ++k) {
        const double lo = bounds_[k], hi = bounds_[3 + k];
        const double slack = js_max_nan(std::fabs(job_.scale[k]), 0.01 * (hi - lo));
        const double low = extent_[6 * (c0 + c) + k], high = extent_[6 * (c0 + c) + 3 + k];
        if (low < lo - slack || high > hi + slack) {
          r.kind = XHD_READ_LAZ_OUTSIDE;
          r.record = c0 + c;
          r.byte = job_.chunks[4 * (c0 + c)];
          r.error_number = k;
          r.min[0] = low;
          r.max[0] = high;
          return r;
        }
      }
    }
    return r;
  }

  const char* path_;
  xhd_laz_job job_;
  bool check_bounds_;
  double bounds_[6];
  std::vector<uint64_t> firsts_;  // each chunk's first record, and the count after the last
  std::vector<uint64_t> run_chunks_;
  std::vector<double> positions_;  // the decoded run's points
  std::vector<double> raw_;        // its chunks' integer bounds
  std::vector<double> extent_;     // every chunk's decoded min x, y, z, max x, y, z (NaN until decoded)
  bool held_ = false;
  uint64_t held_first_ = 0, held_last_ = 0;
  std::unique_ptr<DecodedChunkCache> cache_;  // made once firsts_ is
  uint64_t chunks_decoded_ = 0;
};

}  // namespace

std::unique_ptr<PointFileReader> open_point_file(const xhd_point_file& file, int threads) {
  if (file.laz != 0) return std::make_unique<LazReader>(file, threads);
  return std::make_unique<RecordsReader>(file, threads);
}

}  // namespace xhd
