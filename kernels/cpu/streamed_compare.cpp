#include "streamed_compare.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "../abi/env_switch.h"
#include "../abi/large_buffer.h"
#include "../abi/parallel.h"
#include "../abi/per_point.h"
#include "../abi/status_guard.h"
#include "../geometry/point_frame.h"
#include "../geometry/slab_split.h"
#include "kept_bounds.h"
#include "point_file_reader.h"
#include "slab_ordered_copy.h"

namespace xhd {
namespace {

constexpr uint64_t kPieceRecords = uint64_t(1) << 20;  // records a pass over a file reads at a time
constexpr uint64_t kSampleRuns = 1024;                 // the plan's sample: runs of consecutive records
constexpr uint64_t kSampleRun = 32;                    // spread evenly over the file
constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr size_t kGatherBlock = size_t(1) << 15;       // points a thread selects at a time
constexpr uint64_t kMostSlabs = 65536;
constexpr int kCopiedSlabs = 8;  // the fewest slabs for which the inputs are copied in slab order

// A read that found a bad record: which file, and what (the record numbered in the file).
struct FileProblem {
  int file;
  xhd_read_result read;
};

// Points of one file, in the file's own type (float where x, y, z are all float32), with each one's record.
struct FilePoints {
  bool floats = false;
  UninitLargeVector<float> f;
  UninitLargeVector<double> d;
  UninitLargeVector<uint64_t> record;
  size_t count = 0;

  explicit FilePoints(bool f32 = false) : floats(f32) {}
  void allocate(size_t n) {
    if (floats) f.resize(3 * n);
    else d.resize(3 * n);
    record.resize(n);
    count = 0;
  }
  size_t capacity() const { return record.size(); }
  double coord(size_t i, int k) const { return floats ? f[3 * i + k] : d[3 * i + k]; }
  xhd_points view() const {
    return floats ? xhd_points{f.data(), count, nullptr} : xhd_points{nullptr, count, d.data()};
  }
  // Appends point i of `from` (of the same type).
  void push(const FilePoints& from, size_t i) {
    for (int k = 0; k < 3; ++k) {
      if (floats) f[3 * count + k] = from.f[3 * i + k];
      else d[3 * count + k] = from.d[3 * i + k];
    }
    record[count++] = from.record[i];
  }
};

// Bytes the plan counts per query and per target: the points, their records, the state of a query (its
// nearest so far, whether open), the open queries' compacted copy, the frame's float copies, the search's
// outputs, and for a target the grid built over it (about 40 bytes a point while it is built).
uint64_t query_bytes(int coordinate_bytes) { return 2 * uint64_t(coordinate_bytes) + 8 + 8 + 8 + 1 + 8 + 12 + 16; }
uint64_t target_bytes(int coordinate_bytes) { return uint64_t(coordinate_bytes) + 8 + 12 + 40; }

class Streamer {
 public:
  Streamer(const xhd_point_file& a, const xhd_point_file& b, const xhd_hausdorff_options& options,
           xhd_streamed& streamed, const Progress& progress)
      : files_{&a, &b},
        options_(options),
        streamed_(streamed),
        progress_(progress),
        threads_(resolve_thread_count(options.threads)),
        readers_{open_point_file(a, threads_), open_point_file(b, threads_)} {}

  void run(xhd_hausdorff_result& result) {
    plan();
    copy_in_slab_order();
    const int directions = options_.directions;
    progress_.set_total(((directions & XHD_DIRECTION_AB) ? count(0) : 0) + ((directions & XHD_DIRECTION_BA) ? count(1) : 0));
    if (directions & XHD_DIRECTION_AB) direction(0, 1, halo_ab_, result.ab);
    if (directions & XHD_DIRECTION_BA) direction(1, 0, halo_ba_, result.ba);
    streamed_.slabs = static_cast<uint32_t>(plan_.slabs());
    streamed_.peak_bytes = peak_;
  }

 private:
  uint64_t count(int file) const { return files_[file]->layout.count; }
  bool floats(int file) const { return files_[file]->layout.output == XHD_FLOAT32; }
  int coordinate_bytes(int file) const { return floats(file) ? 12 : 24; }

