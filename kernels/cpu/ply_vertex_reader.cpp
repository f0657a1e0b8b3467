// xhd_read_ply_vertices: a binary PLY's vertex records straight from the file into the caller's array.
// Every thread reads its own pieces of whole records with pread (no shared file position, no copy of the
// file in memory) and decodes and checks each piece while it is still in cache, so reading runs at the
// speed of the page cache and the memory rather than of one JavaScript thread. The file's own values are
// kept: float32 stays float, everything else widens exactly to double (as src/io/ply-binary.ts does). The
// same records reader serves an uncompressed LAS body (the streamed compare): its integers scaled in double.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <type_traits>
#include <vector>

#include "../abi/parallel.h"
#include "../abi/status_guard.h"
#include "open_file.h"
#include "ordered_key.h"
#include "prefault.h"
#include "xhd.h"

namespace {

using xhd::InvalidArgument;
using xhd::OpenFile;
using xhd::SystemError;

// Small enough that a piece is decoded and scanned while it is still in the core's cache, large enough
// that a pread costs far more in copying than in the call.
constexpr uint64_t kDefaultPieceBytes = uint64_t(1) << 20;

template <class T>
T load(const unsigned char* at, bool swap) {
  T value;
  if (!swap) {
    std::memcpy(&value, at, sizeof(T));
    return value;
  }
  unsigned char reversed[sizeof(T)];
  for (size_t i = 0; i < sizeof(T); ++i) reversed[i] = at[sizeof(T) - 1 - i];
  std::memcpy(&value, reversed, sizeof(T));
  return value;
}

double load_as_double(const unsigned char* at, int type, bool swap) {
  switch (type) {
    case XHD_INT8:
      return load<int8_t>(at, swap);
    case XHD_UINT8:
      return load<uint8_t>(at, swap);
    case XHD_INT16:
      return load<int16_t>(at, swap);
    case XHD_UINT16:
      return load<uint16_t>(at, swap);
    case XHD_INT32:
      return load<int32_t>(at, swap);
    case XHD_UINT32:
      return load<uint32_t>(at, swap);
    case XHD_FLOAT32:
      return load<float>(at, swap);
    default:
      return load<double>(at, swap);
  }
}

size_t type_size(int type) {
  static const size_t sizes[] = {1, 1, 2, 2, 4, 4, 4, 8};
  return sizes[type];
}

struct Layout {
  uint64_t body, count, stride, records_per_piece;
  int offset[3];
  int type[3];
  bool swap, doubles, has_z;
  bool scaled;  // value = stored * scale + add (a LAS body)
  double scale[3], add[3];

