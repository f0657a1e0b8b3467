#include "refine_on_host.h"

#include <stdexcept>

#include "../common/parallel.h"
#include "../cpu/exact_nearest.h"
#include "../cpu/loose_points.h"
#include "../cpu/point_grid.h"
#include "../cpu/point_grid_query.h"

namespace xhd {

void nearest_on_host(const FramedSet& source, const FramedSet& target, const FilterBounds& bounds,
                     const std::vector<uint32_t>& sources, int threads, std::vector<double>& dist2,
                     std::vector<uint32_t>& nearest) {
  // Over the targets the float search saw (those inside the frame's cube): `bounds` may hold for no others.
  PointGrid grid;
  {
    const InsideCube inside(target);
    build_point_grid(inside.xyz, inside.count, 0.0, threads, grid);
    restore_grid_ids(target, grid, threads);
  }
  std::vector<ExactSearch> exact(threads, ExactSearch{source, target, bounds});
  const auto nothing_pruned = [] { return -1.f; };
  parallel_blocks(sources.size(), 256, threads, [&](size_t begin, size_t end, int tid) {
    for (size_t s = begin; s < end; ++s) {
      GridQuery q;
      for (int k = 0; k < 3; ++k) q.p[k] = source.xyz[3ull * sources[s] + k];
      query_nearest(grid, nothing_pruned, q);
      if (q.best == UINT32_MAX) throw std::logic_error("a survivor found no target");
      const ExactNearest e = exact[tid].in_grid(grid, sources[s], q.best);
      dist2[s] = e.dist2;
      nearest[s] = e.target;
    }
  });
}

}  // namespace xhd
