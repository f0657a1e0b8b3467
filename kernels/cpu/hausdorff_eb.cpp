// Early break (Taha & Hanbury; X-HD Algorithm 1): both sets shuffled, then for each source point a
// linear scan of the target that stops as soon as some distance is <= cmax, since that point can no
// longer raise the maximum. Scans run in blocks the compiler vectorizes; cmax is re-read per block.
#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <random>

#include "../common/elapsed.h"
#include "directed.h"
#include "../common/parallel.h"

namespace xhd {
namespace {
constexpr size_t kBlock = 256;

}  // namespace

void directed_eb(const DirectedJob& job, xhd_directed& out) {
  const auto t_build = std::chrono::steady_clock::now();
  const size_t n = job.source_count, m = job.target_count;
  std::mt19937_64 rng(job.seed);
  std::vector<uint32_t> source_order(n), target_order(m);
  std::iota(source_order.begin(), source_order.end(), 0u);
  std::iota(target_order.begin(), target_order.end(), 0u);
  std::shuffle(source_order.begin(), source_order.end(), rng);
  std::shuffle(target_order.begin(), target_order.end(), rng);
  std::vector<float> tx(m), ty(m), tz(m);  // structure of arrays for the vector units
  for (size_t j = 0; j < m; ++j) {
    const float* t = &job.target[3 * static_cast<size_t>(target_order[j])];
    tx[j] = t[0];
    ty[j] = t[1];
    tz[j] = t[2];
  }
  out.build_ms = elapsed_ms(t_build);

  const auto t_query = std::chrono::steady_clock::now();
  std::atomic<float> cmax{0.f};
  std::vector<Witness> witness(job.threads);
  std::vector<uint64_t> evals(job.threads * 8, 0), pruned(job.threads * 8, 0);
  parallel_blocks(n, 64, job.threads, [&](size_t begin, size_t end, int tid) {
    job.progress->check_cancel();
    for (size_t k = begin; k < end; ++k) {
      const uint32_t src = source_order[k];
      const float px = job.source[3 * static_cast<size_t>(src)];
      const float py = job.source[3 * static_cast<size_t>(src) + 1];
      const float pz = job.source[3 * static_cast<size_t>(src) + 2];
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
        broke = block_min <= cmax.load(std::memory_order_relaxed);
      }
      if (broke) {
        ++pruned[tid * 8];
        continue;
      }
      witness[tid].offer(cmin2, src, target_order[best]);
      atomic_raise(cmax, cmin2);
    }
    job.progress->add(end - begin);
  });
  out.query_ms = elapsed_ms(t_query);
  for (int t = 0; t < job.threads; ++t) {
    out.distance_evals += evals[t * 8];
    out.pruned_queries += pruned[t * 8];
  }
  finish_directed(job, best_of(witness), out);
}

}  // namespace xhd