  // x, y, z stored exactly as the output holds them, back to back, in host order: read straight into it.
  bool packed() const {
    const int width = doubles ? 8 : 4;
    const int same = doubles ? XHD_FLOAT64 : XHD_FLOAT32;
    return !swap && !scaled && has_z && stride == uint64_t(3 * width) && offset[0] == 0 && offset[1] == width &&
           offset[2] == 2 * width && type[0] == same && type[1] == same && type[2] == same;
  }
};

// Decodes `n` records into out (3 values each). The loop is instantiated per common case, all three
// coordinates of one type and byte order, so that it is a plain load per value, not a switch.
template <class Out, class In, bool Swap>
void decode_uniform(const unsigned char* records, uint64_t n, const Layout& layout, Out* out) {
  const uint64_t stride = layout.stride;
  const int x = layout.offset[0], y = layout.offset[1], z = layout.offset[2];
  for (uint64_t r = 0; r < n; ++r, records += stride, out += 3) {
    out[0] = static_cast<Out>(load<In>(records + x, Swap));
    out[1] = static_cast<Out>(load<In>(records + y, Swap));
    out[2] = z >= 0 ? static_cast<Out>(load<In>(records + z, Swap)) : Out(0);
  }
}

template <class Out, class In>
void decode_uniform(const unsigned char* records, uint64_t n, const Layout& layout, Out* out) {
  if (layout.swap) decode_uniform<Out, In, true>(records, n, layout, out);
  else decode_uniform<Out, In, false>(records, n, layout, out);
}

// Mixed types (rare): one switch per value.
template <class Out>
void decode_mixed(const unsigned char* records, uint64_t n, const Layout& layout, Out* out) {
  for (uint64_t r = 0; r < n; ++r, records += layout.stride, out += 3) {
    for (int k = 0; k < 3; ++k) {
      out[k] = layout.offset[k] >= 0
                   ? static_cast<Out>(load_as_double(records + layout.offset[k], layout.type[k], layout.swap))
                   : Out(0);
    }
  }
}

// A LAS body's coordinates: each stored integer (already widened exactly) times the scale, plus the offset,
// the product rounded, then the sum, as src/io/las-records.ts computes them (the library builds with
// -ffp-contract=off: no fused multiply-add).
void apply_scale(uint64_t n, const Layout& layout, double* out) {
  for (uint64_t r = 0; r < n; ++r, out += 3)
    for (int k = 0; k < 3; ++k)
      if (layout.offset[k] >= 0) out[k] = out[k] * layout.scale[k] + layout.add[k];
}

template <class Out>
void decode(const unsigned char* records, uint64_t n, const Layout& layout, Out* out) {
  if constexpr (!std::is_same<Out, float>::value) {
    if (layout.scaled) {
      Layout as_stored = layout;
      as_stored.scaled = false;
      decode(records, n, as_stored, out);
      return apply_scale(n, layout, out);
    }
  }
  const int t = layout.type[0];
  const bool uniform = layout.type[1] == t && (!layout.has_z || layout.type[2] == t);
  if (!uniform) return decode_mixed(records, n, layout, out);
  if constexpr (std::is_same<Out, float>::value) {
    return decode_uniform<float, float>(records, n, layout, out);  // float output means float32 x, y, z
  } else {
    switch (t) {
      case XHD_INT8:
        return decode_uniform<double, int8_t>(records, n, layout, out);
      case XHD_UINT8:
        return decode_uniform<double, uint8_t>(records, n, layout, out);
      case XHD_INT16:
        return decode_uniform<double, int16_t>(records, n, layout, out);
      case XHD_UINT16:
        return decode_uniform<double, uint16_t>(records, n, layout, out);
      case XHD_INT32:
        return decode_uniform<double, int32_t>(records, n, layout, out);
      case XHD_UINT32:
        return decode_uniform<double, uint32_t>(records, n, layout, out);
      case XHD_FLOAT32:
        return decode_uniform<double, float>(records, n, layout, out);
      default:
        return decode_uniform<double, double>(records, n, layout, out);
    }
  }
}

// The largest value of type Out within 1e15 (a float rounds 1e15 to a neighbour, which could be above it).
template <class Out>
Out largest_exact() {
  Out limit = Out(xhd::kMaxAbsCoordinate);
  if (double(limit) > xhd::kMaxAbsCoordinate) limit = std::nextafter(limit, Out(0));
  return limit;
}

// The bounds of what one thread decoded, as order keys (ordered_key.h).
template <class Out>
struct KeyBounds {
  using Key = typename xhd::OrderKey<Out>::type;
  Key min[3] = {std::numeric_limits<Key>::max(), std::numeric_limits<Key>::max(), std::numeric_limits<Key>::max()};
  Key max[3] = {0, 0, 0};