  // Which points of a piece a pass keeps: axis coordinates in [lo, hi] (hi itself excluded when hi_open),
  // and not in [skip_lo, skip_hi] (an annulus's inner halo; empty when skip_lo > skip_hi).
  struct Range {
    double lo, hi;
    bool hi_open = false;
    double skip_lo = kInfinity, skip_hi = -kInfinity;
  };

  // Records [first, first + n) of a file into out (allocated for at least n), as the file's reader reads them
  // (point_file_reader.h); returns what it found (their bounds).
  xhd_read_result read(int file, uint64_t first, uint64_t n, FilePoints& out) {
    void* xyz = out.floats ? static_cast<void*>(out.f.data()) : static_cast<void*>(out.d.data());
    const xhd_read_result r = readers_[file]->read(first, n, xyz);
    if (r.kind != XHD_READ_OK) throw FileProblem{file, r};
    for (uint64_t i = 0; i < n; ++i) out.record[i] = first + i;
    out.count = n;
    return r;
  }

  // Every record of a file in pieces of about kPieceRecords (whole chunks of a LAZ file), in order:
  // visit(piece, what its read found) for each. With `need`, a pass that keeps only the points of that range
  // on the plan's axis: a LAZ file's chunks known to lie outside it are not decoded again.
  template <class Visit>
  void pass(int file, Visit&& visit, const Range* need = nullptr) {
    if (need != nullptr && copies_[file] != nullptr) {
      pass_over_copy(file, visit, *need);
      return;
    }
    ++streamed_.passes;
    FilePoints piece(floats(file));
    const AxisRange range = need != nullptr ? AxisRange{plan_.axis, need->lo, need->hi} : AxisRange{};
    const bool skip = need != nullptr && skip_chunks_;
    for (uint64_t first = 0; first < count(file);) {
      progress_.check_cancel();
      if (skip) {
        const uint64_t needed = std::min(count(file), readers_[file]->next_needed(first, range));
        streamed_.skipped_records += needed - first;
        first = needed;
      }
      if (first >= count(file)) break;
      const uint64_t end = readers_[file]->piece_end(first, kPieceRecords, skip ? &range : nullptr);
      largest_piece_ = std::max(largest_piece_, end - first);
      if (piece.capacity() < end - first) piece.allocate(end - first);
      const xhd_read_result found = read(file, first, end - first, piece);
      visit(piece, found);
      first = end;
    }
  }

  // A pass that needs only `need`, over the file's slab-ordered copy: the points of the slabs that overlap
  // it, merged into record order (a superset of what it keeps, as a pass over the file gives).
  template <class Visit>
  void pass_over_copy(int file, Visit&& visit, const Range& need) {
    ++streamed_.passes;
    const int first = plan_.slab_of(need.lo), last = plan_.slab_of(need.hi);
    uint64_t read = 0;
    for (int w = first; w <= last; ++w) read += slab_counts_[file][w];
    streamed_.skipped_records += count(file) - read;
    SlabOrderedCopy::Merge merge = copies_[file]->merge(first, last, kPieceRecords / 8);
    // One piece kept for every such pass (they never nest): a fresh one each pass had its pages faulted in and
    // zeroed every time.
    if (copy_piece_ == nullptr || copy_piece_->floats != floats(file)) {
      copy_piece_ = std::make_unique<FilePoints>(floats(file));
      copy_piece_->allocate(kPieceRecords);
    }
    FilePoints& piece = *copy_piece_;
    for (;;) {
      progress_.check_cancel();
      void* xyz = piece.floats ? static_cast<void*>(piece.f.data()) : static_cast<void*>(piece.d.data());
      piece.count = merge.next(xyz, piece.record.data(), piece.capacity());
      if (piece.count == 0) break;
      visit(piece, xhd_read_result{});
    }
  }

