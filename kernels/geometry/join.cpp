// The spatial join shared by every backend (join.h): checks, the object tree, the per-object thresholds and
// candidate group pairs, chunk by chunk, and the assembly of the refiners' answers into the reported pairs.
#include "join.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <queue>
#include <string>

#include "../abi/elapsed.h"
#include "../abi/parallel.h"
#include "../abi/validate.h"

namespace xhd {

namespace {

// Objects of A handled per chunk: their candidate group pairs are held at once, then refined and dropped.
constexpr uint64_t kChunkObjects = 2048;

void check_join_call(const xhd_join_set* a, const xhd_join_set* b, const xhd_join_options* o) {
  if (a == nullptr || o == nullptr) throw InvalidArgument("a and options must not be null");
  if (o->self_join == 0 && b == nullptr) throw InvalidArgument("b must not be null unless self_join is set");
  if (o->predicate != XHD_JOIN_INTERSECTS && o->predicate != XHD_JOIN_WITHIN && o->predicate != XHD_JOIN_KNN)
    throw InvalidArgument("unknown join predicate " + std::to_string(o->predicate));
  if (o->method != XHD_JOIN_FILTERED && o->method != XHD_JOIN_BRUTE)
    throw InvalidArgument("unknown join method " + std::to_string(o->method));
  if (o->threads < 0) throw InvalidArgument("threads must be >= 0");
  if (o->predicate == XHD_JOIN_WITHIN && !(o->distance >= 0.0 && std::isfinite(o->distance)))
    throw InvalidArgument("the within distance must be a finite number >= 0");
  if (o->predicate == XHD_JOIN_KNN && o->k == 0) throw InvalidArgument("k must be >= 1");
}

// A binary tree over B's object boxes, leaves of up to 4 objects.
class ObjectTree {
 public:
  explicit ObjectTree(const std::vector<DBox>& boxes) : boxes_(boxes), ids_(boxes.size()) {
    for (size_t i = 0; i < ids_.size(); ++i) ids_[i] = i;
    nodes_.resize(1);
    build(0, 0, ids_.size());
  }

  // Calls visit(b) for every object whose box lies within r of q.
  template <class Visit>
  void within(const DBox& q, double r, Visit visit) const {
    std::vector<uint32_t> stack{0};
    while (!stack.empty()) {
      const Node& n = nodes_[stack.back()];
      stack.pop_back();
      if (!(box_gap(q, n.box) <= r)) continue;
      if (n.left == 0) {
        for (size_t i = n.begin; i < n.end; ++i)
          if (box_gap(q, boxes_[ids_[i]]) <= r) visit(ids_[i]);
      } else {
        stack.push_back(n.left);
        stack.push_back(n.left + 1);
      }
    }
  }

  // The k-th smallest of upper(b) over the objects b that skip(b) leaves (infinity when fewer than k), found
  // best first: nodes whose box gap to q passes the k-th upper bound so far (plus slack) cannot lower it.
  template <class Upper, class Skip>
  double kth_upper(const DBox& q, uint32_t k, double slack, Upper upper, Skip skip) const {
    using Entry = std::pair<double, uint32_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> open;
    std::priority_queue<double> kept;  // the k smallest upper bounds, largest on top
    open.push({box_gap(q, nodes_[0].box), 0});
    while (!open.empty()) {
      const Entry e = open.top();
      open.pop();
      if (kept.size() == k && e.first > kept.top() + slack) break;
      const Node& n = nodes_[e.second];
      if (n.left == 0) {
        for (size_t i = n.begin; i < n.end; ++i) {
          if (skip(ids_[i])) continue;
          const double u = upper(ids_[i]);
          if (kept.size() < k) {
            kept.push(u);
          } else if (u < kept.top()) {
            kept.pop();
            kept.push(u);
          }
        }
      } else {
        open.push({box_gap(q, nodes_[n.left].box), n.left});
        open.push({box_gap(q, nodes_[n.left + 1].box), n.left + 1});
      }
    }
    return kept.size() == k ? kept.top() : static_cast<double>(INFINITY);
  }

 private:
  struct Node {
    DBox box;
    uint32_t left;  // children at left and left + 1; 0 for a leaf
    size_t begin, end;
  };

