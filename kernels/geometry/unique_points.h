// Exact duplicates dropped from a framed set before it is searched, so that coincident points cost no
// more than distinct ones.
//
// Why: copies of one point all fall in one grid cell and lie at exactly the same distance from every
// query, so no float bound can tell them apart: the exact pass evaluates every copy in double for every
// query that reaches them (O(N * M) for a set of M copies), on the CPU and on the GPU alike. Copies that
// are equal in double are interchangeable for every answer: the nearest of a group is always the first
// copy (ties go to the smallest index), and a source group's witness is its first copy too. So the
// searches run over the first copy of each group, in input order, and their indices are mapped back to
// the input's (FramedSet::input_of): every answer is the one the full set gives, witnesses included.
//
// Why here and not per grid cell: the frame is shared by both backends and by the grid and early-break
// methods, so one host pass serves them all and no index structure changes. The brute-force references
// never call it: they stay the plain definition the tests compare against.
//
// Cost: a set without duplicates (the common case) pays only a strided sample of kSamplePoints points
// hashed in double; only a sample that holds two equal points triggers the full pass (a parallel radix
// sort by hash). Equality is over the input's own coordinates (the truth), never the float copies: two
// points whose float copies coincide may differ in double, and those are both kept.
#pragma once

#include <cstddef>

#include "point_frame.h"
#include "xhd.h"

namespace xhd {

// Points the detection hashes: a set whose sample holds no two equal points is searched as it is. Every
// set of at most this many points is checked completely; in a larger one, a group of copies that the
// sample misses holds at most about 2 n / kSamplePoints points when they are adjacent in the input (as
// repeated rows are), and costs at most that many evaluations a query: as much as a tight cluster of as
// many distinct points, which no float filter separates either.
constexpr size_t kSamplePoints = size_t(1) << 15;

// True when the spread sample of the set's truth holds two points equal in double.
bool sample_has_duplicates(const PointTruth& truth);

// sample_has_duplicates of the set's truth, measured once and kept in the set.
bool sampled_duplicates(FramedSet& set);

// The caller's word that neither set holds copies (xhd_hausdorff_options::distinct): taken as the sample's answer,
// so no check is made. A word that is wrong costs time, not exactness: copies are then searched as distinct points.
inline void trust_distinct(PointFrame& frame, const xhd_hausdorff_options& options) {
  if (options.distinct == 0) return;
  frame.a.sampled_duplicates = 0;
  frame.b.sampled_duplicates = 0;
}

// Both sets' samples measured at once (each is a target in one direction): before the directions, which may
// run at the same time and would each wait on its own.
void sample_duplicates(PointFrame& frame, int threads);

// Replaces the set by the first copy of each group of points equal in double, in input order, filling
// input_index, when the sample finds duplicates; returns whether it did. The float copies and bounds stay
// valid (a subset of the same points in the same frame).
bool drop_duplicates(FramedSet& set, int threads);

// The set as the target of a per-point search: its duplicates dropped, while the set itself stays whole (as
// a source, every one of its points needs its own answer). Shares the set's arrays when nothing is dropped,
// so the set must outlive it.
FramedSet unique_targets(const FramedSet& set, int threads);

// Both sets of a Hausdorff frame (each is a source in one direction and a target in the other).
void drop_duplicates(PointFrame& frame, int threads);

// A Hausdorff answer computed over the unique sets, put back into the input's indices.
void report_input_indices(const PointFrame& frame, xhd_hausdorff_result& result);

}  // namespace xhd
