// The OptiX library's identity (kernels/cuda/backend_identity.h): X-HD directions run the ray-tracing
// search; the OptiX session is created here, before any work, so an unusable OptiX fails the call at once.
#include "../cuda/backend_identity.h"
#include "optix_directed.h"
#include "optix_session.h"

namespace xhd {

const char* backend_name() { return "optix"; }

DirectedSearch backend_directed_search(int device) {
  optix_session(device);
  return DirectedSearch{run_directed_optix, optix_search_bytes};
}

}  // namespace xhd