  void add(const Out* xyz, uint64_t n) {
    Key lo[3] = {min[0], min[1], min[2]}, hi[3] = {max[0], max[1], max[2]};
    for (uint64_t i = 0; i < n; ++i, xyz += 3) {
      for (int k = 0; k < 3; ++k) {
        const Key key = xhd::order_key(xyz[k]);
        lo[k] = std::min(lo[k], key);
        hi[k] = std::max(hi[k], key);
      }
    }
    for (int k = 0; k < 3; ++k) min[k] = lo[k], max[k] = hi[k];
  }
  void merge(const KeyBounds& other) {
    for (int k = 0; k < 3; ++k) min[k] = std::min(min[k], other.min[k]), max[k] = std::max(max[k], other.max[k]);
  }
  // Every value within [-1e15, 1e15]: NaN and the infinities have keys outside that range.
  bool exact() const {
    const Out limit = largest_exact<Out>();
    const Key lowest = xhd::order_key(Out(-limit)), highest = xhd::order_key(limit);
    for (int k = 0; k < 3; ++k)
      if (min[k] < lowest || max[k] > highest) return false;
    return true;
  }
};

bool exact_value(double v) { return v <= xhd::kMaxAbsCoordinate && v >= -xhd::kMaxAbsCoordinate; }

// The earliest problem any thread found: pieces are read in any order, but the file's first bad record
// is the one reported, as a reader going front to back would report it.
class FirstProblem {
 public:
  void report(int kind, uint64_t record, uint64_t byte, double value) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (record >= record_) return;
    record_ = record;
    kind_ = kind;
    byte_ = byte;
    value_ = value;
    first_.store(record, std::memory_order_relaxed);
  }
  // Pieces that start after a problem already found cannot hold an earlier one.
  bool before(uint64_t record) const { return record < first_.load(std::memory_order_relaxed); }
  bool found() const { return kind_ != XHD_READ_OK; }
  void fill(xhd_read_result& result) const {
    result.kind = kind_;
    result.record = record_;
    result.byte = byte_;
    result.value = value_;
  }

 private:
  std::mutex mutex_;
  std::atomic<uint64_t> first_{UINT64_MAX};
  uint64_t record_ = UINT64_MAX, byte_ = 0;
  int kind_ = XHD_READ_OK;
  double value_ = 0;
};

template <class Out>
void read_vertices(const OpenFile& file, const Layout& layout, Out* xyz, int threads, xhd_read_result& result) {
  const bool packed = layout.packed();
  const uint64_t pieces = (layout.count + layout.records_per_piece - 1) / layout.records_per_piece;
  const int workers =
      static_cast<int>(std::min<uint64_t>(uint64_t(std::max(threads, 1)), std::max<uint64_t>(pieces, 1)));
  std::vector<KeyBounds<Out>> bounds(workers);
  std::vector<std::vector<unsigned char>> scratch(workers);
  FirstProblem problem;
  xhd::parallel_blocks(pieces, 1, workers, [&](size_t piece, size_t, int tid) {
    const uint64_t first = piece * layout.records_per_piece;
    if (!problem.before(first)) return;
    const uint64_t n = std::min(layout.records_per_piece, layout.count - first);
    const uint64_t offset = layout.body + first * layout.stride;
    Out* out = xyz + 3 * first;
    xhd::prefault_for_writing(out, 3 * n * sizeof(Out));
    uint64_t got;
    if (packed) {
      got = file.read(out, n * layout.stride, offset);
    } else {
      std::vector<unsigned char>& buffer = scratch[tid];
      if (buffer.size() < n * layout.stride) buffer.resize(n * layout.stride);
      got = file.read(buffer.data(), n * layout.stride, offset);
    }
    const uint64_t whole = got / layout.stride;  // records read entirely
    if (!packed) decode(scratch[tid].data(), whole, layout, out);
    KeyBounds<Out> piece_bounds;
    piece_bounds.add(out, whole);
    if (!piece_bounds.exact()) {
      for (uint64_t r = 0; r < whole; ++r) {
        const Out* v = out + 3 * r;
        const int bad = !exact_value(v[0]) ? 0 : !exact_value(v[1]) ? 1 : !exact_value(v[2]) ? 2 : -1;
        if (bad >= 0) {
          problem.report(XHD_READ_BAD_VALUE, first + r, offset + r * layout.stride, double(v[bad]));
          return;
        }
      }
    }
    if (whole < n) {
      problem.report(XHD_READ_TRUNCATED, first + whole, offset + got, 0);
      return;
    }
    bounds[tid].merge(piece_bounds);
  });
  if (problem.found()) return problem.fill(result);
  KeyBounds<Out> all;
  for (const KeyBounds<Out>& b : bounds) all.merge(b);
  for (int k = 0; k < 3; ++k) {
    result.min[k] = layout.count == 0 ? INFINITY : double(xhd::from_order_key<Out>(all.min[k]));
    result.max[k] = layout.count == 0 ? -INFINITY : double(xhd::from_order_key<Out>(all.max[k]));
  }
}