  // Each file rewritten in slab order (slab_ordered_copy.h), in one more pass over it, so that the passes
  // that need one slab or halo read only those slabs. None where the plan has fewer than kCopiedSlabs
  // slabs, where a halo pass needs a good part of each file anyway and merging its slabs back into record
  // order (on one thread, where a file's records are read on every core) costs more than it saves (5 slabs
  // of 5M-point LAS files: 6.8-7.8 s with the copies, 5.4 s without); where XHD_STREAMED_SLAB_COPY=0
  // (1 makes them from 2 slabs on, for the tests); or where the copy cannot be made or written.
  void copy_in_slab_order() {
    const char* wanted = std::getenv("XHD_STREAMED_SLAB_COPY");
    const int fewest = wanted != nullptr && wanted[0] == '1' ? 2 : kCopiedSlabs;
    if (plan_.slabs() < fewest || (wanted != nullptr && wanted[0] == '0')) return;
    for (int file = 0; file < 2; ++file) {
      auto copy = std::make_unique<SlabOrderedCopy>(slab_counts_[file], floats(file));
      std::vector<int> slabs;
      pass(file, [&](const FilePoints& piece, const xhd_read_result&) {
        if (!copy->usable()) return;
        hold(piece.capacity() * uint64_t(coordinate_bytes(file) + 8 + sizeof(int)) + SlabOrderedCopy::kStagingBytes +
             held_by_readers());
        slabs.resize(piece.count);
        for (size_t i = 0; i < piece.count; ++i) slabs[i] = plan_.slab_of(piece.coord(i, plan_.axis));
        const void* xyz = piece.floats ? static_cast<const void*>(piece.f.data()) : static_cast<const void*>(piece.d.data());
        copy->append(xyz, piece.record.data(), slabs.data(), piece.count);
      });
      if (copy->usable() && copy->complete()) copies_[file] = std::move(copy);
    }
  }

  // What the readers hold between reads (a LAZ file's decoded chunks, a copy's merge), for the memory count.
  uint64_t held_by_readers() const {
    // A pass over a copy holds its merge's blocks: kPieceRecords / 8 points of at most 32 bytes.
    const uint64_t merging = copies_[0] != nullptr || copies_[1] != nullptr ? kPieceRecords / 8 * 32 : 0;
    return readers_[0]->held_bytes() + readers_[1]->held_bytes() + merging;
  }

