#include "f12_bvh.h"

#include <algorithm>
#include <vector>

#include "../abi/parallel.h"
#include "../abi/progress.h"

namespace xhd {
namespace {

using Centroid = F12Centroid;

// Nodes of at least this many triangles are split on every thread (a radix selection of the median and a
// stable partition), smaller ones on one thread each (std::nth_element). A size, never a thread count,
// decides, so the order depends on the mesh alone.
constexpr uint64_t kSharedSplit = 1 << 17;
constexpr uint64_t kSplitBlock = 1 << 15;  // the shared split's blocks (fixed: the partition is stable)
constexpr int kRadixBits = 11;             // the median's key found this many bits at a time
constexpr uint64_t kCachedSubtree = 1 << 15;  // triangles of a subtree whose centroids (16 B each) stay in cache

// The split's order as one 64-bit key: the coordinate's bits ordered as the floats are (-0 as +0, which
// compare equal), then the triangle index, as the comparator below breaks ties.
uint64_t split_key(const Centroid& c, int axis) {
  float v = c.at[axis];
  if (v == 0.0f) v = 0.0f;
  uint32_t u;
  __builtin_memcpy(&u, &v, sizeof u);
  u = (u & 0x80000000u) != 0 ? ~u : (u | 0x80000000u);
  return (static_cast<uint64_t>(u) << 32) | c.triangle;
}

int longest_axis(const float lo[3], const float hi[3]) {
  int axis = 0;
  for (int j = 1; j < 3; ++j)
    if (hi[j] - lo[j] > hi[axis] - lo[axis]) axis = j;
  return axis;
}

// Splits the run [first, last) of c, a large node's, at middle on every thread into the same run of `spare`:
// the centroids' box, then the key of rank middle - first found 11 bits at a time from per-thread histograms
// until at most kFewCandidates keys share the bits found, then among those; then a stable partition around
// that key. The halves hold exactly what std::nth_element would put there. The caller swaps the buffers once
// every node of the level is split.
constexpr uint64_t kFewCandidates = 1 << 14;

void shared_split(const UninitLargeVector<Centroid>& c, UninitLargeVector<Centroid>& spare, uint64_t first,
                  uint64_t last, uint64_t middle, int threads) {
  const uint64_t n = last - first, blocks = (n + kSplitBlock - 1) / kSplitBlock;
  auto block_end = [&](uint64_t b) { return std::min(last, first + (b + 1) * kSplitBlock); };
  std::vector<float> box(6 * blocks);
  parallel_blocks(blocks, 1, threads, [&](size_t begin, size_t end, int) {
    for (size_t b = begin; b < end; ++b) {
      float* lo = &box[6 * b];
      for (int j = 0; j < 3; ++j) lo[j] = INFINITY, lo[3 + j] = -INFINITY;
      for (uint64_t k = first + b * kSplitBlock; k < block_end(b); ++k)
        for (int j = 0; j < 3; ++j) lo[j] = std::min(lo[j], c[k].at[j]), lo[3 + j] = std::max(lo[3 + j], c[k].at[j]);
    }
  });
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint64_t b = 0; b < blocks; ++b)
    for (int j = 0; j < 3; ++j) lo[j] = std::min(lo[j], box[6 * b + j]), hi[j] = std::max(hi[j], box[6 * b + 3 + j]);
  const int axis = longest_axis(lo, hi);