Layout check_layout(const xhd_ply_vertex_layout& in) {
  Layout layout{};
  if (in.stride == 0) throw InvalidArgument("stride must be positive");
  if (in.output != XHD_FLOAT32 && in.output != XHD_FLOAT64)
    throw InvalidArgument("output must be XHD_FLOAT32 or XHD_FLOAT64");
  if (in.threads < 0) throw InvalidArgument("threads must be >= 0");
  layout.has_z = in.offset[2] >= 0;
  for (int k = 0; k < 3; ++k) {
    layout.offset[k] = in.offset[k];
    layout.type[k] = in.type[k];
    if (k == 2 && !layout.has_z) continue;
    if (in.type[k] < XHD_INT8 || in.type[k] > XHD_FLOAT64) throw InvalidArgument("unknown scalar type");
    if (in.offset[k] < 0 || uint64_t(in.offset[k]) + type_size(in.type[k]) > in.stride)
      throw InvalidArgument("a coordinate lies outside its record");
    if (in.output == XHD_FLOAT32 && in.type[k] != XHD_FLOAT32)
      throw InvalidArgument("float output needs float32 coordinates");
  }
  if (in.count > UINT64_MAX / in.stride || in.body_offset > UINT64_MAX - in.count * in.stride)
    throw InvalidArgument("the records' extent overflows");
  layout.body = in.body_offset;
  layout.count = in.count;
  layout.stride = in.stride;
  layout.swap = in.swap_bytes != 0;
  layout.doubles = in.output == XHD_FLOAT64;
  for (int k = 0; k < 3; ++k) {
    layout.scale[k] = in.scale[k];
    layout.add[k] = in.add[k];
    if (in.scale[k] != 0.0) layout.scaled = true;
  }
  if (layout.scaled) {
    if (!layout.doubles) throw InvalidArgument("scaled coordinates need XHD_FLOAT64 output");
    for (int k = 0; k < 3; ++k)
      if (!std::isfinite(in.scale[k]) || !std::isfinite(in.add[k]) || (in.scale[k] == 0.0 && (k < 2 || layout.has_z)))
        throw InvalidArgument("scale and add must be finite, and scale nonzero on every axis read");
  }
  const uint64_t piece = in.piece_bytes > 0 ? in.piece_bytes : kDefaultPieceBytes;
  layout.records_per_piece = std::max<uint64_t>(1, piece / in.stride);
  return layout;
}

}  // namespace

extern "C" XHD_API int32_t xhd_read_ply_vertices(const char* path, const xhd_ply_vertex_layout* layout, void* xyz,
                                                 xhd_read_result* result) {
  return xhd::guarded([&] {
    if (path == nullptr || layout == nullptr || result == nullptr)
      throw InvalidArgument("path, layout and result must not be null");
    if (xyz == nullptr && layout->count > 0) throw InvalidArgument("xyz must not be null");
    *result = xhd_read_result{};
    const Layout checked = check_layout(*layout);
    const int threads = xhd::resolve_thread_count(layout->threads);
    try {
      const OpenFile file(path);
      if (checked.doubles) read_vertices(file, checked, static_cast<double*>(xyz), threads, *result);
      else read_vertices(file, checked, static_cast<float*>(xyz), threads, *result);
    } catch (const SystemError& error) {
      *result = xhd_read_result{};
      result->kind = XHD_READ_SYSTEM_ERROR;
      result->error_number = error.code;
    }
    return int32_t(XHD_OK);
  });
}