  // The slabs (from a sample of runs of records spread over both files), the first halo of each direction,
  // and the memory each side may take.
  void plan() {
    const uint64_t limit = streamed_.memory_limit;
    FramedSet sample[2];
    std::vector<double> values[2];
    for (int file = 0; file < 2; ++file) {
      const uint64_t n = count(file);
      const uint64_t runs = std::min<uint64_t>(kSampleRuns, (n + kSampleRun - 1) / kSampleRun);
      FilePoints run(floats(file));
      run.allocate(kSampleRun);
      for (uint64_t r = 0; r < runs; ++r) {
        const uint64_t first = std::min(n - std::min(n, kSampleRun), r * (n / std::max<uint64_t>(runs, 1)));
        read(file, first, std::min(kSampleRun, n - first), run);
        for (size_t i = 0; i < run.count; ++i)
          for (int k = 0; k < 3; ++k) values[file].push_back(run.coord(i, k));
      }
      sample[file].truth = PointTruth{nullptr, values[file].data(), values[file].size() / 3};
      sample[file].count = values[file].size() / 3;
    }
    // A third of the memory for a chunk of a slab's queries and their state, 45 % for a tile of targets: a
    // slab's halo holds more points than the slab.
    const int cb = std::max(coordinate_bytes(0), coordinate_bytes(1));
    query_room_ = std::max<uint64_t>(1024, limit * 33 / 100 / query_bytes(cb));
    tile_room_ = std::max<uint64_t>(1024, limit * 45 / 100 / target_bytes(cb));
    PointFrame frame;
    frame.a = std::move(sample[0]);
    frame.b = std::move(sample[1]);
    halo_ab_ = halo_guess(frame.a, frame.b, static_cast<double>(count(1)));
    halo_ba_ = halo_guess(frame.b, frame.a, static_cast<double>(count(0)));
    // Slabs of about two thirds of the queries' room each (a sample's quantiles are not exact), and more until
    // every slab's halo holds no more than nine tenths of a tile by the sample's count, where more slabs can do
    // that. Where none does (a halo wider than a tile's share of the space: those slabs go query by query
    // whatever their number), the first count is kept, as more slabs only cost more passes over the files
    // (400,000 points at 8 MiB: 78 slabs took 4.7 s, 24 took 2.1-2.9 s).
    const uint64_t largest = std::max(count(0), count(1));
    uint64_t slabs = std::min<uint64_t>(kMostSlabs, std::max<uint64_t>(1, (3 * largest / 2 + query_room_ - 1) / query_room_));
    // The most points a slab's halo of `plan` holds, either direction, by the sample's count.
    const auto most_held = [&](const SlabPlan& plan) {
      double held = 0;
      for (int w = 0; w < plan.slabs(); ++w) {
        held = std::max(held, part_share(frame.b, plan, w, halo_ab_) * static_cast<double>(count(1)));
        held = std::max(held, part_share(frame.a, plan, w, halo_ba_) * static_cast<double>(count(0)));
      }
      return held;
    };
    const uint64_t first_slabs = slabs;
    bool fits = false;
    for (;;) {
      plan_ = plan_slabs(frame, static_cast<int>(slabs));
      const double held = most_held(plan_);
      fits = held <= 0.9 * static_cast<double>(tile_room_);
      if (fits || slabs >= kMostSlabs || plan_.slabs() < static_cast<int>(slabs)) break;
      // Where the halos alone hold more than a tile, no number of slabs helps: stop once more slabs gain little.
      const uint64_t more = std::min<uint64_t>(kMostSlabs, slabs * 5 / 4 + 1);
      if (most_held(plan_slabs(frame, static_cast<int>(more))) > 0.97 * held) break;
      slabs = more;
    }
    if (!fits) plan_ = plan_slabs(frame, static_cast<int>(first_slabs));
    // Every slab's queries counted, and each file's bounds taken, in one pass over each file.
    for (int file = 0; file < 2; ++file) {
      slab_counts_[file].assign(plan_.slabs(), 0);
      double* lo = file == 0 ? streamed_.min_a : streamed_.min_b;
      double* hi = file == 0 ? streamed_.max_a : streamed_.max_b;
      for (int k = 0; k < 3; ++k) {
        lo[k] = kInfinity;
        hi[k] = -kInfinity;
      }
      pass(file, [&](const FilePoints& piece, const xhd_read_result& found) {
        for (size_t i = 0; i < piece.count; ++i) ++slab_counts_[file][plan_.slab_of(piece.coord(i, plan_.axis))];
        for (int k = 0; k < 3; ++k) {
          lo[k] = js_min(lo[k], found.min[k]);
          hi[k] = js_max(hi[k], found.max[k]);
        }
      });
    }
  }

  void hold(uint64_t bytes) { peak_ = std::max(peak_, bytes); }