  // Fills node `at` over ids_[begin, end); children go side by side at the end of nodes_.
  void build(uint32_t at, size_t begin, size_t end) {
    DBox box = boxes_[ids_[begin]];
    for (size_t i = begin + 1; i < end; ++i)
      for (int k = 0; k < 3; ++k) {
        box.lo[k] = std::min(box.lo[k], boxes_[ids_[i]].lo[k]);
        box.hi[k] = std::max(box.hi[k], boxes_[ids_[i]].hi[k]);
      }
    nodes_[at] = {box, 0, begin, end};
    if (end - begin <= 4) return;
    int axis = 0;
    for (int k = 1; k < 3; ++k)
      if (box.hi[k] - box.lo[k] > box.hi[axis] - box.lo[axis]) axis = k;
    const size_t mid = begin + (end - begin) / 2;
    auto centre = [&](size_t id) { return boxes_[id].lo[axis] + boxes_[id].hi[axis]; };
    std::nth_element(ids_.begin() + begin, ids_.begin() + mid, ids_.begin() + end,
                     [&](size_t x, size_t y) { return centre(x) != centre(y) ? centre(x) < centre(y) : x < y; });
    const uint32_t left = static_cast<uint32_t>(nodes_.size());
    nodes_.resize(nodes_.size() + 2);
    nodes_[at].left = left;
    build(left, begin, mid);
    build(left + 1, mid, end);
  }

