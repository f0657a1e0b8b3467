// The host half of xhd_mask_points: checks shared by every library, the CPU selection, and the release of the
// points. The selection runs in two passes over rows of voxels (a row: fixed j and k), both split into blocks of
// rows on every core: each row's points are counted, the counts summed in row order, and each row writes its points
// from its own start: the points come out in increasing linear index whatever the thread count.
#include "voxel_mask_points.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <type_traits>
#include <string>
#include <vector>

#include "../abi/owned_buffer.h"
#include "../abi/parallel.h"
#include "../abi/validate.h"
#include "voxel_select.h"

namespace xhd {

uint64_t voxel_value_bytes(int32_t value_type) {
  switch (value_type) {
    case XHD_VOXEL_U8:
    case XHD_VOXEL_I8:
      return 1;
    case XHD_VOXEL_U16:
    case XHD_VOXEL_I16:
      return 2;
    case XHD_VOXEL_U32:
    case XHD_VOXEL_I32:
    case XHD_VOXEL_F32:
      return 4;
    default:
      return 8;
  }
}

uint64_t voxel_count(const xhd_voxel_mask& mask) { return mask.dims[0] * mask.dims[1] * mask.dims[2]; }

void check_voxel_mask(const xhd_voxel_mask* mask, xhd_mask_points_result* result) {
  if (mask == nullptr || result == nullptr) throw InvalidArgument("mask and result must not be null");
  *result = xhd_mask_points_result{};
  result->device = -1;
  for (int axis = 0; axis < 3; ++axis) {
    result->bounds[axis] = INFINITY;
    result->bounds[3 + axis] = -INFINITY;
  }
  if (mask->value_type < XHD_VOXEL_U8 || mask->value_type > XHD_VOXEL_F64)
    throw InvalidArgument("unknown value_type " + std::to_string(mask->value_type));
  // 2^40 voxels (a terabyte of bytes) is far beyond any volume; the bound keeps every product below 2^63.
  constexpr uint64_t kMaxVoxels = uint64_t(1) << 40;
  uint64_t voxels = 1;
  for (int axis = 0; axis < 3; ++axis) {
    const uint64_t n = mask->dims[axis];
    if (n == 0) throw InvalidArgument("every dimension must be at least 1");
    if (n > kMaxVoxels || voxels > kMaxVoxels / n) throw InvalidArgument("the grid has more than 2^40 voxels");
    voxels *= n;
  }
  if (mask->values == nullptr) throw InvalidArgument("values must not be null");
  for (double a : mask->affine)
    if (!std::isfinite(a)) throw InvalidArgument("the affine must be finite");
  if (mask->use_label != 0 && !std::isfinite(mask->label)) throw InvalidArgument("the label must be finite");
  if (mask->surface != 0 && mask->surface != 1) throw InvalidArgument("surface must be 0 or 1");
  if (mask->threads < 0) throw InvalidArgument("threads must be >= 0");
}

namespace {

// JavaScript's Math.min and Math.max of two doubles: NaN when either is, and -0 below +0 (std::min and std::max
// would keep whichever came first for those), so the bounds are the TypeScript fold's bit for bit.
double js_min(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
double js_max(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

}  // namespace

void fill_point_bounds(xhd_mask_points_result& result, int threads) {
  std::mutex merge;
  parallel_blocks(result.count, 1 << 15, threads, [&](size_t begin, size_t end, int) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t p = begin; p < end; ++p)
      for (int axis = 0; axis < 3; ++axis) {
        const double v = result.xyz[3 * p + axis];
        lo[axis] = js_min(lo[axis], v);
        hi[axis] = js_max(hi[axis], v);
      }
    std::lock_guard<std::mutex> lock(merge);
    for (int axis = 0; axis < 3; ++axis) {
      result.bounds[axis] = js_min(result.bounds[axis], lo[axis]);
      result.bounds[3 + axis] = js_max(result.bounds[3 + axis], hi[axis]);
    }
  });
}

namespace {

// Rows a block of work holds: enough work per block to outweigh taking it, and many blocks for a balanced load.
constexpr size_t kRowsPerBlock = 64;

// xhd::is_foreground in the values' own type, as a test the compiler vectorizes: double(v) == label holds exactly
// when v equals the label converted to T where that conversion is exact (else no value of T equals it), and
// double(v) != 0 exactly when v != 0. Two kinds of test (nonzero, equal), each a plain lambda on a local value.
template <class T>
struct LabelInType {
  LabelInType(double label) {
    const double lowest = static_cast<double>(std::numeric_limits<T>::lowest());
    const double highest = static_cast<double>(std::numeric_limits<T>::max());
    exists = label >= lowest && label <= highest && static_cast<double>(static_cast<T>(label)) == label;
    value = exists ? static_cast<T>(label) : T(0);
  }
  bool exists;
  T value;
};

// Foreground voxels and points of one row (fixed j, k), branch-free so that it vectorizes: a foreground voxel is a
// point unless surface is asked for and all six neighbours are foreground; voxels on the grid's faces always are.
template <class T, class Test>
void count_row(const T* values, Test fg, uint64_t nx, uint64_t ny, uint64_t nz, uint64_t j, uint64_t k, bool surface,
               uint64_t& foreground, uint64_t& points) {
  const T* r = values + (k * ny + j) * nx;
  uint64_t fg_count = 0, inner = 0;
  for (uint64_t i = 0; i < nx; ++i) fg_count += fg(r[i]);
  foreground += fg_count;
  const bool face_row = j == 0 || k == 0 || j + 1 == ny || k + 1 == nz || nx < 3;
  if (!surface || face_row || fg_count == 0) {
    points += fg_count;
    return;
  }
  const uint64_t slice = nx * ny;
  const T *jm = r - nx, *jp = r + nx, *km = r - slice, *kp = r + slice;
  for (uint64_t i = 1; i + 1 < nx; ++i)
    inner += fg(r[i]) & fg(r[i - 1]) & fg(r[i + 1]) & fg(jm[i]) & fg(jp[i]) & fg(km[i]) & fg(kp[i]);
  points += fg_count - inner;
}

// The selection over values of one type: pass 1 counts each row's points (rows in blocks, on every core), their
// sums in row order give each row's first point, and pass 2 writes each row that has points from there.
template <class T, class Test>
void select_points(const xhd_voxel_mask& mask, const T* values, Test fg, int threads, xhd_mask_points_result& result) {
  const uint64_t nx = mask.dims[0], ny = mask.dims[1], nz = mask.dims[2];
  const uint64_t rows = ny * nz, slice = nx * ny;
  const bool surface = mask.surface != 0;

  std::vector<uint64_t> first(rows + 1, 0);  // first[row + 1]: that row's points, then the running sum
  std::atomic<uint64_t> foreground{0};
  parallel_blocks(rows, kRowsPerBlock, threads, [&](size_t begin, size_t end, int) {
    uint64_t block_foreground = 0;
    for (size_t row = begin; row < end; ++row) {
      uint64_t points = 0;
      count_row(values, fg, nx, ny, nz, row % ny, row / ny, surface, block_foreground, points);
      first[row + 1] = points;
    }
    foreground.fetch_add(block_foreground, std::memory_order_relaxed);
  });
  for (uint64_t row = 0; row < rows; ++row) first[row + 1] += first[row];
  result.foreground = foreground.load();
  result.count = first[rows];
  if (result.count == 0) return;

  OwnedBuffer out(result.count * 3 * sizeof(double));
  double* xyz = out.as<double>();
  const double* a = mask.affine;
  parallel_blocks(rows, kRowsPerBlock, threads, [&](size_t begin, size_t end, int) {
    for (size_t row = begin; row < end; ++row) {
      if (first[row + 1] == first[row]) continue;
      const uint64_t j = row % ny, k = row / ny;
      const T* r = values + row * nx;
      const bool face_row = j == 0 || k == 0 || j + 1 == ny || k + 1 == nz;
      double* p = xyz + 3 * first[row];
      const double dj = static_cast<double>(j), dk = static_cast<double>(k);
      for (uint64_t i = 0; i < nx; ++i) {
        if (!fg(r[i])) continue;
        if (surface && !face_row && i > 0 && i + 1 < nx && fg(r[i - 1]) && fg(r[i + 1]) && fg(r[i - nx]) &&
            fg(r[i + nx]) && fg(r[i - slice]) && fg(r[i + slice]))
          continue;  // all six neighbours are foreground: inside, not on the surface
        const double di = static_cast<double>(i);
        p[0] = mask_coordinate(a, 0, di, dj, dk);
        p[1] = mask_coordinate(a, 1, di, dj, dk);
        p[2] = mask_coordinate(a, 2, di, dj, dk);
        p += 3;
      }
    }
  });
  result.xyz = static_cast<double*>(out.release());
}

}  // namespace

void host_mask_points(const xhd_voxel_mask& mask, int threads, xhd_mask_points_result& result) {
  with_voxel_values(mask, [&](auto values) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(values)>>;
    if (mask.use_label == 0)
      return select_points(
          mask, values, [](T v) { return unsigned(v != T(0)); }, threads, result);
    const LabelInType<T> label(mask.label);
    if (!label.exists) {  // no value of this type equals the label: no foreground, no points
      result.foreground = result.count = 0;
      return;
    }
    const T target = label.value;
    select_points(
        mask, values, [target](T v) { return unsigned(v == target); }, threads, result);
  });
}

}  // namespace xhd

extern "C" XHD_API void xhd_mask_points_free(xhd_mask_points_result* result) {
  if (result == nullptr) return;
  std::free(result->xyz);
  result->xyz = nullptr;
}
