// The double-precision reference for mesh–mesh distance: every triangle of A against every triangle of B
// (posed), with the same exact pair functions and the same tie rule as the fast backends. Quadratic: for
// tests and small meshes.
#include <chrono>
#include <vector>

#include "../common/elapsed.h"
#include "../common/mesh_distance_common.h"
#include "../common/parallel.h"
#include "../cpu/mesh_distance.h"

namespace xhd {
namespace {

class BruteDistance final : public MeshDistanceEngine {
 public:
  BruteDistance(const xhd_mesh& a, const xhd_mesh& b, const xhd_distance_options& o)
      : which_(o.which), threads_(resolve_thread_count(o.threads)),
        a_xyz_(a.xyz, a.xyz + 3 * a.vertex_count), a_tri_(a.triangles, a.triangles + 3 * a.triangle_count),
        b_xyz_(b.xyz, b.xyz + 3 * b.vertex_count), b_tri_(b.triangles, b.triangles + 3 * b.triangle_count) {}

  void query(const double* pose, xhd_distance_result& r) override {
    const auto start = std::chrono::steady_clock::now();
    std::vector<float> posed(b_xyz_.size());
    for (size_t v = 0; v < posed.size(); v += 3) pose_vertex(pose ? pose : kIdentityPose, &b_xyz_[v], &posed[v]);
    for (float x : posed)
      if (!std::isfinite(x)) throw InvalidArgument("the pose moves B's vertices beyond the float range");
    if (which_ & XHD_DISTANCE_MIN) write_pair(all_pairs<false>(posed, r), r.min);
    if (which_ & XHD_DISTANCE_MAX) write_pair(all_pairs<true>(posed, r), r.max);
    r.query_ms = elapsed_ms(start);
  }

 private:
  Corners3 corners(const std::vector<float>& xyz, const std::vector<uint32_t>& tri, size_t t) const {
    Corners3 c;
    for (int k = 0; k < 3; ++k) c.v[k] = dload(&xyz[3ull * tri[3 * t + k]]);
    return c;
  }

  template <bool kMax>
  Candidate all_pairs(const std::vector<float>& posed, xhd_distance_result& r) const {
    const size_t na = a_tri_.size() / 3, nb = b_tri_.size() / 3;
    std::vector<Candidate> best(threads_, empty_candidate<kMax>());
    parallel_blocks(na, 16, threads_, [&](size_t begin, size_t end, int tid) {
      for (size_t ta = begin; ta < end; ++ta) {
        const Corners3 a = corners(a_xyz_, a_tri_, ta);
        for (size_t tb = 0; tb < nb; ++tb) {
          const PairPoints p = kMax ? triangle_pair_max(a, corners(posed, b_tri_, tb)) : triangle_pair_min(a, corners(posed, b_tri_, tb));
          const Candidate c{p.d2, static_cast<uint32_t>(ta), static_cast<uint32_t>(tb), p};
          if (better_candidate<kMax>(c, best[tid])) best[tid] = c;
        }
      }
    });
    Candidate winner = empty_candidate<kMax>();
    for (const Candidate& c : best)
      if (better_candidate<kMax>(c, winner)) winner = c;
    r.triangle_pairs += static_cast<uint64_t>(na) * nb;
    return winner;
  }

  const int which_;
  const int threads_;
  const std::vector<float> a_xyz_;
  const std::vector<uint32_t> a_tri_;
  const std::vector<float> b_xyz_;
  const std::vector<uint32_t> b_tri_;
};

}  // namespace

std::unique_ptr<MeshDistanceEngine> make_brute_distance(const xhd_mesh& a, const xhd_mesh& b, const xhd_distance_options& o) {
  return std::make_unique<BruteDistance>(a, b, o);
}

}  // namespace xhd