  const std::vector<DBox>& boxes_;
  std::vector<size_t> ids_;
  std::vector<Node> nodes_;
};

// Which object pairs a self-join considers: each unordered pair once for intersects and within, every other
// object for k-NN.
bool skipped_pair(bool self, int32_t predicate, uint64_t a, uint64_t b) {
  if (!self) return false;
  return predicate == XHD_JOIN_KNN ? a == b : b <= a;
}

// Squared distance from p to box b (0 inside it).
double box_dist2(const DBox& b, const Dvec3& p) {
  double s = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double x = dget(p, k);
    const double d = x < b.lo[k] ? b.lo[k] - x : (x > b.hi[k] ? x - b.hi[k] : 0.0);
    s += d * d;
  }
  return s;
}

// A vertex of group g with the smallest dist2(vertex) (ties to the first seen).
template <class Dist2>
Dvec3 vertex_nearest(const GroupedSet& s, uint64_t g, Dist2 dist2) {
  Dvec3 best{};
  double best_d2 = INFINITY;
  for (uint64_t i = s.group_begin[g]; i < s.group_begin[g + 1]; ++i)
    for (const Dvec3& v : s.set.corners(s.order[i]).v) {
      const double d2 = dist2(v);
      if (d2 < best_d2) best_d2 = d2, best = v;
    }
  return best;
}

// An upper bound of the distance between groups ga and gb near the smallest it can be: the distance between
// ga's vertex nearest gb's box and gb's vertex nearest that one. The group anchors (the vertices nearest the
// groups' centres) are as far apart as the groups are wide: on 3DPipe's vessels, whose groups span a stretch
// of the tube, their bound kept about ninety group pairs an object pair at within 400 (4.8M for 55k object
// pairs at 27 x 5,400); with these bounds too, a third fewer (docs/benchmarks.md).
double close_vertices_distance(const GroupedSet& A, uint64_t ga, const GroupedSet& B, uint64_t gb) {
  const DBox& box_b = B.group_box[gb];
  const Dvec3 p = vertex_nearest(A, ga, [&](const Dvec3& v) { return box_dist2(box_b, v); });
  const Dvec3 q = vertex_nearest(B, gb, [&](const Dvec3& v) {
    const Dvec3 d = dsub(v, p);
    return ddot(d, d);
  });
  return point_distance(p, q);
}

// A group of object o near box q, found in a few steps: at each level of o's group tree (groups_near), the child
// whose box lies nearer q.
uint64_t group_toward(const GroupedSet& s, uint64_t o, const DBox& q) {
  const uint64_t g0 = s.object_group[o];
  const DBox* nodes = s.node_box.data() + (2 * g0 - o);
  uint64_t first = 0, count = s.object_group[o + 1] - g0, node = 0;
  while (count > 1) {
    const uint64_t half = count / 2, left = node + 1, right = node + 2 * half;
    if (box_gap2(nodes[left], q) <= box_gap2(nodes[right], q)) {
      node = left;
      count = half;
    } else {
      node = right;
      first += half;
      count -= half;
    }
  }
  return g0 + first;
}

// The candidate group pairs of objects a and b under threshold t: appended to groups, with the pair's work.
// Returns upper, the smallest distance found between two vertices (anchors, close vertices): the distance
// between two points of the surfaces, so an upper bound of the pair's distance (infinity when the pair has no
// group pair within reach).
double candidate_groups(const GroupedSet& A, const GroupedSet& B, uint64_t a, uint64_t b, double t, double slack,
                        std::vector<GroupPair>& groups, std::vector<PairWork>& pairs, std::vector<uint64_t>& near_a,
                        std::vector<uint64_t>& near_b) {
  // Only group pairs within min(t, upper) + slack are kept in the end, and upper only falls: the reach is
  // that bound as it stands (a group pair skipped for it lies farther than its own anchors' distance could
  // lower upper to, up to rounding, which at worst keeps upper a little larger: a valid bound all the same).
  double upper = point_distance(A.object_anchor[a], B.object_anchor[b]);
  // First a close pair of groups, whose close vertices bound the pair's distance near its value, so that the
  // searches below reach about that far rather than t: at within 400 on 3DPipe's NV a vessel has hundreds of
  // groups within t of a nucleus, and the filter took 40% less time once they were not all visited.
  // (At t = 0, intersects, the reach is 0 already.)
  uint64_t toward_a = UINT64_MAX, toward_b = UINT64_MAX;
  if (t > 0.0) {
    toward_a = group_toward(A, a, B.object_box[b]);
    toward_b = group_toward(B, b, A.group_box[toward_a]);
    upper = std::min(upper, close_vertices_distance(A, toward_a, B, toward_b));
  }
  double reach = std::min(t, upper) + slack;
  near_a.clear();
  near_b.clear();
  groups_near(A, a, B.object_box[b], reach, [&](uint64_t g) { near_a.push_back(g); });
  groups_near(B, b, A.object_box[a], reach, [&](uint64_t g) { near_b.push_back(g); });
  if (near_a.empty() || near_b.empty()) return INFINITY;
  const size_t first = groups.size();
  for (uint64_t ga : near_a)
    for (uint64_t gb : near_b) {
      const double gap = box_gap(A.group_box[ga], B.group_box[gb]);
      if (!(gap <= reach)) continue;
      upper = std::min(upper, point_distance(A.group_anchor[ga], B.group_anchor[gb]));
      reach = std::min(t, upper) + slack;
      groups.push_back({gap, ga, gb});
    }
  // The nearest group pair by box gap most likely holds the pair's closest points: the distance between its
  // close vertices is then a bound near the pair's distance.
  size_t nearest = first;
  for (size_t i = first + 1; i < groups.size(); ++i)
    if (groups[i].gap < groups[nearest].gap) nearest = i;
  if (nearest < groups.size() && (groups[nearest].ga != toward_a || groups[nearest].gb != toward_b))
    upper = std::min(upper, close_vertices_distance(A, groups[nearest].ga, B, groups[nearest].gb));
  const double limit = std::min(t, upper);
  size_t kept = first;
  for (size_t i = first; i < groups.size(); ++i)
    if (groups[i].gap <= limit + slack) groups[kept++] = groups[i];
  groups.resize(kept);
  if (kept == first) return INFINITY;
  double lower = INFINITY;
  for (size_t i = first; i < kept; ++i) lower = std::min(lower, groups[i].gap);
  pairs.push_back({a, b, t, limit, lower, first, kept - first});
  return upper;
}

// Whether found pair (a, b) with candidate c is reported under threshold t.
bool accepted(const Candidate& c, double t) { return c.ta != 0xffffffffu && std::sqrt(c.d2) <= t; }

// Appends the accepted pairs of one chunk in the order xhd.h states (work is in order of a).
void assemble(const std::vector<PairWork>& work, const std::vector<Candidate>& best, int32_t predicate, uint32_t k,
              std::vector<JoinFound>& found) {
  size_t i = 0;
  while (i < work.size()) {
    size_t j = i;
    while (j < work.size() && work[j].a == work[i].a) ++j;
    const size_t start = found.size();
    for (size_t p = i; p < j; ++p)
      if (accepted(best[p], work[p].threshold)) found.push_back({work[p].a, work[p].b, best[p]});
    if (predicate == XHD_JOIN_KNN) {
      std::sort(found.begin() + start, found.end(),
                [](const JoinFound& x, const JoinFound& y) { return x.c.d2 != y.c.d2 ? x.c.d2 < y.c.d2 : x.b < y.b; });
      if (found.size() - start > k) found.resize(start + k);
    } else {
      std::sort(found.begin() + start, found.end(), [](const JoinFound& x, const JoinFound& y) { return x.b < y.b; });
    }
    i = j;
  }
}

}  // namespace

