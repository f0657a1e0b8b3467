#include "mesh_bulk.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "bulk_box.h"
#include "point_triangle.h"

namespace xhd {
namespace {

// Enough triangles that the quantiles are stable, few enough that the pass costs nothing.
constexpr uint64_t kSample = 8192;
// The bulk leaves out this fraction of the sampled corners on each side of each axis.
constexpr double kTail = 0.002;
constexpr double kMargin = 0.25;

}  // namespace

MeshBulk mesh_bulk(const PointTruth& truth, const uint32_t* triangles, uint64_t count) {
  MeshBulk bulk;
  if (count == 0) return bulk;
  const uint64_t stride = std::max<uint64_t>(1, count / kSample);
  std::vector<double> axis[3], areas;
  for (uint64_t t = 0; t < count; t += stride) {
    const Dvec3 c[3] = {truth_point(truth, triangles[3 * t]), truth_point(truth, triangles[3 * t + 1]),
                        truth_point(truth, triangles[3 * t + 2])};
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) axis[k].push_back(dget(c[j], k));
    const Dvec3 n = dcross(dsub(c[1], c[0]), dsub(c[2], c[0]));
    areas.push_back(0.5 * std::sqrt(ddot(n, n)));
  }
  for (int k = 0; k < 3; ++k) {
    double lo, hi;
    tail_quantiles(axis[k], kTail, lo, hi);
    const double margin = kMargin * (hi - lo);
    bulk.lo[k] = lo - margin;
    bulk.hi[k] = hi + margin;
  }
  std::nth_element(areas.begin(), areas.begin() + areas.size() / 2, areas.end());
  bulk.median_area = areas[areas.size() / 2];
  bulk.empty = false;
  return bulk;
}

}  // namespace xhd
