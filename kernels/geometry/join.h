// The spatial join's method, shared by every backend (xhd.h, xhd_join): facet groups of both collections, a
// tree over B's object boxes, and for each object of A (a chunk of them at a time, so memory stays bounded)
// a threshold T and the object pairs and group pairs that can still hold a distance <= T:
//   intersects: T = 0; within D: T = D; k-NN: T = the k-th smallest upper bound (distance between object
//   anchors) over B, so the true k nearest all lie within it.
// A group pair is kept when its boxes' gap is at most min(T, U) + slack, U the smallest distance between the
// pair's group anchors (an upper bound of the pair's distance). A backend's refiner then finds, for each kept
// object pair, the smallest exact triangle-pair distance over its kept group pairs, ties to the smallest
// (triangle of a, triangle of b). That is the pair's exact distance whenever the distance is <= T: the group
// pair holding the closest triangles has a gap below it, and the slack covers the rounding of bounds against
// exact values. A pair is reported when that distance is <= T (k-NN: then the k smallest, ties to B's index).
#pragma once

#include <cstdint>
#include <vector>

#include "join_groups.h"
#include "mesh_distance_common.h"
#include "../abi/large_buffer.h"
#include "../abi/progress.h"

namespace xhd {

struct GroupPair {
  double gap;       // lower bound of the distance between the two groups
  uint64_t ga, gb;  // groups of A's and B's GroupedSet
};

// A chunk's candidate group pairs. Not zero-filled when sized: at within 400 on 3DPipe's NV a chunk held
// hundreds of millions of them, and one thread copying them into a zeroed vector was most of the filter's time.
using GroupPairList = UninitLargeVector<GroupPair>;

// One object pair to refine: group pairs [first, first + count) of the chunk's list.
struct PairWork {
  uint64_t a, b;
  double threshold;  // T
  double limit;      // min(T, U): nothing farther than limit + slack can be the answer
  double lower;      // the smallest gap of its group pairs: a lower bound of the pair's distance
  uint64_t first, count;
};

struct JoinCounters {
  uint64_t object_pairs = 0, group_pairs = 0, triangle_pairs = 0;
};

// A backend's exact refinement: best[i] receives the smallest exact candidate of pairs[i] over its group
// pairs (ta, tb: triangle indices within their objects), or an empty candidate when it has none. For k-NN
// (knn > 0) a refiner may instead leave best[i] empty, or give any value above the k-th smallest distance
// of pairs[i].a's pairs, for a pair that it proves cannot be among the k nearest (pairs are in order of a).
class JoinRefiner {
 public:
  virtual ~JoinRefiner() = default;
  virtual void refine(const GroupedSet& a, const GroupedSet& b, const std::vector<PairWork>& pairs,
                      GroupPairList& groups, double slack, uint32_t knn, std::vector<Candidate>& best,
                      JoinCounters& counters) = 0;
};

struct JoinFound {
  uint64_t a, b;
  Candidate c;
};

struct JoinTimes {
  double build_ms = 0, filter_ms = 0, refine_ms = 0;
};

// Checks the call, groups both sets and runs the join with `refiner`; found is ordered as xhd.h says.
void run_join(const xhd_join_set* a, const xhd_join_set* b, const xhd_join_options* options, JoinRefiner& refiner,
              const Progress& progress, std::vector<JoinFound>& found, JoinCounters& counters, JoinTimes& times);

// The reference: every triangle pair of every object pair (checked and ordered as run_join's).
void brute_join(const xhd_join_set* a, const xhd_join_set* b, const xhd_join_options* options, const Progress& progress,
                std::vector<JoinFound>& found, JoinCounters& counters);

// The refinement every host backend shares: one object pair's group pairs in order of their gap, stopping
// once the gap passes the best distance found (or the limit), each group pair's triangle pairs skipped when
// their plane bound already does. Returns the best candidate (empty when none).
Candidate refine_pair_on_host(const GroupedSet& a, const GroupedSet& b, const PairWork& w, GroupPair* groups,
                              double slack, uint64_t& triangle_pairs);

// The result struct's owned pairs.
struct JoinOutput {
  std::vector<JoinFound> found;
};
void fill_join_result(std::vector<JoinFound>&& found, const JoinCounters& counters, const JoinTimes& times,
                      xhd_join_result& result);

}  // namespace xhd