Candidate refine_pair_on_host(const GroupedSet& A, const GroupedSet& B, const PairWork& w, GroupPair* groups,
                              double slack, uint64_t& triangle_pairs) {
  std::sort(groups, groups + w.count, [](const GroupPair& x, const GroupPair& y) {
    return x.gap != y.gap ? x.gap < y.gap : (x.ga != y.ga ? x.ga < y.ga : x.gb < y.gb);
  });
  Candidate best = empty_candidate<false>();
  const uint64_t a_first = A.set.object_faces[w.a], b_first = B.set.object_faces[w.b];
  std::vector<uint64_t> near_a, near_b;
  std::vector<Corners3> corners_b;
  for (uint64_t i = 0; i < w.count; ++i) {
    const GroupPair& g = groups[i];
    double reach = std::min(w.limit, std::sqrt(best.d2)) + slack;
    if (g.gap > reach) break;
    // The triangles of each group whose boxes come within reach of the other group's box, then pairs of
    // them whose boxes do: box gaps cost a few operations, an exact triangle pair a few hundred.
    near_a.clear();
    near_b.clear();
    corners_b.clear();
    for (uint64_t s = A.group_begin[g.ga]; s < A.group_begin[g.ga + 1]; ++s)
      if (box_gap(A.slot_box[s], B.group_box[g.gb]) <= reach) near_a.push_back(s);
    for (uint64_t s = B.group_begin[g.gb]; s < B.group_begin[g.gb + 1]; ++s)
      if (box_gap(B.slot_box[s], A.group_box[g.ga]) <= reach) {
        near_b.push_back(s);
        corners_b.push_back(B.set.corners(B.order[s]));
      }
    for (uint64_t sa : near_a) {
      const uint64_t ta = A.order[sa];
      const Corners3 ca = A.set.corners(ta);
      for (size_t j = 0; j < near_b.size(); ++j) {
        const uint64_t sb = near_b[j];
        reach = std::min(w.limit, std::sqrt(best.d2)) + slack;
        const double reach2 = reach * reach;
        if (box_gap2(A.slot_box[sa], B.slot_box[sb]) > reach2) continue;
        const Corners3& cb = corners_b[j];
        if (triangle_pair_beyond(ca, cb, reach2)) continue;
        ++triangle_pairs;
        Candidate c;
        c.at = triangle_pair_min(ca, cb);
        c.d2 = c.at.d2;
        c.ta = static_cast<uint32_t>(ta - a_first);
        c.tb = static_cast<uint32_t>(B.order[sb] - b_first);
        if (better_candidate<false>(c, best)) best = c;
      }
    }
  }
  return best;
}

