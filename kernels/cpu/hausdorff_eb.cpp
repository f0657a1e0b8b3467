// Early break (Taha & Hanbury; X-HD Algorithm 1): both sets shuffled, then for each source point a
// linear scan of the target that stops as soon as some distance is within the pruning threshold, since
// that point can no longer be the witness. Scans run in blocks the compiler vectorizes; the threshold is
// re-read per block. The points not set aside are settled in double (directed.h).
#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <random>

#include "../abi/elapsed.h"
#include "directed.h"
#include "exact_nearest.h"
#include "../abi/parallel.h"

namespace xhd {
namespace {
constexpr size_t kBlock = 256;

}  // namespace

void directed_eb(const DirectedJob& job, xhd_directed& out) {
  const auto t_build = std::chrono::steady_clock::now();
  const size_t n = job.source->count, m = job.target->count;
  std::mt19937_64 rng(job.seed);
  std::vector<uint32_t> source_order(n), target_order(m);
  std::iota(source_order.begin(), source_order.end(), 0u);
  std::iota(target_order.begin(), target_order.end(), 0u);
  std::shuffle(source_order.begin(), source_order.end(), rng);
  std::shuffle(target_order.begin(), target_order.end(), rng);
  std::vector<float> tx(m), ty(m), tz(m);  // structure of arrays for the vector units
  for (size_t j = 0; j < m; ++j) {
    const float* t = &job.target->xyz[3 * static_cast<size_t>(target_order[j])];
    tx[j] = t[0];
    ty[j] = t[1];
    tz[j] = t[2];
  }
  out.build_ms = elapsed_ms(t_build);

  const auto t_query = std::chrono::steady_clock::now();
  SharedMax cmax(*job.bounds);
  std::vector<std::vector<Survivor>> survivors(job.threads);
  std::vector<uint64_t> evals(job.threads * 8, 0), pruned(job.threads * 8, 0);
  parallel_blocks(n, 64, job.threads, [&](size_t begin, size_t end, int tid) {
    job.progress->check_cancel();
    for (size_t k = begin; k < end; ++k) {
      const uint32_t src = source_order[k];
      const float px = job.source->xyz[3 * static_cast<size_t>(src)];
      const float py = job.source->xyz[3 * static_cast<size_t>(src) + 1];
      const float pz = job.source->xyz[3 * static_cast<size_t>(src) + 2];
      float cmin2 = std::numeric_limits<float>::infinity();
      size_t best = 0;
      bool broke = false;
      for (size_t j0 = 0; j0 < m && !broke; j0 += kBlock) {
        const size_t j1 = std::min(m, j0 + kBlock);
        float block_min = std::numeric_limits<float>::infinity();
#pragma omp simd reduction(min : block_min)
        for (size_t j = j0; j < j1; ++j) {
          const float dx = px - tx[j], dy = py - ty[j], dz = pz - tz[j];
          const float d2 = dx * dx + dy * dy + dz * dz;
          block_min = d2 < block_min ? d2 : block_min;
        }
        evals[tid * 8] += j1 - j0;
        if (block_min < cmin2) {  // rare: find which point it was
          for (size_t j = j0; j < j1; ++j) {
            const float d2 = dist2(px, py, pz, tx[j], ty[j], tz[j]);
            if (d2 < cmin2) {
              cmin2 = d2;
              best = j;
            }
          }
        }
        broke = block_min <= cmax.threshold();
      }
      if (broke || (cmin2 == 0.f && settled_at_zero(job, src, target_order[best]))) {
        ++pruned[tid * 8];
        continue;
      }
      survivors[tid].push_back({src, target_order[best], cmin2});
      cmax.raise(cmin2);
    }
    job.progress->add(end - begin);
  });
  std::vector<ExactSearch> exact(job.threads, ExactSearch{*job.source, *job.target, *job.bounds});
  finish_directed(
      job, survivors, cmax, [&](const Survivor& s, int tid) { return exact[tid].by_scan(s.source, s.hint); }, out);
  out.query_ms = elapsed_ms(t_query);
  for (int t = 0; t < job.threads; ++t) {
    out.distance_evals += evals[t * 8] + exact[t].evals;
    out.pruned_queries += pruned[t * 8];
  }
}

}  // namespace xhd
