// The double-precision reference for mesh–mesh distance: every triangle of A against every triangle of B
// (posed), over the input's own coordinates (float32 or double: xhd.h says how B is posed), with the same
// exact pair functions and the same tie rule as the fast backends. Quadratic: for tests and small meshes.
#include <chrono>
#include <cmath>
#include <vector>

#include "../abi/elapsed.h"
#include "../geometry/mesh_distance_common.h"
#include "../geometry/mesh_truth.h"
#include "../geometry/penetration.h"
#include "../abi/parallel.h"
#include "../cpu/mesh_distance.h"

namespace xhd {
namespace {

class BruteDistance final : public MeshDistanceEngine {
 public:
  BruteDistance(const xhd_mesh& a, const xhd_mesh& b, const xhd_distance_options& o)
      : which_(o.which), threads_(resolve_thread_count(o.threads)), a_(a, threads_), b_(b, threads_) {
    if (o.which & XHD_DISTANCE_PENETRATION) penetration_ = std::make_unique<PenetrationProbe>(a, b, true, threads_);
  }

  void query(const double* pose, xhd_distance_result& r) override {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<double> posed = b_.posed_vertices(pose ? pose : kIdentityPose);
    // The same poses as the searches refuse: theirs run on float copies of B as posed.
    for (double x : posed)
      if (!(std::fabs(x) < 3e38)) throw InvalidArgument("the pose moves B's vertices beyond the float range");
    Contacts contacts;
    if (which_ & XHD_DISTANCE_MIN) write_pair(all_pairs<false>(posed, r, contacts), r.min);
    if (which_ & XHD_DISTANCE_MAX) write_pair(all_pairs<true>(posed, r, contacts), r.max);
    if (which_ & XHD_DISTANCE_CONTACTS) contacts.write(r);
    if (penetration_) penetration_->query(pose ? pose : kIdentityPose, r.min.distance, r);
    r.query_ms = elapsed_ms(start);
  }

 private:
  template <bool kMax>
  Candidate all_pairs(const std::vector<double>& posed, xhd_distance_result& r, Contacts& contacts) const {
    const size_t na = a_.triangle_count(), nb = b_.triangle_count();
    std::vector<Candidate> best(threads_, empty_candidate<kMax>());
    std::vector<Contacts> touching(threads_);  // the minimum's pairs at distance 0
    parallel_blocks(na, 16, threads_, [&](size_t begin, size_t end, int tid) {
      for (size_t ta = begin; ta < end; ++ta) {
        const Corners3 a = a_.corners(ta);
        for (size_t tb = 0; tb < nb; ++tb) {
          const Corners3 b = b_.corners_of(posed, tb);
          const PairPoints p = kMax ? triangle_pair_max(a, b) : triangle_pair_min(a, b);
          const Candidate c{p.d2, static_cast<uint32_t>(ta), static_cast<uint32_t>(tb), p};
          if (better_candidate<kMax>(c, best[tid])) best[tid] = c;
          if (!kMax && p.d2 == 0.0) touching[tid].add(a, b);
        }
      }
    });
    Candidate winner = empty_candidate<kMax>();
    for (const Candidate& c : best)
      if (better_candidate<kMax>(c, winner)) winner = c;
    r.triangle_pairs += static_cast<uint64_t>(na) * nb;
    for (const Contacts& t : touching) contacts.merge(t);
    return winner;
  }

  const int which_;
  const int threads_;
  const MeshTruth a_, b_;
  std::unique_ptr<PenetrationProbe> penetration_;  // XHD_DISTANCE_PENETRATION
};

}  // namespace

std::unique_ptr<MeshDistanceEngine> make_brute_distance(const xhd_mesh& a, const xhd_mesh& b,
                                                        const xhd_distance_options& o) {
  return std::make_unique<BruteDistance>(a, b, o);
}

}  // namespace xhd
