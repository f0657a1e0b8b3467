// The join's result pairs, owned by the library between xhd_join and xhd_join_free: read out column by
// column, so the caller needs no struct per pair. Every backend library exports these two.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "../abi/status_guard.h"
#include "join.h"

extern "C" {

XHD_API int32_t xhd_join_read(const xhd_join_result* result, uint64_t first, uint64_t count, uint64_t* objects,
                              double* distance, int64_t* triangles, double* points, int32_t* intersecting) {
  return xhd::guarded([&]() -> int32_t {
    if (result == nullptr) throw xhd::InvalidArgument("result must not be null");
    const auto* out = static_cast<const xhd::JoinOutput*>(result->pairs);
    const uint64_t have = out == nullptr ? 0 : out->found.size();
    if (first > have || count > have - first)
      throw xhd::InvalidArgument("pairs " + std::to_string(first) + "+" + std::to_string(count) + " beyond the " +
                                 std::to_string(have) + " found");
    for (uint64_t i = 0; i < count; ++i) {
      const xhd::JoinFound& f = out->found[first + i];
      if (objects != nullptr) objects[2 * i] = f.a, objects[2 * i + 1] = f.b;
      if (distance != nullptr) distance[i] = std::sqrt(f.c.d2);
      if (triangles != nullptr) triangles[2 * i] = f.c.ta, triangles[2 * i + 1] = f.c.tb;
      if (points != nullptr) {
        const double p[6] = {f.c.at.on_a.x, f.c.at.on_a.y, f.c.at.on_a.z, f.c.at.on_b.x, f.c.at.on_b.y, f.c.at.on_b.z};
        std::memcpy(points + 6 * i, p, sizeof(p));
      }
      if (intersecting != nullptr) intersecting[i] = f.c.at.crossing ? 1 : 0;
    }
    return XHD_OK;
  });
}

XHD_API void xhd_join_free(xhd_join_result* result) {
  if (result == nullptr) return;
  delete static_cast<xhd::JoinOutput*>(result->pairs);
  result->pairs = nullptr;
  result->pair_count = 0;
}

}  // extern "C"
