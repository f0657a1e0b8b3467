// The loose points (far outliers, point_frame.h) in the GPU's double-precision settling, on the host:
// the float search saw neither loose queries nor loose targets.
#pragma once

#include <cstdint>
#include <vector>

#include "../geometry/point_frame.h"

namespace xhd {

// A source point's nearest target in double (ties to the smaller target index).
struct SourceNearest {
  uint32_t source;
  double dist2;
  uint32_t target;
};

// For survivors inside the cube whose nearest so far (dist2, target) a loose target may beat (the gate's
// depth bound, loose_gate.h), offers every loose target in double.
void offer_loose_targets(const PointFrame& frame, const FramedSet& source, const FramedSet& target,
                         std::vector<SourceNearest>& survivors, int threads);

// Every loose source's nearest target, in double (a float search could not tell targets apart from so far
// away): one scan of the targets for all of them when that is cheap, else the host settling
// (refine_on_host.h), which treats them as the CPU backend does.
std::vector<SourceNearest> settle_loose_sources(const PointFrame& frame, const FramedSet& source,
                                                const FramedSet& target, int threads);

}  // namespace xhd
