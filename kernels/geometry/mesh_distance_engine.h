// What a distance context holds, whatever the backend: an engine built once over both meshes and queried
// for each pose of B. Exact: every engine returns the smallest (largest) exact triangle-pair distance,
// ties to the smallest (triangle of A, triangle of B), so all report the same pair.
#pragma once

#include "xhd.h"

namespace xhd {

class MeshDistanceEngine {
 public:
  virtual ~MeshDistanceEngine() = default;
  // pose: 12 doubles [M | t], row by row, or null for the identity.
  virtual void query(const double* pose, xhd_distance_result& result) = 0;
};

}  // namespace xhd
