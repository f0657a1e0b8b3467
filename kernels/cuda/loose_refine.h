// The loose points (far outliers, point_frame.h) in the GPU's double-precision settling, on the host:
// the float search saw neither loose queries nor loose targets.
#pragma once

#include <cstdint>
#include <vector>

#include "../common/loose_gate.h"
#include "../common/point_frame.h"

namespace xhd {

// A source point's nearest target in double (ties to the smaller target index).
struct SourceNearest {
  uint32_t source;
  double dist2;
  uint32_t target;
};

// For survivors inside the cube whose nearest so far (dist2, target) a loose target may beat (the gate's
// depth bound), offers every loose target in double.
void offer_loose_targets(const FramedSet& source, const FramedSet& target, const LooseGate& gate,
                         std::vector<SourceNearest>& survivors, int threads);

// Every loose source's nearest target, in double (a float search could not tell targets apart from so far
// away): one scan of the targets for all of them when that is cheap, else through a CPU grid of the inside
// targets with bounds in double, as the CPU backend does (loose_points.h).
std::vector<SourceNearest> settle_loose_sources(const PointFrame& frame, const FramedSet& source, const FramedSet& target,
                                                int threads);

}  // namespace xhd
