#include <algorithm>
#include <chrono>
#include <cmath>

#include "../abi/elapsed.h"
#include "../abi/parallel.h"
#include "directed.h"

namespace xhd {

void finish_directed(const DirectedJob& job, const std::vector<std::vector<Survivor>>& survivors, const SharedMax& cmax,
                     const std::function<ExactNearest(const Survivor&, int)>& nearest, xhd_directed& out) {
  // A survivor at or below the final threshold is truly nearer its target than the point that set the
  // final cmax: it was only kept because cmax was lower when it ran.
  const auto started = std::chrono::steady_clock::now();
  const float threshold = cmax.threshold();
  std::vector<Survivor> open;
  for (const auto& list : survivors)
    for (const Survivor& s : list)
      if (s.cmin2 > threshold) open.push_back(s);
  out.exact_checks = open.size();
  if (open.empty()) {  // only when the source is empty, which the ABI refuses
    out.distance = 0.0;
    out.from_index = out.to_index = XHD_NO_INDEX;
    return;
  }

  struct Best {
    double dist2 = -1.0;
    int64_t from = XHD_NO_INDEX;
    int64_t to = XHD_NO_INDEX;
  };
  std::vector<Best> per_thread(static_cast<size_t>(std::max(job.threads, 1)));
  parallel_blocks(open.size(), 64, job.threads, [&](size_t begin, size_t end, int tid) {
    job.progress->check_cancel();
    Best& best = per_thread[tid];
    for (size_t k = begin; k < end; ++k) {
      const ExactNearest e = nearest(open[k], tid);
      const int64_t from = open[k].source;
      if (e.dist2 > best.dist2 || (e.dist2 == best.dist2 && from < best.from)) best = {e.dist2, from, e.target};
    }
  });
  Best best;
  for (const Best& b : per_thread)
    if (b.from != XHD_NO_INDEX && (b.dist2 > best.dist2 || (b.dist2 == best.dist2 && b.from < best.from))) best = b;
  out.distance = std::sqrt(best.dist2);
  out.from_index = best.from;
  out.to_index = best.to;
  out.exact_ms = elapsed_ms(started);
}

}  // namespace xhd