  // One direction, a slab at a time: the fast way (the slab's X-HD over its halo, proven for the slab by the
  // halo's gap), and where that cannot be done or proven, every query of that slab's nearest kept and proven one
  // by one. The slabs proven the fast way go first: their witness lets the slow slabs drop queries that cannot
  // be it. A far outlier or a far cluster among the queries thus costs its own slab the slow search, not the whole
  // direction.
  void direction(int source, int target, double halo, xhd_directed& out) {
    const auto start = std::chrono::steady_clock::now();
    PerPointWitness witness;
    std::vector<int> slow;
    // How many times each slab's queries were searched: the progress's total counts each query once.
    std::vector<int> searches(plan_.slabs(), 0);
    // One tile and query chunk for every slab's search: fresh ones a slab cost their pages' faults each time
    // (10-20% of a 400,000-point compare at 24 MiB).
    FilePoints queries(floats(source)), tile(floats(target));
    tile.allocate(tile_room_);
    queries.allocate(query_room_);  // every chunk holds at most this many: later allocations keep the storage
    for (int w = 0; w < plan_.slabs(); ++w) {
      const uint64_t in_slab = slab_counts_[source][w];
      if (in_slab == 0) continue;
      SlabAnswer answer = slab_search(source, target, w, halo, queries, tile, searches[w], out);
      if (answer.state == SlabState::kUnproven && wider_round_) {
        // The slab was searched but the guess was too small to prove it (sparse sets, whose HD is many
        // spacings; a sample of runs of records that each cover a corner of the space). Its largest local
        // answer bounds each of its queries' true nearest from above, so a halo a little wider than it is
        // proven by a second search (whose answers can only be smaller), unless its tile outgrows the memory.
        const double wider = std::sqrt(answer.witness.dist2) * (1.0 + std::ldexp(1.0, -10));
        if (std::isfinite(wider) && wider > halo) answer = slab_search(source, target, w, wider, queries, tile, searches[w], out);
      }
      if (answer.state == SlabState::kSettled) witness.merge(answer.witness);
      else slow.push_back(w);
    }
    if (!slow.empty()) ++streamed_.slow_directions;
    streamed_.slow_slabs += slow.size();
    const int cb = coordinate_bytes(source);
    for (const int w : slow) {
      const uint64_t in_slab = slab_counts_[source][w];
      if (searches[w]++ > 0) progress_.add_to_total(in_slab);  // searched again
      for (uint64_t skip = 0; skip < in_slab; skip += query_room_) {
        const uint64_t n = std::min(query_room_, in_slab - skip);
        hold(n * query_bytes(cb) + tile_room_ * target_bytes(coordinate_bytes(target)) +
             largest_piece_ * uint64_t(std::max(cb, coordinate_bytes(target))) + held_by_readers());
        chunk(source, target, w, skip, n, halo, witness, out);
      }
    }
    witness.write(out);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    out.query_ms = ms - out.build_ms;
  }

  // The fast way for slab w: the directed X-HD of each chunk of its queries over the target's points within the
  // halo (xhd_hausdorff: pruning, early break, the witness in double), merged by per_point.h's rule. Each
  // answer is at least its queries' true one (a part of the targets); when the slab's largest is below the
  // halo's gap, every one of its queries' nearest lay within the halo and the slab's answer is the true one
  // (slab_split.h). kNotSearched where the halo holds more targets than a tile, or none; kUnproven, with the
  // slab's largest local answer in `witness`, where the proof fails.
  enum class SlabState { kSettled, kUnproven, kNotSearched };
  struct SlabAnswer {
    SlabState state = SlabState::kNotSearched;
    PerPointWitness witness;
  };
  // `searches` counts the searches of the slab's queries that ran.
  SlabAnswer slab_search(int source, int target, int w, double halo, FilePoints& queries, FilePoints& tile, int& searches,
                         xhd_directed& out) {
    const int cb = coordinate_bytes(source), tb = coordinate_bytes(target);
    const uint64_t in_slab = slab_counts_[source][w];
    tile.count = 0;
    bool fits = true;
    const Range halo_range = halo_of(w, halo);
    pass(target, [&](const FilePoints& piece, const xhd_read_result&) {
      if (fits) fits = gather(piece, tile, halo_range);
    }, &halo_range);
    SlabAnswer answer;
    if (!fits || tile.count == 0) return answer;
    if (searches++ > 0) progress_.add_to_total(in_slab);  // searched again
    for (uint64_t skip = 0; skip < in_slab; skip += query_room_) {
      const uint64_t n = std::min(query_room_, in_slab - skip);
      hold(n * query_bytes(cb) + tile_room_ * target_bytes(tb) + largest_piece_ * uint64_t(std::max(cb, tb)) +
           held_by_readers());
      collect_queries(source, w, skip, n, queries);
      const xhd_points qa = queries.view(), tp = tile.view();
      const xhd_hausdorff_options o = one_direction();
      xhd_hausdorff_result r{};
      if (xhd_hausdorff(&qa, &tp, &o, &r, nullptr) != XHD_OK)
        throw std::runtime_error(std::string("streamed compare: ") + xhd_last_error());
      out.build_ms += r.ab.build_ms;
      out.distance_evals += r.ab.distance_evals;
      out.pruned_queries += r.ab.pruned_queries;
      out.exact_checks += r.ab.exact_checks;
      const size_t q = static_cast<size_t>(r.ab.from_index), t = static_cast<size_t>(r.ab.to_index);
      answer.witness.offer(dist2(queries, q, tile, t), static_cast<int64_t>(queries.record[q]),
                           static_cast<int64_t>(tile.record[t]));
      progress_.add(n);
    }
    answer.state = halo_settles(answer.witness.dist2, halo_gap(plan_, halo)) ? SlabState::kSettled : SlabState::kUnproven;
    return answer;
  }

