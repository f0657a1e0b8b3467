// Facet groups of a join collection (join_groups.h). A median split of centroids gives groups of equal size
// whose boxes are compact wherever the surface is, without the k-means iterations 3DPipe runs offline: the
// groups only need to be small and tight for the box bounds to prune, any partition is exact.
#include "join_groups.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "../abi/host_phases.h"
#include "../abi/parallel.h"
#include "../abi/validate.h"

namespace xhd {

namespace {

DBox empty_box() {
  DBox b;
  for (int k = 0; k < 3; ++k) {
    b.lo[k] = INFINITY;
    b.hi[k] = -INFINITY;
  }
  return b;
}

void grow(DBox& b, const Dvec3& p) {
  for (int k = 0; k < 3; ++k) {
    const double v = dget(p, k);
    b.lo[k] = std::min(b.lo[k], v);
    b.hi[k] = std::max(b.hi[k], v);
  }
}

void check_set(const xhd_join_set& s, const char* name, int threads) {
  if (s.object_count == 0) throw InvalidArgument(std::string("collection ") + name + " has no objects");
  if (s.object_faces == nullptr || s.triangles == nullptr)
    throw InvalidArgument(std::string("collection ") + name + " has no triangles");
  if (s.object_faces[0] != 0) throw InvalidArgument(std::string("collection ") + name + ": object_faces[0] must be 0");
  for (uint64_t o = 0; o < s.object_count; ++o) {
    if (s.object_faces[o + 1] <= s.object_faces[o])
      throw InvalidArgument(std::string("object ") + std::to_string(o) + " of collection " + name +
                            " has no triangles");
    if (s.object_faces[o + 1] - s.object_faces[o] >= UINT32_MAX)
      throw InvalidArgument(std::string("object ") + std::to_string(o) + " of collection " + name +
                            " has more than 4294967294 triangles");
  }
  const xhd_points vertices{s.xyz, s.vertex_count, s.xyz64};
  check_points(&vertices, name, threads);
  // The first bad index, found on every thread: each block keeps its own first, the smallest is reported.
  const uint64_t n = 3 * s.object_faces[s.object_count];
  constexpr uint64_t kNone = UINT64_MAX;
  const uint64_t block = uint64_t(1) << 20;
  std::vector<uint64_t> first_bad((n + block - 1) / block, kNone);
  parallel_blocks(first_bad.size(), 1, threads, [&](size_t begin, size_t end, int) {
    for (size_t b = begin; b < end; ++b)
      for (uint64_t k = b * block; k < std::min(n, (b + 1) * block); ++k)
        if (s.triangles[k] >= s.vertex_count) {
          first_bad[b] = k;
          break;
        }
  });
  for (uint64_t k : first_bad)
    if (k != kNone)
      throw InvalidArgument("triangle " + std::to_string(k / 3) + " of collection " + name + " uses vertex " +
                            std::to_string(s.triangles[k]) + ", outside 0.." + std::to_string(s.vertex_count - 1));
}

// A triangle's centroid, in float: the split only needs a nearby point to order by (any partition is exact),
// and 16 bytes an item instead of 32 halve what the median selections move.
struct Centroid {
  float c[3];
  uint32_t t;  // the triangle's index within its object
};

// Splits items [begin, end) of one object into groups of at most size, appending each group's end (an
// offset into the object's run) to ends, in order.
void split(std::vector<Centroid>& items, size_t begin, size_t end, size_t size, std::vector<size_t>& ends) {
  if (end - begin <= size) {
    ends.push_back(end);
    return;
  }
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = begin; i < end; ++i)
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], items[i].c[k]);
      hi[k] = std::max(hi[k], items[i].c[k]);
    }
  int axis = 0;
  for (int k = 1; k < 3; ++k)
    if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
  // Whole groups on the left (a multiple of size), so no group is left tiny.
  const size_t groups = (end - begin + size - 1) / size;
  const size_t mid = begin + (groups / 2) * size;
  std::nth_element(items.begin() + begin, items.begin() + mid, items.begin() + end,
                   [axis](const Centroid& x, const Centroid& y) {
                     return x.c[axis] != y.c[axis] ? x.c[axis] < y.c[axis] : x.t < y.t;
                   });
  split(items, begin, mid, size, ends);
  split(items, mid, end, size, ends);
}

// Fills the preorder node boxes of groups [first, first + count) of one object (join_groups.h, groups_near)
// at nodes, returning the root's box.
DBox build_group_tree(DBox* nodes, const DBox* group_box, uint64_t first, uint64_t count) {
  if (count == 1) return nodes[0] = group_box[first];
  const uint64_t half = count / 2;
  const DBox left = build_group_tree(nodes + 1, group_box, first, half);
  const DBox right = build_group_tree(nodes + 2 * half, group_box, first + half, count - half);
  DBox box;
  for (int k = 0; k < 3; ++k) {
    box.lo[k] = std::min(left.lo[k], right.lo[k]);
    box.hi[k] = std::max(left.hi[k], right.hi[k]);
  }
  return nodes[0] = box;
}

}  // namespace

