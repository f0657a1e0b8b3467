// What a distance context holds, whatever the backend: an engine built once over both meshes and queried
// for each pose of B. Exact: every engine returns the smallest (largest) exact triangle-pair distance,
// ties to the smallest (triangle of A, triangle of B), so all report the same pair.
#pragma once

#include <cstdint>

#include "xhd.h"

namespace xhd {

class MeshDistanceEngine {
 public:
  virtual ~MeshDistanceEngine() = default;
  // pose: 12 doubles [M | t], row by row, or null for the identity.
  virtual void query(const double* pose, xhd_distance_result& result) = 0;

  // Poses answered in one go where that saves more than a query's own cost (a GPU search of a few steps waits
  // longer on its launch and readback than on its work): query_many is called with at most this many.
  virtual uint64_t batch_size() const { return 1; }
  // n poses (12 doubles each, end to end; results cleared by the caller), each answered exactly as query() would
  // answer it after the poses before it. `answered` counts the poses done, also when one fails: those before the
  // failing pose are answered.
  virtual void query_many(const double* poses, uint64_t n, xhd_distance_result* results, uint64_t& answered) {
    for (answered = 0; answered < n; ++answered) query(poses + 12 * answered, results[answered]);
  }
};

}  // namespace xhd
