#include "point_grid.h"

#include "../abi/host_phases.h"

#include "../abi/parallel.h"
#include "parallel_sort_by_key.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace xhd {
namespace {

// Mean points per occupied cell that the automatic resolution aims for. Measured on the bench-cpu cases:
// fewer points per cell means more cells to step through, more means more distances per query.
constexpr double kTargetPointsPerCell = 3.0;

// Points per block of the parallel build loops.
constexpr size_t kBuildGrain = 65536;

// Cells per block of the parallel loops over the dense cell table (cheap per cell).
constexpr size_t kCellGrain = size_t(1) << 18;

struct Extent {
  double min[3], max[3];
};

Extent extent_of(const float* xyz, size_t n, int threads) {
  std::vector<Extent> partial(threads);
  for (Extent& e : partial)
    for (int i = 0; i < 3; ++i) {
      e.min[i] = std::numeric_limits<double>::infinity();
      e.max[i] = -std::numeric_limits<double>::infinity();
    }
  parallel_blocks(n, kBuildGrain, threads, [&](size_t begin, size_t end, int tid) {
    Extent& e = partial[tid];
    for (size_t p = begin; p < end; ++p)
      for (int i = 0; i < 3; ++i) {
        const double v = xyz[3 * p + i];
        e.min[i] = std::min(e.min[i], v);
        e.max[i] = std::max(e.max[i], v);
      }
  });
  Extent e = partial[0];
  for (const Extent& o : partial)
    for (int i = 0; i < 3; ++i) {
      e.min[i] = std::min(e.min[i], o.min[i]);
      e.max[i] = std::max(e.max[i], o.max[i]);
    }
  return e;
}

// Cells per axis for a given side; an axis with no extent gets one cell.
void dims_for(const Extent& e, double cell, int dims[3]) {
  for (int i = 0; i < 3; ++i) {
    const double k = std::floor((e.max[i] - e.min[i]) / cell) + 1.0;
    dims[i] = static_cast<int>(std::min(k, 1.0e9));
  }
}

double cells_for(const Extent& e, double cell) {
  int d[3];
  dims_for(e, cell, d);
  return static_cast<double>(d[0]) * d[1] * d[2];
}

// The dense cell table never holds more than 4 cells per point (nor more than 2^28): memory stays
// proportional to the input, whatever cell size was asked for.
double max_cells_for(size_t n) { return std::min(std::max(4.0 * static_cast<double>(n), 4096.0), 268435456.0); }

// Smallest side (grown in 25% steps) that keeps the dense cell table within max_cells.
double respect_cell_cap(const Extent& e, double cell, double max_cells) {
  while (cells_for(e, cell) > max_cells) cell *= 1.25;
  return cell;
}

PointGridFrame frame_for(const Extent& e, double cell) {
  PointGridFrame f;
  f.cell = cell;
  f.inv_cell = 1.0 / cell;
  for (int i = 0; i < 3; ++i) f.origin[i] = e.min[i];
  dims_for(e, cell, f.dims);
  return f;
}

// Every point's cell key in a frame, and how many distinct cells they occupy (counted with a bitmap).
size_t compute_cell_keys(const float* xyz, size_t n, const PointGridFrame& f, int threads,
                         UninitLargeVector<uint32_t>& keys) {
  keys.resize(n);
  std::vector<uint64_t> bits((f.cell_count() + 63) / 64, 0);
  // One block (a mask's surface, most point sets below 2^16 points) runs on one thread: plain stores then, a third
  // faster than the atomic ones (1.2 -> 0.8 ms for 25,000 points here; the sizing calls this three times a grid).
  if (n <= kBuildGrain || threads <= 1) {
    for (size_t p = 0; p < n; ++p) {
      const uint32_t key = f.cell_key(&xyz[3 * p]);
      keys[p] = key;
      bits[key >> 6] |= uint64_t(1) << (key & 63);
    }
  } else {
    parallel_blocks(n, kBuildGrain, threads, [&](size_t begin, size_t end, int) {
      for (size_t p = begin; p < end; ++p) {
        const uint32_t key = f.cell_key(&xyz[3 * p]);
        keys[p] = key;
        const uint64_t m = uint64_t(1) << (key & 63);
        if ((__atomic_load_n(&bits[key >> 6], __ATOMIC_RELAXED) & m) == 0)
          __atomic_fetch_or(&bits[key >> 6], m, __ATOMIC_RELAXED);
      }
    });
  }
  size_t occupied = 0;
  for (uint64_t w : bits) occupied += static_cast<size_t>(__builtin_popcountll(w));
  return occupied;
}

// Resolution from the data: start from the side that would give kTargetPointsPerCell if the points
// filled the box, then correct for data that fills less (surfaces, clusters) by measuring occupancy at
// two resolutions, which gives the data's local dimension, and scaling to hit the target.
// Leaves in `keys` the cell keys of the returned side, which the sort by cell reuses.
double choose_cell_size(const float* xyz, size_t n, const Extent& e, int threads, UninitLargeVector<uint32_t>& keys) {
  double span[3], volume = 1.0, largest = 0.0;
  for (int i = 0; i < 3; ++i) {
    span[i] = e.max[i] - e.min[i];
    largest = std::max(largest, span[i]);
  }
  const double max_cells = max_cells_for(n);
  double cell = 1.0;  // every point identical: one cell
  if (largest > 0.0) {
    int live = 0;
    for (int i = 0; i < 3; ++i) {
      if (span[i] > largest * 1e-9) {
        volume *= span[i];
        ++live;
      }
    }
    cell = std::pow(volume * kTargetPointsPerCell / static_cast<double>(n), 1.0 / live);
  }
  cell = respect_cell_cap(e, cell, max_cells);
  const double fill0 = static_cast<double>(n) / compute_cell_keys(xyz, n, frame_for(e, cell), threads, keys);
  if (largest <= 0.0 || fill0 <= 2.0 * kTargetPointsPerCell) return cell;
  const double finer = respect_cell_cap(e, cell * 0.5, max_cells);
  if (finer >= cell) return cell;  // cannot refine within the cap
  UninitLargeVector<uint32_t> scratch;
  const double fill1 = static_cast<double>(n) / compute_cell_keys(xyz, n, frame_for(e, finer), threads, scratch);
  const double dimension = std::log(fill0 / fill1) / std::log(cell / finer);
  if (!(dimension > 0.25)) return cell;  // duplicates: refining does not spread them
  const double target =
      respect_cell_cap(e, cell * std::pow(kTargetPointsPerCell / fill0, 1.0 / std::min(dimension, 3.0)), max_cells);
  compute_cell_keys(xyz, n, frame_for(e, target), threads, keys);
  return target;
}

// Orders a crowded cell's points along a Morton curve inside the cell so its chunks are compact.
void sort_cell_spatially(UninitLargeVector<float>& xyz, UninitLargeVector<uint32_t>& ids, uint32_t begin,
                         uint32_t end) {
  Box box;
  box_make_empty(box);
  for (uint32_t p = begin; p < end; ++p) box_grow(box, &xyz[3 * p]);
  float scale[3];
  for (int i = 0; i < 3; ++i) {
    const float s = box.max[i] - box.min[i];
    scale[i] = s > 0.f ? 1023.f / s : 0.f;
  }
  std::vector<std::pair<uint32_t, uint32_t>> keyed;
  keyed.reserve(end - begin);
  for (uint32_t p = begin; p < end; ++p) {
    unsigned q[3];
    for (int i = 0; i < 3; ++i) q[i] = static_cast<unsigned>((xyz[3 * p + i] - box.min[i]) * scale[i]);
    keyed.emplace_back(morton3_10(q[0], q[1], q[2]), p);
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<float> tmp_xyz(3 * (end - begin));
  LargeVector<uint32_t> tmp_ids(end - begin);
  for (size_t k = 0; k < keyed.size(); ++k) {
    const uint32_t src = keyed[k].second;
    for (int i = 0; i < 3; ++i) tmp_xyz[3 * k + i] = xyz[3 * src + i];
    tmp_ids[k] = ids[src];
  }
  std::copy(tmp_xyz.begin(), tmp_xyz.end(), xyz.begin() + 3 * static_cast<size_t>(begin));
  std::copy(tmp_ids.begin(), tmp_ids.end(), ids.begin() + begin);
}

// Ranges of sorted points that build_chunks hands to threads: several per thread, taken dynamically, since
// crowded cells (sorted spatially) make some ranges far costlier than others.
size_t chunk_parts(size_t n, int threads) {
  return std::clamp<size_t>(n / kBuildGrain, 1, 8 * static_cast<size_t>(std::max(threads, 1)));
}

// The chunks of one cell's sorted points [begin, end), handed to emit(first point, MBR) in order.
template <class Emit>
void chunk_cell(PointGrid& g, size_t begin, size_t end, Emit emit) {
  if (end - begin > kChunkPoints)
    sort_cell_spatially(g.xyz, g.ids, static_cast<uint32_t>(begin), static_cast<uint32_t>(end));
  for (size_t s = begin; s < end; s += kChunkPoints) {
    Box b;
    box_make_empty(b);
    for (size_t p = s, stop = std::min(end, s + kChunkPoints); p < stop; ++p) box_grow(b, &g.xyz[3 * p]);
    emit(static_cast<uint32_t>(s), b);
  }
}

// Bits of the largest key below `count`.
int key_bits(size_t count) {
  int bits = 0;
  while (bits < 64 && (count - 1) >> bits != 0) ++bits;
  return bits;
}

// Points sorted by cell key into g.xyz and g.ids, and sorted_cell gets each sorted point's key. The sort is
// stable: within a cell the points keep their input order, whatever the thread count, so every result
// (ties going to the smallest index included) is the same for every thread count. keys is clobbered.
void sort_points_by_cell(const float* xyz, size_t n, UninitLargeVector<uint32_t>& keys, int threads, PointGrid& g,
                         UninitLargeVector<uint32_t>& sorted_cell) {
  g.xyz.resize(3 * n);
  g.ids.resize(n);
  sorted_cell.resize(n);
  float* out_xyz = g.xyz.data();
  uint32_t* out_ids = g.ids.data();
  uint32_t* out_cell = sorted_cell.data();
  parallel_sort_by_key(keys.data(), n, key_bits(g.cell_count()), threads,
                       [=](uint32_t dst, uint32_t cell, uint32_t src) {
                         for (int i = 0; i < 3; ++i)
                           out_xyz[3 * static_cast<size_t>(dst) + i] = xyz[3 * static_cast<size_t>(src) + i];
                         out_ids[dst] = src;
                         out_cell[dst] = cell;
                       });
}

// cell_chunks[c]: the first chunk of a cell >= c (the chunks of the cells below c), for every c up to
// cell_count(). By blocks of cells, each finding its first chunk by bisection and walking on from there, so
// the work is shared whether it lies in long runs of empty cells (sparse grids) or in many chunks.
void fill_cell_table(PointGrid& g, const UninitLargeVector<uint32_t>& sorted_cell, int threads) {
  const uint32_t chunks = static_cast<uint32_t>(g.chunk_boxes.size());
  const auto cell_of_chunk = [&](uint32_t k) { return sorted_cell[g.chunk_points[k]]; };
  g.cell_chunks.resize(g.cell_count() + 1);
  parallel_blocks(g.cell_count() + 1, kCellGrain, threads, [&](size_t begin, size_t end, int) {
    uint32_t lo = 0, hi = chunks;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (cell_of_chunk(mid) < begin) lo = mid + 1;
      else hi = mid;
    }
    for (size_t c = begin; c < end; ++c) {
      while (lo < chunks && cell_of_chunk(lo) < c) ++lo;
      g.cell_chunks[c] = lo;
    }
  });
}

// Chunks by several threads: each takes a range of the sorted points starting at a cell boundary, counts
// its chunks, then writes them straight into the final arrays; the dense cell table is filled last.
void build_chunks(PointGrid& g, const UninitLargeVector<uint32_t>& sorted_cell, size_t parts, int threads) {
  const size_t n = sorted_cell.size();
  std::vector<size_t> bounds(parts + 1, n);
  for (size_t part = 0; part < parts; ++part) {
    size_t b = n * part / parts;
    // On to the end of the cell it falls in, by bisection: a crowded cell may span many parts.
    if (b > 0 && b < n)
      b = std::upper_bound(sorted_cell.begin() + b, sorted_cell.end(), sorted_cell[b - 1]) - sorted_cell.begin();
    bounds[part] = std::max(b, part > 0 ? bounds[part - 1] : size_t(0));
  }
  auto for_each_cell_run = [&](size_t part, auto&& body) {
    for (size_t begin = bounds[part], end = begin; begin < bounds[part + 1]; begin = end) {
      while (end < n && sorted_cell[end] == sorted_cell[begin]) ++end;
      body(begin, end);
    }
  };
  {
    std::vector<size_t> first_chunk(parts + 1, 0);
    parallel_blocks(parts, 1, threads, [&](size_t part, size_t, int) {
      size_t count = 0;
      for_each_cell_run(part,
                        [&](size_t begin, size_t end) { count += (end - begin + kChunkPoints - 1) / kChunkPoints; });
      first_chunk[part + 1] = count;
    });
    for (size_t part = 0; part < parts; ++part) first_chunk[part + 1] += first_chunk[part];
    g.chunk_points.resize(first_chunk[parts] + 1);
    g.chunk_boxes.resize(first_chunk[parts]);
    g.chunk_points[first_chunk[parts]] = static_cast<uint32_t>(n);
    parallel_blocks(parts, 1, threads, [&](size_t part, size_t, int) {
      size_t k = first_chunk[part];
      for_each_cell_run(part, [&](size_t begin, size_t end) {
        chunk_cell(g, begin, end, [&](uint32_t s, const Box& b) {
          g.chunk_points[k] = s;
          g.chunk_boxes[k++] = b;
        });
      });
    });
  }
  fill_cell_table(g, sorted_cell, threads);
}

// Complete binary tree over chunk MBRs, leaves in Morton order of the chunk centres (equal codes in chunk
// order), built by the grid's threads: a query that needs it waits for it.
void build_chunk_tree(const PointGrid& g) {
  const int threads = g.build_threads;
  const size_t chunks = g.chunk_boxes.size();
  g.leaf_slots = 1;
  while (g.leaf_slots < chunks) g.leaf_slots <<= 1;
  float lo[3], scale[3];
  for (int i = 0; i < 3; ++i) {
    const double s = (g.origin[i] + g.dims[i] * g.cell) - g.origin[i];
    lo[i] = static_cast<float>(g.origin[i]);
    scale[i] = s > 0 ? static_cast<float>(1023.0 / s) : 0.f;
  }
  UninitLargeVector<uint32_t> morton(chunks);
  parallel_blocks(chunks, kBuildGrain, threads, [&](size_t begin, size_t end, int) {
    for (size_t k = begin; k < end; ++k) {
      const Box& b = g.chunk_boxes[k];
      unsigned q[3];
      for (int i = 0; i < 3; ++i) q[i] = static_cast<unsigned>((0.5f * (b.min[i] + b.max[i]) - lo[i]) * scale[i]);
      morton[k] = morton3_10(std::min(q[0], 1023u), std::min(q[1], 1023u), std::min(q[2], 1023u));
    }
  });
  g.tree.resize(2 * static_cast<size_t>(g.leaf_slots));
  g.tree[0] = Box{};  // unused: the heap is 1-based
  g.leaf_chunk.resize(g.leaf_slots);
  Box* leaves = g.tree.data() + g.leaf_slots;
  uint32_t* leaf_chunk = g.leaf_chunk.data();
  parallel_sort_by_key(morton.data(), chunks, 30, threads, [&](uint32_t slot, uint32_t, uint32_t chunk) {
    leaf_chunk[slot] = chunk;
    leaves[slot] = g.chunk_boxes[chunk];
  });
  parallel_blocks(g.leaf_slots - chunks, kBuildGrain, threads, [&](size_t begin, size_t end, int) {
    for (size_t s = chunks + begin; s < chunks + end; ++s) {
      leaf_chunk[s] = UINT32_MAX;
      box_make_empty(leaves[s]);
    }
  });
  // Level by level up from the leaves; the levels near the root are too small to share out.
  for (size_t first = g.leaf_slots / 2; first >= 1; first /= 2) {
    const auto merge = [&](size_t begin, size_t end, int) {
      for (size_t node = first + begin; node < first + end; ++node) {
        g.tree[node] = g.tree[2 * node];
        box_merge(g.tree[node], g.tree[2 * node + 1]);
      }
    };
    if (first >= 2 * kBuildGrain) parallel_blocks(first, kBuildGrain, threads, merge);
    else merge(0, first, 0);
  }
}

}  // namespace

