#include "f12_bvh.h"

#include <algorithm>
#include <cmath>
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

// A run's centroids' box (min, then max, per axis).
struct CentroidBox {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};

  void add(const Centroid& x) {
    for (int j = 0; j < 3; ++j) lo[j] = std::min(lo[j], x.at[j]), hi[j] = std::max(hi[j], x.at[j]);
  }
  void add(const CentroidBox& o) {
    for (int j = 0; j < 3; ++j) lo[j] = std::min(lo[j], o.lo[j]), hi[j] = std::max(hi[j], o.hi[j]);
  }
};

// Splits the run [first, last) of c, a large node's, at middle on every thread into the same run of `spare`:
// the key of rank middle - first (split_key along the longest side of the centroids' box), then a stable
// partition around it. The halves hold exactly what std::nth_element would put there. The caller swaps the
// buffers once every node of the level is split.
//
// The key: the keys between two of a strided sample's, chosen 8 standard deviations of the sample's rank either
// side of the rank sought, are counted below, above and between in one pass, and the rank is then among the
// few between (one pass where 11-bit histograms took two or three; when it is not, they run). box (may be null):
// the run's centroids' box, known from its parent's partition; halves (may be null) receives the two halves'.
constexpr uint64_t kFewCandidates = 1 << 14;  // the histograms stop once at most this many keys share the bits found
constexpr uint64_t kSampleMax = 1 << 16;

class SharedSplit {
 public:
  SharedSplit(const UninitLargeVector<Centroid>& c, uint64_t first, uint64_t last, int threads)
      : c_(c), first_(first), last_(last), blocks_((last - first + kSplitBlock - 1) / kSplitBlock),
        threads_(threads), workers_(static_cast<int>(std::min<uint64_t>(std::max(threads, 1), blocks_))),
        smaller_(blocks_ + 1), larger_(blocks_ + 1) {}

  void run(UninitLargeVector<Centroid>& spare, uint64_t middle, const CentroidBox* box, CentroidBox* halves) {
    const CentroidBox whole = box != nullptr ? *box : centroid_box();
    axis_ = longest_axis(whole.lo, whole.hi);
    const uint64_t rank = middle - first_;
    uint64_t lo, hi;
    if (!(sampled_bracket(rank, lo, hi) && count_around(lo, hi, rank))) {
      radix_bracket(rank, lo, hi);
      count_around(lo, hi, rank);
    }
    partition(spare, middle, halves);
  }

 private:
  uint64_t block_end(uint64_t b) const { return std::min(last_, first_ + (b + 1) * kSplitBlock); }
  uint64_t key(uint64_t k) const { return split_key(c_[k], axis_); }

  CentroidBox centroid_box() const {
    std::vector<CentroidBox> part(blocks_);
    parallel_blocks(blocks_, 1, threads_, [&](size_t begin, size_t end, int) {
      for (size_t b = begin; b < end; ++b)
        for (uint64_t k = first_ + b * kSplitBlock; k < block_end(b); ++k) part[b].add(c_[k]);
    });
    CentroidBox box;
    for (const CentroidBox& p : part) box.add(p);
    return box;
  }

  // Keys lo <= hi from a strided sample, 8 standard deviations (of the sample rank of the key sought: at most
  // half the sample's square root) either side of where the key sought falls in it.
  bool sampled_bracket(uint64_t rank, uint64_t& lo, uint64_t& hi) const {
    const uint64_t n = last_ - first_, size = std::min(kSampleMax, n / 16);
    if (size < 1024) return false;
    const uint64_t stride = n / size;
    std::vector<uint64_t> sample(size);
    parallel_blocks(size, 4096, threads_, [&](size_t begin, size_t end, int) {
      for (size_t k = begin; k < end; ++k) sample[k] = key(first_ + k * stride);
    });
    const uint64_t at = rank * size / n, margin = 4 * static_cast<uint64_t>(std::sqrt(static_cast<double>(size)));
    lo = 0, hi = UINT64_MAX;
    if (at >= margin) {
      std::nth_element(sample.begin(), sample.begin() + (at - margin), sample.end());
      lo = sample[at - margin];
    }
    if (at + margin < size) {
      const auto from = at >= margin ? sample.begin() + (at - margin) : sample.begin();
      std::nth_element(from, sample.begin() + (at + margin), sample.end());
      hi = sample[at + margin];
    }
    return true;
  }