  // 11 bits a pass: per-thread histograms of 2,048 counts, which cost nothing to clear; 16-bit ones were
  // 512 KiB a thread to clear per pass, per node. Two passes usually leave a few hundred keys of a million.
  const int workers = static_cast<int>(std::min<uint64_t>(std::max(threads, 1), blocks));
  std::vector<uint64_t> histogram(static_cast<size_t>(workers) << kRadixBits);
  uint64_t rank = middle - first, prefix = 0, fixed = 0;  // the bits found, and which
  for (int high = 64; high > 0;) {
    const int width = std::min(kRadixBits, high), shift = high - width;
    const uint64_t digit = (1ull << width) - 1;
    std::fill(histogram.begin(), histogram.end(), 0);
    parallel_blocks(blocks, 1, workers, [&](size_t begin, size_t end, int tid) {
      uint64_t* h = &histogram[static_cast<size_t>(tid) << kRadixBits];
      for (uint64_t k = first + begin * kSplitBlock; k < block_end(end - 1); ++k) {
        const uint64_t key = split_key(c[k], axis);
        if ((key & fixed) == prefix) ++h[(key >> shift) & digit];
      }
    });
    uint64_t in = 0;
    for (uint64_t bucket = 0;; ++bucket) {
      in = 0;
      for (int t = 0; t < workers; ++t) in += histogram[(static_cast<size_t>(t) << kRadixBits) + bucket];
      if (rank < in) {
        prefix |= bucket << shift;
        break;
      }
      rank -= in;
    }
    fixed = shift == 0 ? ~0ull : ~0ull << shift;
    high = shift;
    if (in <= kFewCandidates) break;
  }

  // One pass: each block's keys below and above the bits found, and the few that share them, which decide the
  // pivot (keys are distinct: the triangle index is in them) and then the rest of the blocks' counts.
  struct Candidate {
    uint64_t key, block;
  };
  std::vector<uint64_t> smaller(blocks + 1, 0), larger(blocks + 1, 0);
  std::vector<std::vector<Candidate>> found(workers);
  parallel_blocks(blocks, 1, workers, [&](size_t begin, size_t end, int tid) {
    for (size_t b = begin; b < end; ++b) {
      uint64_t below = 0, above = 0;
      for (uint64_t k = first + b * kSplitBlock; k < block_end(b); ++k) {
        const uint64_t key = split_key(c[k], axis), masked = key & fixed;
        below += masked < prefix;
        above += masked > prefix;
        if (masked == prefix) found[tid].push_back({key, b});
      }
      smaller[b + 1] = below, larger[b + 1] = above;
    }
  });
  std::vector<uint64_t> keys;
  for (const std::vector<Candidate>& f : found)
    for (const Candidate& x : f) keys.push_back(x.key);
  std::nth_element(keys.begin(), keys.begin() + rank, keys.end());
  const uint64_t pivot = keys[rank];
  for (const std::vector<Candidate>& f : found)
    for (const Candidate& x : f) smaller[x.block + 1] += x.key < pivot, larger[x.block + 1] += x.key > pivot;

  // Stable partition: each block's smaller keys, then the pivot, then its larger ones, in block order.
  for (uint64_t b = 0; b < blocks; ++b) smaller[b + 1] += smaller[b], larger[b + 1] += larger[b];
  parallel_blocks(blocks, 1, threads, [&](size_t begin, size_t end, int) {
    for (size_t b = begin; b < end; ++b) {
      uint64_t below = first + smaller[b], above = middle + 1 + larger[b];
      for (uint64_t k = first + b * kSplitBlock; k < block_end(b); ++k) {
        const uint64_t key = split_key(c[k], axis);
        spare[key < pivot ? below++ : (key > pivot ? above++ : middle)] = c[k];
      }
    }
  });
}

// Node i of the level split where the f12 layout puts its children's boundary, along the longest side of its
// centroids' box, on the calling thread.
void split_node(UninitLargeVector<Centroid>& c, const F12Shape& s, uint32_t level, uint64_t i) {
  const auto [first, last] = f12_node_slots(s, level, i);
  const uint64_t middle = f12_node_slots(s, level + 1, 2 * i + 1).first;
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint64_t k = first; k < last; ++k)
    for (int j = 0; j < 3; ++j) lo[j] = std::min(lo[j], c[k].at[j]), hi[j] = std::max(hi[j], c[k].at[j]);
  const int axis = longest_axis(lo, hi);
  // Ties go by triangle index, so the order is the same on every platform.
  std::nth_element(c.begin() + first, c.begin() + middle, c.begin() + last,
                   [axis](const Centroid& x, const Centroid& y) {
                     return x.at[axis] < y.at[axis] || (x.at[axis] == y.at[axis] && x.triangle < y.triangle);
                   });
}