void group_join_set(const xhd_join_set& in, const char* name, uint32_t group_size, int threads, GroupedSet& out) {
  HostPhases phases(std::string("join-") + name);
  check_set(in, name, threads);
  phases.mark("checks");
  const size_t size = group_size == 0 ? 32 : group_size;
  JoinSetView& v = out.set;
  v.f32 = in.xyz64 == nullptr ? in.xyz : nullptr;
  v.f64 = in.xyz64;
  v.triangles = in.triangles;
  v.object_faces = in.object_faces;
  v.objects = in.object_count;
  v.vertex_count = in.vertex_count;
  const uint64_t objects = in.object_count, triangles = in.object_faces[objects];

  // Objects a thread takes at a time: about 4,096 triangles' worth (16 of 3DPipe's nuclei; one vessel), so that
  // few large objects still spread over every thread.
  const size_t grain = std::max<uint64_t>(1, (uint64_t(4096) * objects) / std::max<uint64_t>(triangles, 1));

  // Each object's groups, built apart, then laid end to end.
  std::vector<std::vector<size_t>> ends(objects);
  out.order.resize(triangles);
  out.object_box.assign(objects, empty_box());
  out.object_anchor.resize(objects);
  std::vector<double> largest(static_cast<size_t>(std::max(threads, 1)), 0.0);
  parallel_blocks(objects, grain, threads, [&](size_t begin, size_t end, int tid) {
    std::vector<Centroid> items;
    double block_largest = 0.0;  // kept here and stored once: threads updating neighbouring slots share a cache line
    for (size_t o = begin; o < end; ++o) {
      const uint64_t first = in.object_faces[o], last = in.object_faces[o + 1];
      items.clear();
      DBox box = empty_box();
      for (uint64_t t = first; t < last; ++t) {
        const Corners3 c = v.corners(t);
        Centroid it;
        for (int k = 0; k < 3; ++k)
          it.c[k] = static_cast<float>((dget(c.v[0], k) + dget(c.v[1], k) + dget(c.v[2], k)) / 3.0);
        it.t = static_cast<uint32_t>(t - first);
        items.push_back(it);
        for (const Dvec3& p : c.v) {
          grow(box, p);
          block_largest = std::max(block_largest, std::max(std::fabs(p.x), std::max(std::fabs(p.y), std::fabs(p.z))));
        }
      }
      split(items, 0, items.size(), size, ends[o]);
      for (size_t i = 0; i < items.size(); ++i) out.order[first + i] = first + items[i].t;
      out.object_box[o] = box;
    }
    largest[tid] = std::max(largest[tid], block_largest);
  });
  out.largest_coordinate = *std::max_element(largest.begin(), largest.end());
  phases.mark("groups split");

  out.object_group.resize(objects + 1);
  out.object_group[0] = 0;
  for (uint64_t o = 0; o < objects; ++o) out.object_group[o + 1] = out.object_group[o] + ends[o].size();
  const uint64_t groups = out.object_group[objects];
  out.group_begin.resize(groups + 1);
  for (uint64_t o = 0; o < objects; ++o) {
    const uint64_t g0 = out.object_group[o];
    out.group_begin[g0] = in.object_faces[o];
    for (size_t i = 0; i < ends[o].size(); ++i) out.group_begin[g0 + i + 1] = in.object_faces[o] + ends[o][i];
  }
  out.group_box.resize(groups);
  out.slot_box.resize(triangles);
  out.group_anchor.resize(groups);
  out.node_box.resize(2 * groups - objects);
  phases.mark("group arrays");
  // Anchors: the vertex nearest the box's centre (ties to the first seen), of each group and each object.
  parallel_blocks(objects, grain, threads, [&](size_t begin, size_t end, int) {
    for (size_t o = begin; o < end; ++o) {
      const DBox& ob = out.object_box[o];
      const Dvec3 oc = {(ob.lo[0] + ob.hi[0]) / 2, (ob.lo[1] + ob.hi[1]) / 2, (ob.lo[2] + ob.hi[2]) / 2};
      double o_best = INFINITY;
      for (uint64_t g = out.object_group[o]; g < out.object_group[o + 1]; ++g) {
        DBox box = empty_box();
        for (uint64_t i = out.group_begin[g]; i < out.group_begin[g + 1]; ++i) {
          DBox t = empty_box();
          for (const Dvec3& p : v.corners(out.order[i]).v) grow(t, p);
          out.slot_box[i] = t;
          for (int k = 0; k < 3; ++k) {
            box.lo[k] = std::min(box.lo[k], t.lo[k]);
            box.hi[k] = std::max(box.hi[k], t.hi[k]);
          }
        }
        out.group_box[g] = box;
        const Dvec3 gc = {(box.lo[0] + box.hi[0]) / 2, (box.lo[1] + box.hi[1]) / 2, (box.lo[2] + box.hi[2]) / 2};
        double g_best = INFINITY;
        for (uint64_t i = out.group_begin[g]; i < out.group_begin[g + 1]; ++i)
          for (const Dvec3& p : v.corners(out.order[i]).v) {
            // Squared distances: the nearest vertex by them is as good an anchor (any vertex is a valid one).
            const Dvec3 tg = dsub(p, gc), to = dsub(p, oc);
            const double dg = ddot(tg, tg), dobj = ddot(to, to);
            if (dg < g_best) g_best = dg, out.group_anchor[g] = p;
            if (dobj < o_best) o_best = dobj, out.object_anchor[o] = p;
          }
      }
      const uint64_t g0 = out.object_group[o];
      build_group_tree(out.node_box.data() + (2 * g0 - o), out.group_box.data(), g0, out.object_group[o + 1] - g0);
    }
  });
  phases.mark("boxes and anchors");
}

}  // namespace xhd
