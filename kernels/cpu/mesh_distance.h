// The CPU backend's mesh–mesh distance: both f12 hierarchies built once, B posed and refitted per query,
// then a best-first, multithreaded traversal of the pairs of nodes (or every triangle pair, the brute
// reference). Exact: the answer is the smallest (largest) exact triangle-pair distance, ties to the
// smallest (triangle of A, triangle of B), the same pair every backend and the reference report.
#pragma once

#include <memory>

#include "xhd.h"

namespace xhd {

class CpuMeshDistance {
 public:
  virtual ~CpuMeshDistance() = default;
  virtual void query(const double* pose, xhd_distance_result& result) = 0;
};

// The f12 hierarchies (kernels/cpu/mesh_distance.cpp) and the reference over every triangle pair
// (kernels/reference/mesh_distance_brute.cpp). Arguments must already be checked.
std::unique_ptr<CpuMeshDistance> make_cpu_f12_distance(const xhd_mesh& a, const xhd_mesh& b, const xhd_distance_options& options);
std::unique_ptr<CpuMeshDistance> make_brute_distance(const xhd_mesh& a, const xhd_mesh& b, const xhd_distance_options& options);

}  // namespace xhd