// Node i of the level and every node below it, depth first: the subtree's run stays in the cache through all
// its levels, where a pass a level streamed the whole array (7.5M triangles: 120 MB) once a level. Each node's
// halves are the same sets either way (no two keys are equal), so the leaves are too.
void split_subtree(UninitLargeVector<Centroid>& c, const F12Shape& s, uint32_t level, uint64_t i) {
  split_node(c, s, level, i);
  if (level + 1 >= s.depth) return;
  split_subtree(c, s, level + 1, 2 * i);
  split_subtree(c, s, level + 1, 2 * i + 1);
}

// The triangles in the order of a kd-tree with the f12 tree's shape: every node's run of slots is split
// where the f12 layout puts its children's boundary, along the longest side of its centroids' box. Every
// subtree is then a compact set of triangles. (A Morton order, cut at the fixed f12 boundaries, puts
// far-apart triangles in one node wherever the curve jumps, and those nodes' boxes stay large.) Each leaf's
// triangles (1 or 2) come in index order, so the order is the same whichever way the splits ran.
UninitLargeVector<uint32_t> triangle_kd_order(const float* xyz, const uint32_t* triangles, const F12Shape& s,
                                              int threads, const Progress& progress) {
  const uint64_t count = s.triangles;
  UninitLargeVector<Centroid> c = f12_centroids(xyz, triangles, count, threads);
  UninitLargeVector<Centroid> spare(count >= kSharedSplit ? count : 0);
  for (uint32_t level = f12_split_shared_levels(c, spare, s, threads, progress); level < s.depth; ++level) {
    progress.check_cancel();
    // Enough nodes to share among the threads, or nodes that fit in a core's cache: each thread takes whole
    // subtrees, depth first.
    if ((1ull << level) >= 4ull * std::max(threads, 1) || (count >> level) <= kCachedSubtree) {
      parallel_blocks(1ull << level, 1, threads, [&](size_t begin, size_t end, int) {
        for (size_t i = begin; i < end; ++i) {
          progress.check_cancel();
          split_subtree(c, s, level, i);
        }
      });
      break;
    }
    parallel_blocks(1ull << level, 1, threads, [&](size_t begin, size_t end, int) {
      for (size_t i = begin; i < end; ++i) split_node(c, s, level, i);
    });
  }
  UninitLargeVector<uint32_t> order(count);
  const uint64_t leaves = 1ull << s.depth;
  parallel_blocks(leaves, 65536, threads, [&](size_t begin, size_t end, int) {
    for (size_t leaf = begin; leaf < end; ++leaf) {
      const uint64_t first = f12_leaf_first(s, leaf), last = f12_leaf_first(s, leaf + 1);
      for (uint64_t k = first; k < last; ++k) order[k] = c[k].triangle;
      if (last - first == 2 && order[first] > order[first + 1]) std::swap(order[first], order[first + 1]);
    }
  });
  return order;
}

}  // namespace

UninitLargeVector<F12Centroid> f12_centroids(const float* xyz, const uint32_t* triangles, uint64_t count, int threads) {
  UninitLargeVector<Centroid> c(count);  // every entry written below
  parallel_blocks(count, 65536, threads, [&](size_t begin, size_t end, int) {
    for (size_t t = begin; t < end; ++t) {
      for (int i = 0; i < 3; ++i)
        c[t].at[i] = (xyz[3ull * triangles[3 * t] + i] + xyz[3ull * triangles[3 * t + 1] + i] +
                      xyz[3ull * triangles[3 * t + 2] + i]) /
                     3.f;
      c[t].triangle = static_cast<uint32_t>(t);
    }
  });
  return c;
}

