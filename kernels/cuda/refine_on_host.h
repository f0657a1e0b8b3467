// The host path of the GPU's double-precision settling, for more survivors than a scan of the target
// can take: a CPU grid over the target's float copies and the CPU backend's exact search.
#pragma once

#include <cstdint>
#include <vector>

#include "../geometry/point_frame.h"

namespace xhd {

// For each source index in `sources`: the squared distance in double to its nearest target and that
// target's index (ties to the smallest). Through a grid of the targets inside the frame's cube, with the
// loose points (point_frame.h) settled as the CPU backend settles them (loose_points.h): right whichever
// points the float search saw, so X-HD's survivors, EB's and loose sources all come here alike.
void nearest_on_host(const PointFrame& frame, const FramedSet& source, const FramedSet& target,
                     const std::vector<uint32_t>& sources, int threads, std::vector<double>& dist2,
                     std::vector<uint32_t>& nearest);

}  // namespace xhd
