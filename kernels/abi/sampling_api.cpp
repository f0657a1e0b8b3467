// The sampling entry points of the C ABI. They run on the host in every backend library, so each
// library samples by itself and all give the same points.
#include "parallel.h"
#include "status_guard.h"
#include "../geometry/surface_sampling.h"
#include "xhd.h"

extern "C" {

XHD_API int32_t xhd_surface_area(const xhd_mesh* mesh, double* area) {
  return xhd::guarded([&] {
    if (area == nullptr) throw xhd::InvalidArgument("area must not be null");
    xhd::check_mesh(mesh);
    *area = xhd::mesh_surface_area(*mesh);
    return int32_t(XHD_OK);
  });
}

XHD_API int32_t xhd_sample_surface(const xhd_mesh* mesh, uint64_t count, uint32_t* state, int32_t threads, float* xyz,
                                   double* xyz64) {
  return xhd::guarded([&] {
    if (state == nullptr) throw xhd::InvalidArgument("state must not be null");
    if (mesh != nullptr && (mesh->xyz64 != nullptr ? xyz64 == nullptr : xyz == nullptr))
      throw xhd::InvalidArgument("samples of a float32 mesh go to xyz, of a double mesh to xyz64");
    if ((state[0] | state[1] | state[2] | state[3]) == 0)
      throw xhd::InvalidArgument("the generator state must not be all zero");
    if (count == 0 || count >= UINT32_MAX) throw xhd::InvalidArgument("count must be between 1 and 4294967294");
    if (threads < 0) throw xhd::InvalidArgument("threads must be >= 0");
    xhd::check_mesh(mesh);
    xhd::sample_surface(*mesh, count, state, xhd::resolve_thread_count(threads), xyz, xyz64);
    return int32_t(XHD_OK);
  });
}

}  // extern "C"
