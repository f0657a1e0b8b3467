#include "point_grid.h"

#include "../common/parallel.h"

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
double max_cells_for(size_t n) {
  return std::min(std::max(4.0 * static_cast<double>(n), 4096.0), 268435456.0);
}

// Smallest side (grown in 25% steps) that keeps the dense cell table within max_cells.
double respect_cell_cap(const Extent& e, double cell, double max_cells) {
  while (cells_for(e, cell) > max_cells) cell *= 1.25;
  return cell;
}

GridFrame frame_for(const Extent& e, double cell) {
  GridFrame f;
  f.cell = cell;
  f.inv_cell = 1.0 / cell;
  for (int i = 0; i < 3; ++i) f.origin[i] = e.min[i];
  dims_for(e, cell, f.dims);
  return f;
}

// Every point's cell key in a frame, and how many distinct cells they occupy (counted with a bitmap).
size_t compute_cell_keys(const float* xyz, size_t n, const GridFrame& f, int threads, LargeVector<uint32_t>& keys) {
  keys.resize(n);
  std::vector<uint64_t> bits((f.cell_count() + 63) / 64, 0);
  parallel_blocks(n, kBuildGrain, threads, [&](size_t begin, size_t end, int) {
    for (size_t p = begin; p < end; ++p) {
      const uint32_t key = f.cell_key(&xyz[3 * p]);
      keys[p] = key;
      const uint64_t m = uint64_t(1) << (key & 63);
      if ((__atomic_load_n(&bits[key >> 6], __ATOMIC_RELAXED) & m) == 0)
        __atomic_fetch_or(&bits[key >> 6], m, __ATOMIC_RELAXED);
    }
  });
  size_t occupied = 0;
  for (uint64_t w : bits) occupied += static_cast<size_t>(__builtin_popcountll(w));
  return occupied;
}

// Resolution from the data: start from the side that would give kTargetPointsPerCell if the points
// filled the box, then correct for data that fills less (surfaces, clusters) by measuring occupancy at
// two resolutions, which gives the data's local dimension, and scaling to hit the target.
// Leaves in `keys` the cell keys of the returned side, which the counting sort reuses.
double choose_cell_size(const float* xyz, size_t n, const Extent& e, int threads, LargeVector<uint32_t>& keys) {
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
  LargeVector<uint32_t> scratch;
  const double fill1 = static_cast<double>(n) / compute_cell_keys(xyz, n, frame_for(e, finer), threads, scratch);
  const double dimension = std::log(fill0 / fill1) / std::log(cell / finer);
  if (!(dimension > 0.25)) return cell;  // duplicates: refining does not spread them
  const double target = respect_cell_cap(
      e, cell * std::pow(kTargetPointsPerCell / fill0, 1.0 / std::min(dimension, 3.0)), max_cells);
  compute_cell_keys(xyz, n, frame_for(e, target), threads, keys);
  return target;
}