void run_join(const xhd_join_set* a, const xhd_join_set* b, const xhd_join_options* options, JoinRefiner& refiner,
              const Progress& progress, std::vector<JoinFound>& found, JoinCounters& counters, JoinTimes& times) {
  check_join_call(a, b, options);
  const int threads = resolve_thread_count(options->threads);
  const bool self = options->self_join != 0;
  auto start = std::chrono::steady_clock::now();
  GroupedSet A, Bown;
  group_join_set(*a, "A", options->group_size, threads, A);
  if (!self) group_join_set(*b, "B", options->group_size, threads, Bown);
  const GroupedSet& B = self ? A : Bown;
  const ObjectTree tree(B.object_box);
  const double slack = pruning_slack(std::max(A.largest_coordinate, B.largest_coordinate));
  times.build_ms = elapsed_ms(start);
  progress.set_total(A.set.objects);

  const int32_t predicate = options->predicate;
  for (uint64_t c0 = 0; c0 < A.set.objects; c0 += kChunkObjects) {
    progress.check_cancel();
    const uint64_t c1 = std::min(A.set.objects, c0 + kChunkObjects);
    start = std::chrono::steady_clock::now();
    std::vector<std::vector<GroupPair>> groups_of(c1 - c0);
    std::vector<std::vector<PairWork>> work_of(c1 - c0);
    std::vector<uint64_t> object_pairs(static_cast<size_t>(threads), 0);
    parallel_blocks(c1 - c0, 4, threads, [&](size_t begin, size_t end, int tid) {
      std::vector<uint64_t> near_a, near_b, candidates;
      std::vector<std::pair<double, uint64_t>> gaps;
      std::priority_queue<double> uppers;  // k-NN: the k smallest upper bounds found, largest on top
      for (size_t i = begin; i < end; ++i) {
        const uint64_t oa = c0 + i;
        const DBox& q = A.object_box[oa];
        double t = predicate == XHD_JOIN_WITHIN ? options->distance : 0.0;
        if (predicate == XHD_JOIN_KNN)
          t = tree.kth_upper(
              q, options->k, slack,
              [&](uint64_t ob) { return point_distance(A.object_anchor[oa], B.object_anchor[ob]); },
              [&](uint64_t ob) { return skipped_pair(self, predicate, oa, ob); });
        candidates.clear();
        tree.within(q, t + slack, [&](uint64_t ob) {
          if (!skipped_pair(self, predicate, oa, ob)) candidates.push_back(ob);
        });
        if (predicate != XHD_JOIN_KNN) {
          std::sort(candidates.begin(), candidates.end());
          object_pairs[tid] += candidates.size();
          for (uint64_t ob : candidates)
            candidate_groups(A, B, oa, ob, t, slack, groups_of[i], work_of[i], near_a, near_b);
          continue;
        }
        // k-NN: the candidates nearest box first, the threshold falling to the k-th smallest upper bound found
        // so far. A candidate whose box gap passes it lies farther than k others (by more than the slack's
        // rounding), so it cannot be among the k nearest, nor tie with the k-th; nor can any after it. Every pair
        // kept has a threshold at least the k-th nearest distance, so those are all refined exactly.
        gaps.clear();
        for (uint64_t ob : candidates) gaps.push_back({box_gap(q, B.object_box[ob]), ob});
        std::sort(gaps.begin(), gaps.end());
        uppers = {};
        for (const auto& [gap, ob] : gaps) {
          const double tk = uppers.size() == options->k ? std::min(t, uppers.top()) : t;
          if (gap > tk + slack) break;
          ++object_pairs[tid];
          const double upper = candidate_groups(A, B, oa, ob, tk, slack, groups_of[i], work_of[i], near_a, near_b);
          if (uppers.size() < options->k) {
            uppers.push(upper);
          } else if (upper < uppers.top()) {
            uppers.pop();
            uppers.push(upper);
          }
        }
        // The pairs of oa in order of b, as for the other predicates.
        std::sort(work_of[i].begin(), work_of[i].end(), [](const PairWork& x, const PairWork& y) { return x.b < y.b; });
      }
    });
    // The objects' lists laid end to end, each copied by the thread that takes it.
    std::vector<uint64_t> group_at(groups_of.size() + 1, 0), work_at(groups_of.size() + 1, 0);
    for (size_t i = 0; i < groups_of.size(); ++i) {
      group_at[i + 1] = group_at[i] + groups_of[i].size();
      work_at[i + 1] = work_at[i] + work_of[i].size();
    }
    GroupPairList groups(group_at.back());
    std::vector<PairWork> work(work_at.back());
    parallel_blocks(groups_of.size(), 1, threads, [&](size_t begin, size_t end, int) {
      for (size_t i = begin; i < end; ++i) {
        std::copy(groups_of[i].begin(), groups_of[i].end(), groups.begin() + group_at[i]);
        for (size_t j = 0; j < work_of[i].size(); ++j) {
          work[work_at[i] + j] = work_of[i][j];
          work[work_at[i] + j].first += group_at[i];
        }
        std::vector<GroupPair>().swap(groups_of[i]);
      }
    });
    for (uint64_t n : object_pairs) counters.object_pairs += n;
    counters.group_pairs += groups.size();
    times.filter_ms += elapsed_ms(start);
    start = std::chrono::steady_clock::now();
    std::vector<Candidate> best(work.size());
    refiner.refine(A, B, work, groups, slack, predicate == XHD_JOIN_KNN ? options->k : 0, best, counters);
    times.refine_ms += elapsed_ms(start);
    assemble(work, best, predicate, options->k, found);
    progress.add(c1 - c0);
  }
}