  // The bits of the key sought, 11 at a time from per-thread histograms, until at most kFewCandidates keys
  // share them: the keys from lo to hi. 11 bits a pass: per-thread histograms of 2,048 counts, which cost
  // nothing to clear; 16-bit ones were 512 KiB a thread to clear per pass, per node.
  void radix_bracket(uint64_t rank, uint64_t& lo, uint64_t& hi) const {
    std::vector<uint64_t> histogram(static_cast<size_t>(workers_) << kRadixBits);
    uint64_t prefix = 0, fixed = 0;  // the bits found, and which
    for (int high = 64; high > 0;) {
      const int width = std::min(kRadixBits, high), shift = high - width;
      const uint64_t digit = (1ull << width) - 1;
      std::fill(histogram.begin(), histogram.end(), 0);
      parallel_blocks(blocks_, 1, workers_, [&](size_t begin, size_t end, int tid) {
        uint64_t* h = &histogram[static_cast<size_t>(tid) << kRadixBits];
        for (uint64_t k = first_ + begin * kSplitBlock; k < block_end(end - 1); ++k) {
          const uint64_t x = key(k);
          if ((x & fixed) == prefix) ++h[(x >> shift) & digit];
        }
      });
      uint64_t in = 0;
      for (uint64_t bucket = 0;; ++bucket) {
        in = 0;
        for (int t = 0; t < workers_; ++t) in += histogram[(static_cast<size_t>(t) << kRadixBits) + bucket];
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
    lo = prefix, hi = prefix | ~fixed;
  }

  // One pass: each block's keys below lo and above hi, and those from lo to hi, which decide the key of the
  // rank (keys are distinct: the triangle index is in them) and then the rest of the blocks' counts. False
  // when the rank is not among those from lo to hi.
  bool count_around(uint64_t lo, uint64_t hi, uint64_t rank) {
    struct Candidate {
      uint64_t key, block;
    };
    std::vector<std::vector<Candidate>> found(workers_);
    parallel_blocks(blocks_, 1, workers_, [&](size_t begin, size_t end, int tid) {
      for (size_t b = begin; b < end; ++b) {
        uint64_t below = 0, above = 0;
        for (uint64_t k = first_ + b * kSplitBlock; k < block_end(b); ++k) {
          const uint64_t x = key(k);
          below += x < lo;
          above += x > hi;
          if (x >= lo && x <= hi) found[tid].push_back({x, b});
        }
        smaller_[b + 1] = below, larger_[b + 1] = above;
      }
    });
    uint64_t below = 0;
    std::vector<uint64_t> keys;
    for (uint64_t b = 1; b <= blocks_; ++b) below += smaller_[b];
    for (const std::vector<Candidate>& f : found)
      for (const Candidate& x : f) keys.push_back(x.key);
    if (rank < below || rank - below >= keys.size()) return false;
    std::nth_element(keys.begin(), keys.begin() + (rank - below), keys.end());
    pivot_ = keys[rank - below];
    for (const std::vector<Candidate>& f : found)
      for (const Candidate& x : f) smaller_[x.block + 1] += x.key < pivot_, larger_[x.block + 1] += x.key > pivot_;
    return true;
  }

  // Stable partition: each block's smaller keys, then the pivot, then its larger ones, in block order; the
  // halves' centroid boxes on the way (the pivot's slot, middle, is the second half's first).
  void partition(UninitLargeVector<Centroid>& spare, uint64_t middle, CentroidBox* halves) {
    for (uint64_t b = 0; b < blocks_; ++b) smaller_[b + 1] += smaller_[b], larger_[b + 1] += larger_[b];
    std::vector<CentroidBox> part(halves != nullptr ? 2 * blocks_ : 0);
    parallel_blocks(blocks_, 1, threads_, [&](size_t begin, size_t end, int) {
      for (size_t b = begin; b < end; ++b) {
        uint64_t below = first_ + smaller_[b], above = middle + 1 + larger_[b];
        CentroidBox left, right;
        for (uint64_t k = first_ + b * kSplitBlock; k < block_end(b); ++k) {
          const uint64_t x = key(k);
          const bool first_half = x < pivot_;
          spare[first_half ? below++ : (x > pivot_ ? above++ : middle)] = c_[k];
          if (halves != nullptr) (first_half ? left : right).add(c_[k]);
        }
        if (halves != nullptr) part[2 * b] = left, part[2 * b + 1] = right;
      }
    });
    if (halves == nullptr) return;
    halves[0] = halves[1] = CentroidBox{};
    for (uint64_t b = 0; b < blocks_; ++b) halves[0].add(part[2 * b]), halves[1].add(part[2 * b + 1]);
  }

  const UninitLargeVector<Centroid>& c_;
  const uint64_t first_, last_, blocks_;
  const int threads_, workers_;
  int axis_ = 0;
  uint64_t pivot_ = 0;
  std::vector<uint64_t> smaller_, larger_;  // per block, then their running sums
};

void shared_split(const UninitLargeVector<Centroid>& c, UninitLargeVector<Centroid>& spare, uint64_t first,
                  uint64_t last, uint64_t middle, int threads, const CentroidBox* box = nullptr,
                  CentroidBox* halves = nullptr) {
  SharedSplit(c, first, last, threads).run(spare, middle, box, halves);
}

// Node i of the level split where the f12 layout puts its children's boundary, along the longest side of its
// centroids' box, on the calling thread.
void split_node(UninitLargeVector<Centroid>& c, const F12Shape& s, uint32_t level, uint64_t i) {
  const auto [first, last] = f12_node_slots(s, level, i);
  const uint64_t middle = f12_node_slots(s, level + 1, 2 * i + 1).first;
  CentroidBox box;
  for (uint64_t k = first; k < last; ++k) box.add(c[k]);
  const int axis = longest_axis(box.lo, box.hi);
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
  // Each level's centroid boxes come from the partitions of the level above (the root's from a pass of its own).
  std::vector<CentroidBox> boxes, halves;
  for (; level < s.depth && count >> level >= kSharedSplit; ++level) {
    progress.check_cancel();  // each level partitions every triangle: at most a few hundred ms at millions
    halves.assign(2ull << level, CentroidBox{});
    for (uint64_t i = 0; i < (1ull << level); ++i) {  // every node of the level: each is split into spare
      const auto [first, last] = f12_node_slots(s, level, i);
      shared_split(c, spare, first, last, f12_node_slots(s, level + 1, 2 * i + 1).first, threads,
                   level > 0 ? &boxes[i] : nullptr, &halves[2 * i]);
    }
    boxes.swap(halves);
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

Box f12_leaf_box(const F12Mesh& mesh, uint64_t leaf) {
  const F12Shape& s = mesh.shape;
  const float* corners = mesh.corners.data();
  Box box;
  box_make_empty(box);
  for (uint32_t slot = f12_leaf_first(s, leaf); slot < f12_leaf_first(s, leaf + 1); ++slot)
    for (int k = 0; k < 3; ++k) box_grow(box, corners + 9ull * slot + 3 * k);
  return box;
}

UninitLargeVector<Box> f12_boxes(const F12Mesh& mesh, int threads) {
  constexpr size_t kBlock = 16384;
  const F12Shape& s = mesh.shape;
  const uint64_t leaves = 1ull << s.depth, first_leaf = leaves - 1;
  UninitLargeVector<Box> boxes(f12_node_count(s));
  parallel_blocks(leaves, kBlock, threads, [&](size_t begin, size_t end, int) {
    for (size_t i = begin; i < end; ++i) boxes[first_leaf + i] = f12_leaf_box(mesh, i);
  });
  for (uint32_t level = s.depth; level-- > 0;) {
    const uint64_t count = 1ull << level, first = count - 1;
    parallel_blocks(count, kBlock, count >= 2 * kBlock ? threads : 1, [&](size_t begin, size_t end, int) {
      for (size_t i = begin; i < end; ++i) boxes[first + i] = f12_children_box(boxes.data(), level, i);
    });
  }
  return boxes;
}

}  // namespace xhd