  // The grid method, A -> B only, on this compare's threads and cell size: each slab's and tile's search.
  xhd_hausdorff_options one_direction() const {
    xhd_hausdorff_options o{};
    o.method = XHD_METHOD_GRID;
    o.directions = XHD_DIRECTION_AB;
    o.threads = threads_;
    o.cell_size = options_.cell_size;
    return o;
  }

  // exact_dist2's formula over the files' own values.
  static double dist2(const FilePoints& a, size_t i, const FilePoints& b, size_t j) {
    const double dx = a.coord(i, 0) - b.coord(j, 0), dy = a.coord(i, 1) - b.coord(j, 1), dz = a.coord(i, 2) - b.coord(j, 2);
    return dx * dx + dy * dy + dz * dz;
  }

  Range slab(int w) const { return Range{plan_.lo(w), plan_.hi(w), true}; }
  Range halo_of(int w, double halo) const { return Range{plan_.lo(w) - halo, plan_.hi(w) + halo}; }

  // Appends the piece's points that `range` keeps to out, in order, selected on every thread; false (out left
  // partly filled) when they do not all fit its capacity.
  bool gather(const FilePoints& piece, FilePoints& out, const Range& range) {
    const size_t n = piece.count, blocks = (n + kGatherBlock - 1) / kGatherBlock;
    std::vector<uint32_t> first(blocks + 1, 0);
    flags_.resize(n);
    parallel_blocks(n, kGatherBlock, threads_, [&](size_t begin, size_t end, int) {
      uint32_t kept = 0;
      if (piece.floats) kept = flag_points(piece.f.data(), begin, end, range);
      else kept = flag_points(piece.d.data(), begin, end, range);
      first[begin / kGatherBlock + 1] = kept;
    });
    for (size_t b = 0; b < blocks; ++b) first[b + 1] += first[b];
    if (out.count + first[blocks] > out.capacity()) return false;
    const size_t base = out.count;
    parallel_blocks(n, kGatherBlock, threads_, [&](size_t begin, size_t end, int) {
      size_t at = base + first[begin / kGatherBlock];
      for (size_t i = begin; i < end; ++i) {
        if (!flags_[i]) continue;
        for (int k = 0; k < 3; ++k) {
          if (out.floats) out.f[3 * at + k] = piece.f[3 * i + k];
          else out.d[3 * at + k] = piece.d[3 * i + k];
        }
        out.record[at++] = piece.record[i];
      }
    });
    out.count += first[blocks];
    return true;
  }

  // flags_[i] for points [begin, end): a loop without branches on the data, so that it vectorizes.
  template <class T>
  uint32_t flag_points(const T* xyz, size_t begin, size_t end, const Range& r) {
    const int axis = plan_.axis;
    uint32_t kept = 0;
    for (size_t i = begin; i < end; ++i) {
      const double x = xyz[3 * i + axis];
      const bool in = (x >= r.lo) & (r.hi_open ? x < r.hi : x <= r.hi) & !((x >= r.skip_lo) & (x <= r.skip_hi));
      flags_[i] = in;
      kept += in;
    }
    return kept;
  }

