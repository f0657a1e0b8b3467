#include "refine_on_host.h"

#include <stdexcept>

#include "../abi/parallel.h"
#include "../cpu/exact_nearest.h"
#include "../cpu/loose_points.h"
#include "../cpu/point_grid.h"
#include "../cpu/point_grid_query.h"

namespace xhd {

void nearest_on_host(const PointFrame& frame, const FramedSet& source, const FramedSet& target,
                     const std::vector<uint32_t>& sources, int threads, std::vector<double>& dist2,
                     std::vector<uint32_t>& nearest) {
  PointGrid grid;
  build_inside_grid(target, 0.0, threads, grid);
  // Many loose sources descend the chunk tree: built here by every thread (loose_points.h).
  if (source.loose.size() > kFarScanQueries) grid.ensure_tree();
  const LooseContext loose = LooseContext::of(frame, target);
  std::vector<ExactSearch> inside(threads, ExactSearch{source, target, frame.tight});
  std::vector<ExactSearch> outside(threads, ExactSearch{source, target, frame.bounds});
  const auto nothing_pruned = [] { return -1.f; };
  parallel_blocks(sources.size(), 256, threads, [&](size_t begin, size_t end, int tid) {
    for (size_t s = begin; s < end; ++s) {
      GridQuery q;
      for (int k = 0; k < 3; ++k) q.p[k] = source.xyz[3ull * sources[s] + k];
      query_nearest(grid, nothing_pruned, q);
      if (q.best == UINT32_MAX) throw std::logic_error("a survivor found no target");
      const ExactNearest e = exact_with_loose(grid, {sources[s], q.best, INFINITY}, loose, inside[tid], outside[tid]);
      dist2[s] = e.dist2;
      nearest[s] = e.target;
    }
  });
}

}  // namespace xhd
