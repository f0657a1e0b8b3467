#include "node_points.h"

#include <algorithm>
#include <array>
#include <vector>

#include "../abi/parallel.h"
#include "../abi/progress.h"

namespace xhd {
namespace {

using Point = std::array<float, 3>;

// One small subtree's nodes, built by one thread: each node's sorted distinct points, and its blocks (xs,
// ys, zs) in `soa` from `start[k]` (k: the node's index in the subtree, breadth first).
struct Subtree {
  std::vector<float> soa;
  std::vector<uint32_t> start, padded;
};

// A node's points (sorted, distinct) as blocks of xs, then ys, then zs, the last block padded with the first point.
void append_blocks(const Point* points, uint32_t count, Subtree& out) {
  const uint32_t padded = (count + kPointBlock - 1) / kPointBlock * kPointBlock;
  out.start.push_back(static_cast<uint32_t>(out.soa.size()));
  out.padded.push_back(padded);
  for (int k = 0; k < 3; ++k)
    for (uint32_t i = 0; i < padded; ++i) out.soa.push_back(points[i < count ? i : 0][k]);
}

void append_blocks(const std::vector<Point>& points, Subtree& out) {
  append_blocks(points.data(), static_cast<uint32_t>(points.size()), out);
}

// A subtree's sorted distinct points, level by level: each level's nodes' lists one after another, and where
// each ends. One thread reuses it for every subtree it builds: a vector a node was 15M allocations for a
// 7.5M-triangle mesh, and the node points' 0.63-0.83 s of its build on an H200 host (16 threads).
struct SubtreeLists {
  std::vector<std::vector<Point>> points;
  std::vector<std::vector<uint32_t>> ends;
};

// The subtree under `root` (a node of the first level with points, by its index there), `levels` deep: leaves from
// their corners, each parent from its children's sorted lists (a merge).
Subtree build_subtree(const F12Mesh& mesh, uint64_t root, uint32_t levels, SubtreeLists& lists) {
  const F12Shape& s = mesh.shape;
  lists.points.resize(levels + 1);
  lists.ends.resize(levels + 1);
  uint64_t values = 0;
  for (uint32_t k = levels + 1; k-- > 0;) {
    std::vector<Point>& p = lists.points[k];
    std::vector<uint32_t>& ends = lists.ends[k];
    p.clear();
    ends.clear();
    const uint64_t count = 1ull << k, first = root << k;
    for (uint64_t i = 0; i < count; ++i) {
      const size_t begin = p.size();
      if (k == levels) {
        const uint64_t leaf = first + i;
        for (uint32_t slot = f12_leaf_first(s, leaf); slot < f12_leaf_first(s, leaf + 1); ++slot)
          for (int c = 0; c < 3; ++c) {
            const float* v = mesh.corners.data() + 9ull * slot + 3 * c;
            p.push_back({v[0], v[1], v[2]});
          }
        std::sort(p.begin() + begin, p.end());
      } else {
        const std::vector<Point>& below = lists.points[k + 1];
        const std::vector<uint32_t>& at = lists.ends[k + 1];
        const uint32_t l0 = i == 0 ? 0 : at[2 * i - 1], l1 = at[2 * i], r1 = at[2 * i + 1];
        p.resize(begin + (r1 - l0));
        std::merge(below.begin() + l0, below.begin() + l1, below.begin() + l1, below.begin() + r1, p.begin() + begin);
      }
      p.erase(std::unique(p.begin() + begin, p.end()), p.end());
      ends.push_back(static_cast<uint32_t>(p.size()));
      values += 3 * ((p.size() - begin + kPointBlock - 1) / kPointBlock * kPointBlock);
    }
  }
  Subtree out;
  out.soa.reserve(values);
  out.start.reserve((2ull << levels) - 1);
  out.padded.reserve((2ull << levels) - 1);
  for (uint32_t k = 0; k <= levels; ++k)
    for (uint32_t i = 0, begin = 0; i < lists.ends[k].size(); begin = lists.ends[k][i++])
      append_blocks(lists.points[k].data() + begin, lists.ends[k][i] - begin, out);
  return out;
}

}  // namespace

uint32_t node_points_first_level(const F12Shape& s, uint32_t max_triangles) {
  // A node `up` levels above the leaves holds at most 2^(up+1) triangles (leaves hold 1 or 2).
  uint32_t up = 0;
  while (up < s.depth && (2ull << (up + 1)) <= max_triangles) ++up;
  return (2ull << up) > max_triangles ? UINT32_MAX : s.depth - up;
}

std::vector<float> node_point_blocks(const F12Mesh& mesh, uint64_t node) {
  const F12Slots slots = f12_node_slots(mesh.shape, node);
  std::vector<Point> p;
  for (uint32_t slot = slots.first; slot < slots.last; ++slot)
    for (int c = 0; c < 3; ++c) {
      const float* v = mesh.corners.data() + 9ull * slot + 3 * c;
      p.push_back({v[0], v[1], v[2]});
    }
  // The same set as the merges of build_subtree: every corner below the node, sorted, each once.
  std::sort(p.begin(), p.end());
  p.erase(std::unique(p.begin(), p.end()), p.end());
  Subtree one;
  append_blocks(p, one);
  return std::move(one.soa);
}

namespace {

// A node's corners with repeats dropped by a hash table of their bits, in the order first seen, padded to
// blocks: for scans of extremes, the same set as node_point_blocks without its sort (each corner costs a hash
// probe instead of a dozen comparisons). -0 and +0 may both be kept, which changes no extreme.
std::vector<float> distinct_corner_blocks(const F12Mesh& mesh, uint64_t node, std::vector<uint32_t>& table) {
  const F12Slots slots = f12_node_slots(mesh.shape, node);
  const uint64_t first = 3ull * slots.first, last = 3ull * slots.last;
  uint64_t size = 16;
  while (size < 2 * (last - first)) size *= 2;
  table.assign(size, UINT32_MAX);
  const float* c = mesh.corners.data();
  std::vector<Point> p;
  for (uint64_t v = first; v < last; ++v) {
    uint32_t bits[3];
    __builtin_memcpy(bits, c + 3 * v, sizeof bits);
    uint64_t h =
        (bits[0] * 0x9E3779B97F4A7C15ull) ^ (bits[1] * 0xC2B2AE3D27D4EB4Full) ^ (bits[2] * 0x165667B19E3779F9ull);
    h = (h ^ (h >> 29)) & (size - 1);
    for (;; h = (h + 1) & (size - 1)) {
      if (table[h] == UINT32_MAX) {
        table[h] = static_cast<uint32_t>(p.size());
        p.push_back({c[3 * v], c[3 * v + 1], c[3 * v + 2]});
        break;
      }
      if (__builtin_memcmp(p[table[h]].data(), c + 3 * v, sizeof bits) == 0) break;
    }
  }
  Subtree one;
  append_blocks(p, one);
  return std::move(one.soa);
}

}  // namespace

NodePoints build_level_points(const F12Mesh& mesh, uint32_t level, int threads) {
  const uint64_t count = 1ull << level, first_node = count - 1;
  std::vector<std::vector<float>> blocks(count);
  parallel_blocks(count, 16, threads, [&](size_t begin, size_t end, int) {
    std::vector<uint32_t> table;
    for (size_t i = begin; i < end; ++i) blocks[i] = distinct_corner_blocks(mesh, first_node + i, table);
  });
  NodePoints out;
  out.first_level = level;
  out.start = UninitLargeVector<const float*>(count);
  out.padded = UninitLargeVector<uint32_t>(count);
  for (uint64_t i = 0; i < count; ++i) {
    out.start[i] = blocks[i].data();
    out.padded[i] = static_cast<uint32_t>(blocks[i].size() / 3);
  }
  out.storage = std::move(blocks);  // moving the vectors keeps their data where start points
  return out;
}

NodePoints build_node_points(const F12Mesh& mesh, uint32_t max_triangles, int threads, const Progress& progress) {
  const F12Shape& s = mesh.shape;
  NodePoints out;
  out.first_level = node_points_first_level(s, max_triangles);
  if (out.first_level == UINT32_MAX) return out;
  const uint32_t up = s.depth - out.first_level;
  const uint64_t roots = 1ull << out.first_level;
  std::vector<Subtree> parts(roots);
  parallel_blocks(roots, 64, threads, [&](size_t begin, size_t end, int) {
    progress.check_cancel();
    SubtreeLists lists;
    for (size_t r = begin; r < end; ++r) parts[r] = build_subtree(mesh, r, up, lists);
  });
  const uint64_t nodes = (2ull << s.depth) - roots;
  out.start = UninitLargeVector<const float*>(nodes);
  out.padded = UninitLargeVector<uint32_t>(nodes);
  out.storage.resize(roots);
  parallel_blocks(roots, 64, threads, [&](size_t begin, size_t end, int) {
    for (size_t r = begin; r < end; ++r) {
      Subtree& p = parts[r];
      out.storage[r] = std::move(p.soa);  // the vector's data stays where the subtree's builder wrote it
      const float* soa = out.storage[r].data();
      uint32_t k = 0;
      for (uint32_t depth = 0; depth <= up; ++depth)
        for (uint64_t i = 0; i < (1ull << depth); ++i, ++k) {
          const uint64_t node = f12_node(out.first_level + depth, (static_cast<uint64_t>(r) << depth) + i);
          out.start[out.index(static_cast<uint32_t>(node))] = soa + p.start[k];
          out.padded[out.index(static_cast<uint32_t>(node))] = p.padded[k];
        }
    }
  });
  return out;
}

}  // namespace xhd