// Orders a crowded cell's points along a Morton curve inside the cell so its chunks are compact.
void sort_cell_spatially(LargeVector<float>& xyz, LargeVector<uint32_t>& ids, uint32_t begin, uint32_t end) {
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

// Cells and chunks are built by `parts` threads, each over a contiguous range, when the per-thread
// histograms stay small (dense grids: a few points per cell); sparse grids (surfaces, clusters) are built
// by one thread (sort_and_chunk_serial), where the histograms would outweigh the gain.
size_t build_parts(size_t n, size_t cells, int threads) {
  const bool parallel = threads > 1 && n >= 2 * kBuildGrain && static_cast<size_t>(threads) * cells <= 2 * n;
  return parallel ? static_cast<size_t>(threads) : 1;
}

// The chunks of one cell's sorted points [begin, end), handed to emit(first point, MBR) in order.
template <class Emit>
void chunk_cell(PointGrid& g, size_t begin, size_t end, Emit emit) {
  if (end - begin > kChunkPoints) sort_cell_spatially(g.xyz, g.ids, static_cast<uint32_t>(begin), static_cast<uint32_t>(end));
  for (size_t s = begin; s < end; s += kChunkPoints) {
    Box b;
    box_make_empty(b);
    for (size_t p = s, stop = std::min(end, s + kChunkPoints); p < stop; ++p) box_grow(b, &g.xyz[3 * p]);
    emit(static_cast<uint32_t>(s), b);
  }
}

// One thread: counting sort by cell, then chunks while walking the occupied cells in order, the empty
// cells in between repeating the running chunk count.
void sort_and_chunk_serial(const float* xyz, size_t n, const LargeVector<uint32_t>& keys, PointGrid& g) {
  const size_t cells = g.cell_count();
  LargeVector<uint32_t> start(cells + 1, 0);
  for (size_t p = 0; p < n; ++p) ++start[keys[p] + 1];
  for (size_t c = 0; c < cells; ++c) start[c + 1] += start[c];
  g.xyz.resize(3 * n);
  g.ids.resize(n);
  LargeVector<uint32_t> sorted_cell(n);
  {
    LargeVector<uint32_t> fill(start.begin(), start.end() - 1);
    for (size_t p = 0; p < n; ++p) {
      const uint32_t dst = fill[keys[p]]++;
      for (int i = 0; i < 3; ++i) g.xyz[3 * static_cast<size_t>(dst) + i] = xyz[3 * p + i];
      g.ids[dst] = static_cast<uint32_t>(p);
      sorted_cell[dst] = keys[p];
    }
  }

  // Chunks: each occupied cell's points in runs of at most kChunkPoints, crowded cells ordered spatially
  // first. Only occupied cells are walked; the empty ones in between just repeat the running chunk count.
  g.cell_chunks.assign(cells + 1, 0);
  g.chunk_points.clear();
  g.chunk_boxes.clear();
  g.chunk_points.reserve(n / 2 + 2);
  g.chunk_boxes.reserve(n / 2 + 1);
  size_t filled = 0;  // cell_chunks[0..filled] are final
  for (uint32_t begin = 0; begin < n;) {
    const uint32_t c = sorted_cell[begin];
    uint32_t end = begin;
    while (end < n && sorted_cell[end] == c) ++end;
    const uint32_t first_chunk = static_cast<uint32_t>(g.chunk_boxes.size());
    std::fill(g.cell_chunks.begin() + filled + 1, g.cell_chunks.begin() + c + 1, first_chunk);
    chunk_cell(g, begin, end, [&](uint32_t s, const Box& b) {
      g.chunk_points.push_back(s);
      g.chunk_boxes.push_back(b);
    });
    g.cell_chunks[c + 1] = static_cast<uint32_t>(g.chunk_boxes.size());
    filled = c + 1;
    begin = end;
  }
  std::fill(g.cell_chunks.begin() + filled + 1, g.cell_chunks.end(), static_cast<uint32_t>(g.chunk_boxes.size()));
  g.chunk_points.push_back(static_cast<uint32_t>(n));
}

// Counting sort of the points by cell key into g.xyz and g.ids; sorted_cell gets each sorted point's key.
// Stable, so the order (and every result) is the same as sort_and_chunk_serial's.
void sort_by_cell(const float* xyz, size_t n, const LargeVector<uint32_t>& keys, size_t cells, size_t parts,
                  int threads, PointGrid& g, LargeVector<uint32_t>& sorted_cell) {
  auto range = [&](size_t part) { return std::pair<size_t, size_t>(n * part / parts, n * (part + 1) / parts); };
  LargeVector<uint32_t> next(parts * cells, 0);  // per part and cell: the next free sorted position
  parallel_blocks(parts, 1, threads, [&](size_t part, size_t, int) {
    uint32_t* count = &next[part * cells];
    const auto [begin, end] = range(part);
    for (size_t p = begin; p < end; ++p) ++count[keys[p]];
  });
  uint32_t running = 0;
  for (size_t c = 0; c < cells; ++c)
    for (size_t part = 0; part < parts; ++part) {
      const uint32_t k = next[part * cells + c];
      next[part * cells + c] = running;
      running += k;
    }
  g.xyz.resize(3 * n);
  g.ids.resize(n);
  sorted_cell.resize(n);
  parallel_blocks(parts, 1, threads, [&](size_t part, size_t, int) {
    uint32_t* slot = &next[part * cells];
    const auto [begin, end] = range(part);
    for (size_t p = begin; p < end; ++p) {
      const uint32_t dst = slot[keys[p]]++;
      for (int i = 0; i < 3; ++i) g.xyz[3 * static_cast<size_t>(dst) + i] = xyz[3 * p + i];
      g.ids[dst] = static_cast<uint32_t>(p);
      sorted_cell[dst] = keys[p];
    }
  });
}

// Chunks by several threads: each takes a range of the sorted points starting at a cell boundary, counts
// its chunks, then writes them straight into the final arrays; the dense cell table is filled last.
void build_chunks(PointGrid& g, const LargeVector<uint32_t>& sorted_cell, size_t parts, int threads) {
  const size_t n = sorted_cell.size();
  std::vector<size_t> bounds(parts + 1, n);
  for (size_t part = 0; part < parts; ++part) {
    size_t b = n * part / parts;
    while (b > 0 && b < n && sorted_cell[b] == sorted_cell[b - 1]) ++b;
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
      for_each_cell_run(part, [&](size_t begin, size_t end) { count += (end - begin + kChunkPoints - 1) / kChunkPoints; });
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
  const uint32_t chunks = static_cast<uint32_t>(g.chunk_boxes.size());
  g.cell_chunks.assign(g.cell_count() + 1, 0);
  size_t filled = 0;  // cell_chunks[0..filled] are final
  for (uint32_t k = 0; k < chunks; ++k) {
    const uint32_t c = sorted_cell[g.chunk_points[k]];
    if (c + 1 > filled) std::fill(g.cell_chunks.begin() + filled + 1, g.cell_chunks.begin() + c + 1, k);
    g.cell_chunks[c + 1] = k + 1;
    filled = c + 1;
  }
  std::fill(g.cell_chunks.begin() + filled + 1, g.cell_chunks.end(), chunks);
}

// Complete binary tree over chunk MBRs, leaves in Morton order of the chunk centres.
void build_chunk_tree(const PointGrid& g) {
  Extent e;
  for (int i = 0; i < 3; ++i) {
    e.min[i] = g.origin[i];
    e.max[i] = g.origin[i] + g.dims[i] * g.cell;
  }
  const size_t chunks = g.chunk_boxes.size();
  g.leaf_slots = 1;
  while (g.leaf_slots < chunks) g.leaf_slots <<= 1;
  float scale[3];
  for (int i = 0; i < 3; ++i) {
    const double s = e.max[i] - e.min[i];
    scale[i] = s > 0 ? static_cast<float>(1023.0 / s) : 0.f;
  }
  std::vector<std::pair<uint32_t, uint32_t>> keyed(chunks);
  for (uint32_t k = 0; k < chunks; ++k) {
    const Box& b = g.chunk_boxes[k];
    unsigned q[3];
    for (int i = 0; i < 3; ++i)
      q[i] = static_cast<unsigned>((0.5f * (b.min[i] + b.max[i]) - static_cast<float>(e.min[i])) * scale[i]);
    keyed[k] = {morton3_10(std::min(q[0], 1023u), std::min(q[1], 1023u), std::min(q[2], 1023u)), k};
  }
  std::sort(keyed.begin(), keyed.end());
  g.tree.assign(2 * static_cast<size_t>(g.leaf_slots), Box{});
  g.leaf_chunk.assign(g.leaf_slots, UINT32_MAX);
  for (size_t s = 0; s < g.leaf_slots; ++s) {
    Box& leaf = g.tree[g.leaf_slots + s];
    if (s < chunks) {
      g.leaf_chunk[s] = keyed[s].second;
      leaf = g.chunk_boxes[keyed[s].second];
    } else {
      box_make_empty(leaf);
    }
  }
  for (size_t node = g.leaf_slots - 1; node >= 1; --node) {
    g.tree[node] = g.tree[2 * node];
    box_merge(g.tree[node], g.tree[2 * node + 1]);
  }
}

}  // namespace

void PointGrid::ensure_tree() const {
  std::call_once(tree_built, [this] { build_chunk_tree(*this); });
}

void build_point_grid(const float* xyz, size_t n, double cell_size, int threads, PointGrid& g) {
  const Extent e = extent_of(xyz, n, threads);
  LargeVector<uint32_t> cell_of_point;
  if (cell_size > 0) {
    static_cast<GridFrame&>(g) = frame_for(e, respect_cell_cap(e, cell_size, max_cells_for(n)));
    compute_cell_keys(xyz, n, g, threads, cell_of_point);
  } else {
    static_cast<GridFrame&>(g) = frame_for(e, choose_cell_size(xyz, n, e, threads, cell_of_point));
  }
  const int live = (g.dims[0] > 1) + (g.dims[1] > 1) + (g.dims[2] > 1);
  g.max_ring = live >= 3 ? 3 : (live == 2 ? 9 : 64);  // about 343 cells before the tree takes over

  const size_t parts = build_parts(n, g.cell_count(), threads);
  if (parts == 1) {
    sort_and_chunk_serial(xyz, n, cell_of_point, g);
    return;
  }
  LargeVector<uint32_t> sorted_cell;
  sort_by_cell(xyz, n, cell_of_point, g.cell_count(), parts, threads, g, sorted_cell);
  build_chunks(g, sorted_cell, parts, threads);
}

}  // namespace xhd