uint32_t f12_split_shared_levels(UninitLargeVector<F12Centroid>& c, UninitLargeVector<F12Centroid>& spare,
                                 const F12Shape& s, int threads, const Progress& progress) {
  const uint64_t count = s.triangles;
  uint32_t level = 0;
  for (; level < s.depth && count >> level >= kSharedSplit; ++level) {
    progress.check_cancel();  // each level partitions every triangle: at most a few hundred ms at millions
    for (uint64_t i = 0; i < (1ull << level); ++i) {  // every node of the level: each is split into spare
      const auto [first, last] = f12_node_slots(s, level, i);
      shared_split(c, spare, first, last, f12_node_slots(s, level + 1, 2 * i + 1).first, threads);
    }
    c.swap(spare);
  }
  return level;
}

void f12_split_node(UninitLargeVector<F12Centroid>& c, UninitLargeVector<F12Centroid>& spare, const F12Shape& s,
                    uint32_t level, uint64_t i, int threads) {
  const auto [first, last] = f12_node_slots(s, level, i);
  if (last - first < kSharedSplit) return split_node(c, s, level, i);
  shared_split(c, spare, first, last, f12_node_slots(s, level + 1, 2 * i + 1).first, threads);
  parallel_blocks(last - first, kSplitBlock, threads, [&](size_t begin, size_t end, int) {
    std::copy(spare.begin() + first + begin, spare.begin() + first + end, c.begin() + first + begin);
  });
}

void f12_split_subtree(UninitLargeVector<F12Centroid>& c, const F12Shape& s, uint32_t level, uint64_t i) {
  if (level < s.depth) split_subtree(c, s, level, i);
  const uint32_t shift = s.depth - level;
  for (uint64_t leaf = i << shift; leaf < (i + 1) << shift; ++leaf) {
    const uint64_t first = f12_leaf_first(s, leaf), last = f12_leaf_first(s, leaf + 1);
    if (last - first == 2 && c[first].triangle > c[first + 1].triangle) std::swap(c[first], c[first + 1]);
  }
}

F12Mesh build_f12_mesh(const float* xyz, const uint32_t* triangles, uint64_t count, int threads,
                       const Progress& progress) {
  F12Mesh m;
  m.shape = f12_shape(static_cast<uint32_t>(count));
  const UninitLargeVector<uint32_t> sorted = triangle_kd_order(xyz, triangles, m.shape, threads, progress);
  m.triangle.resize(count);
  m.corners.resize(9 * count);  // left unwritten: the threads below touch its pages first
  parallel_blocks(count, 65536, threads, [&](size_t begin, size_t end, int) {
    for (size_t s = begin; s < end; ++s) {
      m.triangle[s] = sorted[s];
      for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 3; ++i) m.corners[9 * s + 3 * k + i] = xyz[3ull * triangles[3ull * sorted[s] + k] + i];
    }
  });
  return m;
}

UninitLargeVector<Box> f12_boxes(const F12Mesh& mesh, int threads) {
  constexpr size_t kBlock = 16384;
  const F12Shape& s = mesh.shape;
  const uint64_t leaves = 1ull << s.depth, first_leaf = leaves - 1;
  const float* corners = mesh.corners.data();
  UninitLargeVector<Box> boxes(f12_node_count(s));
  parallel_blocks(leaves, kBlock, threads, [&](size_t begin, size_t end, int) {
    for (size_t i = begin; i < end; ++i) {
      Box box;
      box_make_empty(box);
      for (uint32_t slot = f12_leaf_first(s, i); slot < f12_leaf_first(s, i + 1); ++slot)
        for (int k = 0; k < 3; ++k) box_grow(box, corners + 9ull * slot + 3 * k);
      boxes[first_leaf + i] = box;
    }
  });
  for (uint32_t level = s.depth; level-- > 0;) {
    const uint64_t count = 1ull << level, first = count - 1;
    parallel_blocks(count, kBlock, count >= 2 * kBlock ? threads : 1, [&](size_t begin, size_t end, int) {
      for (size_t i = begin; i < end; ++i) {
        Box box = boxes[f12_node(level + 1, 2 * i)];
        box_merge(box, boxes[f12_node(level + 1, 2 * i + 1)]);
        boxes[first + i] = box;
      }
    });
  }
  return boxes;
}

}  // namespace xhd