void PointGrid::ensure_tree() const {
  std::call_once(tree_built, [this] { build_chunk_tree(*this); });
}

void build_point_grid(const float* xyz, size_t n, double cell_size, int threads, PointGrid& g) {
  HostPhases phases("cpu grid");
  const Extent e = extent_of(xyz, n, threads);
  phases.mark("extent");
  UninitLargeVector<uint32_t> cell_of_point;
  if (cell_size > 0) {
    static_cast<PointGridFrame&>(g) = frame_for(e, respect_cell_cap(e, cell_size, max_cells_for(n)));
    compute_cell_keys(xyz, n, g, threads, cell_of_point);
  } else {
    static_cast<PointGridFrame&>(g) = frame_for(e, choose_cell_size(xyz, n, e, threads, cell_of_point));
  }
  phases.mark("cell size and keys");
  const int live = (g.dims[0] > 1) + (g.dims[1] > 1) + (g.dims[2] > 1);
  g.max_ring = live >= 3 ? 3 : (live == 2 ? 9 : 64);  // about 343 cells before the tree takes over
  g.build_threads = threads;

  UninitLargeVector<uint32_t> sorted_cell;
  sort_points_by_cell(xyz, n, cell_of_point, threads, g, sorted_cell);
  phases.mark("sort by cell");
  cell_of_point = UninitLargeVector<uint32_t>();  // its memory back before the chunk arrays take theirs
  build_chunks(g, sorted_cell, chunk_parts(n, threads), threads);
  phases.mark("chunks");
}

}  // namespace xhd