  // Queries [skip, skip + n) of slab w of the source, in record order, into queries (allocated for n).
  void collect_queries(int source, int w, uint64_t skip, uint64_t n, FilePoints& queries) {
    queries.allocate(n);
    uint64_t seen = 0;
    FilePoints slab_part(floats(source));
    const Range in_slab = slab(w);
    pass(source, [&](const FilePoints& piece, const xhd_read_result&) {
      if (queries.count == n) return;
      const uint64_t before = seen;
      // The piece's slab points (at most a piece), then the ones from position skip on.
      if (slab_part.capacity() < piece.count) slab_part.allocate(piece.count);
      slab_part.count = 0;
      gather(piece, slab_part, in_slab);
      seen += slab_part.count;
      for (size_t i = before < skip ? skip - before : 0; i < slab_part.count && queries.count < n; ++i) queries.push(slab_part, i);
    }, &in_slab);
    if (queries.count != n) throw std::runtime_error("streamed compare: a file changed while it was read");
  }

  // Queries [skip, skip + n) of slab w of the source (in record order) against the target's points.
  void chunk(int source, int target, int w, uint64_t skip, uint64_t n, double halo, PerPointWitness& witness,
             xhd_directed& out) {
    FilePoints queries(floats(source));
    collect_queries(source, w, skip, n, queries);
    std::vector<double> best(n, kInfinity);
    std::vector<int64_t> best_to(n, XHD_NO_INDEX);
    std::vector<uint8_t> open(n, 1);

    // The targets within the halo; then, for the queries it does not prove, those of a halo as wide as
    // their nearest so far (an annulus around the first); then, should rounding leave any, all the rest.
    search(target, w, -kInfinity, halo, queries, best, best_to, open, out);
    double reached = halo;
    for (int round = 0; round < 2; ++round) {
      const double gap = halo_gap(plan_, reached);
      double widest = 0;
      for (size_t q = 0; q < n; ++q) {
        if (!open[q]) continue;
        if (halo_settles(best[q], gap)) {
          open[q] = 0;
          witness.offer(best[q], static_cast<int64_t>(queries.record[q]), best_to[q]);
        }
      }
      // Those that cannot be the witness (nearer than it already, or tied with a larger index) need no more.
      uint64_t left = 0;
      for (size_t q = 0; q < n; ++q) {
        if (!open[q]) continue;
        const int64_t record = static_cast<int64_t>(queries.record[q]);
        if (best[q] < witness.dist2 || (best[q] == witness.dist2 && record > witness.from)) {
          open[q] = 0;
          ++out.pruned_queries;
        } else {
          widest = std::max(widest, best[q]);
          ++left;
        }
      }
      if (left == 0) break;
      streamed_.second_pass_queries += round == 0 ? left : 0;
      // Wide enough that the gap, its edges' rounding included, exceeds every open query's nearest so far.
      const double magnitude = std::max(std::fabs(plan_.cuts.empty() ? 0.0 : plan_.cuts.front()),
                                        std::fabs(plan_.cuts.empty() ? 0.0 : plan_.cuts.back()));
      const double wider =
          round == 0 ? std::max(reached, std::sqrt(widest)) * 1.001 + (magnitude + std::sqrt(widest)) * 0x1p-40 : kInfinity;
      search(target, w, reached, wider, queries, best, best_to, open, out);
      reached = wider;
    }
    for (size_t q = 0; q < n; ++q) {
      if (open[q]) witness.offer(best[q], static_cast<int64_t>(queries.record[q]), best_to[q]);
    }
    out.exact_checks += n;
    progress_.add(n);
  }

  // The open queries' nearest among the target's points within `outer` of slab w but not within `inner`
  // (-inf: none excluded), gathered in tiles in record order.
  void search(int target, int w, double inner, double outer, const FilePoints& queries, std::vector<double>& best,
              std::vector<int64_t>& best_to, const std::vector<uint8_t>& open, xhd_directed& out) {
    FilePoints tile(floats(target));
    tile.allocate(tile_room_);
    const bool annulus = inner > -kInfinity;
    FilePoints near(floats(target));
    Range range = halo_of(w, outer);
    if (annulus) {
      range.skip_lo = plan_.lo(w) - inner;
      range.skip_hi = plan_.hi(w) + inner;
    }
    pass(target, [&](const FilePoints& piece, const xhd_read_result&) {
      if (near.capacity() < piece.count) near.allocate(piece.count);
      near.count = 0;
      gather(piece, near, range);
      for (size_t i = 0; i < near.count; ++i) {
        tile.push(near, i);
        if (tile.count == tile.capacity()) {
          nearest_in_tile(queries, tile, best, best_to, open, out);
          tile.count = 0;
        }
      }
    }, &range);
    if (tile.count > 0) nearest_in_tile(queries, tile, best, best_to, open, out);
  }

