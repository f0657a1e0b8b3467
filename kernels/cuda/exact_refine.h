// The GPU's directed Hausdorff distance settled in double: the float search's survivors (queries it could
// not prove nearer than the one that set cmax) get their nearest target again in double over the
// input's own coordinates, and the largest, ties to the smallest source index, is the answer.
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include "../geometry/point_frame.h"
#include "device_grid.h"
#include "device_memory.h"
#include "xhd.h"

namespace xhd {

// Collects the survivors of one direction over its search's runs (chunks), dropping those the cmax of
// their time already sets aside.
class SurvivorSink {
 public:
  // Device room for `capacity` entries (the queries of one run) and their counter.
  SurvivorSink(DeviceMemory& memory, uint32_t capacity, cudaStream_t stream);
  uint2* entries() { return entries_.get(); }
  uint32_t* count() { return count_.get(); }
  uint32_t capacity() const { return capacity_; }
  // Downloads what the last run appended and the cmax word it left in `device_cmax`, keeps those above
  // that word's threshold, and resets the counter for the next run. Returns the download time in ms.
  double drain(const unsigned long long* device_cmax, const FilterBounds& bounds);
  std::vector<uint2>& kept() { return kept_; }
  // The cmax word of the last drain: after the direction's last run, its final value.
  unsigned long long last_word() const { return last_word_; }

 private:
  DeviceArray<uint2> entries_;
  DeviceArray<uint32_t> count_;
  uint32_t capacity_;
  cudaStream_t stream_;
  std::vector<uint2> kept_;
  unsigned long long last_word_ = 0;
};

struct RefineInput {
  const PointFrame* frame;  // source and target are two of its sets
  const FramedSet* source;
  const FramedSet* target;
  const FilterBounds* bounds;    // those of the float search (the frame's tight ones when it left loose points out)
  const float4* device_targets;  // the target's float points on the device, w = original index bits
  uint32_t target_count;
  const DeviceGrid* grid;       // the target's grid (X-HD), or null (EB): then every target is scanned
  int threads;                  // host threads for the double-precision evaluations
  bool loose_left_out = false;  // the float search saw no loose point (X-HD); EB sees them all
  // One worker's share of a direction split among several (work_split.h): its survivors may all fall below
  // a bound another worker proved (then out.from_index is XHD_NO_INDEX), and only one worker settles the
  // loose sources.
  bool may_be_empty = false;
  bool settle_loose_sources = true;
};

// Fills out.distance, from_index, to_index and exact_checks from the survivors and the final cmax word, with
// the loose points (point_frame.h) settled on the host: loose targets offered where they may be nearer,
// loose sources (never in the float search) settled by a scan.
void refine_in_double(DeviceMemory& memory, const RefineInput& in, std::vector<uint2>& survivors,
                      unsigned long long cmax_word, cudaStream_t stream, xhd_directed& out);

}  // namespace xhd