void brute_join(const xhd_join_set* a, const xhd_join_set* b, const xhd_join_options* options, const Progress& progress,
                std::vector<JoinFound>& found, JoinCounters& counters) {
  check_join_call(a, b, options);
  const int threads = resolve_thread_count(options->threads);
  const bool self = options->self_join != 0;
  GroupedSet A, Bown;
  group_join_set(*a, "A", options->group_size, threads, A);
  if (!self) group_join_set(*b, "B", options->group_size, threads, Bown);
  const GroupedSet& B = self ? A : Bown;
  const double t =
      options->predicate == XHD_JOIN_WITHIN ? options->distance : (options->predicate == XHD_JOIN_KNN ? INFINITY : 0.0);
  progress.set_total(A.set.objects);
  std::vector<std::vector<PairWork>> work_of(A.set.objects);
  std::vector<std::vector<Candidate>> best_of(A.set.objects);
  std::vector<uint64_t> tested(static_cast<size_t>(threads), 0);
  parallel_blocks(A.set.objects, 1, threads, [&](size_t begin, size_t end, int tid) {
    for (size_t oa = begin; oa < end; ++oa) {
      progress.check_cancel();
      for (uint64_t ob = 0; ob < B.set.objects; ++ob) {
        if (skipped_pair(self, options->predicate, oa, ob)) continue;
        Candidate best = empty_candidate<false>();
        const uint64_t a0 = A.set.object_faces[oa], b0 = B.set.object_faces[ob];
        for (uint64_t ta = a0; ta < A.set.object_faces[oa + 1]; ++ta)
          for (uint64_t tb = b0; tb < B.set.object_faces[ob + 1]; ++tb) {
            Candidate c;
            c.at = triangle_pair_min(A.set.corners(ta), B.set.corners(tb));
            c.d2 = c.at.d2;
            c.ta = static_cast<uint32_t>(ta - a0);
            c.tb = static_cast<uint32_t>(tb - b0);
            if (better_candidate<false>(c, best)) best = c;
            ++tested[tid];
          }
        work_of[oa].push_back({oa, ob, t, t, 0.0, 0, 0});
        best_of[oa].push_back(best);
      }
      progress.add(1);
    }
  });
  std::vector<PairWork> work;
  std::vector<Candidate> best;
  for (uint64_t oa = 0; oa < A.set.objects; ++oa) {
    work.insert(work.end(), work_of[oa].begin(), work_of[oa].end());
    best.insert(best.end(), best_of[oa].begin(), best_of[oa].end());
  }
  counters.object_pairs = work.size();
  for (uint64_t n : tested) counters.triangle_pairs += n;
  assemble(work, best, options->predicate, options->k, found);
}

void fill_join_result(std::vector<JoinFound>&& found, const JoinCounters& counters, const JoinTimes& times,
                      xhd_join_result& result) {
  auto* out = new JoinOutput{std::move(found)};
  result.pair_count = out->found.size();
  result.object_pairs = counters.object_pairs;
  result.group_pairs = counters.group_pairs;
  result.triangle_pairs = counters.triangle_pairs;
  result.build_ms = times.build_ms;
  result.filter_ms = times.filter_ms;
  result.refine_ms = times.refine_ms;
  result.pairs = out;
}

}  // namespace xhd