  // Each open query's exact nearest in the tile (ties to the smallest, the tile being in record order),
  // kept where nearer than its nearest so far, or as near with a smaller record.
  void nearest_in_tile(const FilePoints& queries, const FilePoints& tile, std::vector<double>& best,
                       std::vector<int64_t>& best_to, const std::vector<uint8_t>& open, xhd_directed& out) {
    std::vector<size_t> which;
    for (size_t q = 0; q < queries.count; ++q)
      if (open[q]) which.push_back(q);
    if (which.empty()) return;
    FilePoints asked(queries.floats);
    asked.allocate(which.size());
    for (const size_t q : which) asked.push(queries, q);
    // Through xhd_points_compare, whose queries far from the tile (a far cluster's, asked of every tile of a
    // pass) are searched as islands of their own (island_compare.h) rather than in one frame stretched over them:
    // 1,000 such queries took the frames' exact searches 1.2 s a compare of 200,000 points.
    const xhd_points qa = asked.view(), tb = tile.view();
    std::vector<int64_t> nearest(which.size());
    xhd_per_point outputs{};
    outputs.nearest_ab = nearest.data();
    const xhd_hausdorff_options o = one_direction();
    xhd_hausdorff_result found{};
    if (xhd_points_compare(&qa, &tb, &o, &outputs, &found, nullptr) != XHD_OK)
      throw std::runtime_error(std::string("streamed compare: ") + xhd_last_error());
    out.build_ms += found.ab.build_ms;
    out.distance_evals += found.ab.distance_evals;
    for (size_t k = 0; k < which.size(); ++k) {
      const size_t q = which[k];
      const size_t t = static_cast<size_t>(nearest[k]);
      const double d2 = dist2(queries, q, tile, t);
      const int64_t record = static_cast<int64_t>(tile.record[t]);
      if (d2 < best[q] || (d2 == best[q] && record < best_to[q])) {
        best[q] = d2;
        best_to[q] = record;
      }
    }
  }

  const xhd_point_file* files_[2];
  const xhd_hausdorff_options& options_;
  xhd_streamed& streamed_;
  const Progress& progress_;
  int threads_;
  std::unique_ptr<PointFileReader> readers_[2];
  std::unique_ptr<SlabOrderedCopy> copies_[2];  // each file in slab order, where made
  std::unique_ptr<FilePoints> copy_piece_;       // the piece of the passes over them
  // XHD_STREAMED_SKIP=0 reads every chunk on every pass, to measure what skipping saves.
  const bool skip_chunks_ = switched_on("XHD_STREAMED_SKIP");
  // XHD_STREAMED_WIDER=0: no second round with a wider halo (straight to query by query, as before), to measure it.
  const bool wider_round_ = switched_on("XHD_STREAMED_WIDER");
  SlabPlan plan_;
  double halo_ab_ = 0, halo_ba_ = 0;
  std::vector<uint64_t> slab_counts_[2];
  uint64_t query_room_ = 0, tile_room_ = 0;
  uint64_t peak_ = 0;
  uint64_t largest_piece_ = kPieceRecords;  // the most records a pass's piece held (whole LAZ chunks can be more)
  std::vector<uint8_t> flags_;  // gather's selection of a piece
};

}  // namespace

void streamed_points_compare(const xhd_point_file& a, const xhd_point_file& b, const xhd_hausdorff_options& options,
                             xhd_streamed& streamed, const Progress& progress, xhd_hausdorff_result& result) {
  streamed.bad_file = -1;
  Streamer streamer(a, b, options, streamed, progress);
  try {
    streamer.run(result);
  } catch (const FileProblem& problem) {
    streamed.bad_file = problem.file;
    streamed.read = problem.read;
  }
}

}  // namespace xhd
