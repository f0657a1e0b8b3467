// What sets apart the libraries built from the CUDA backend's sources: their name and the float filter
// search of an X-HD direction. libxhd_cuda.so links backend_cuda.cu (the grid search), libxhd_optix.so
// kernels/optix/backend_optix.cu (the ray-tracing search); every other object is the same in both.
#pragma once

#include "hausdorff_gpu.h"

namespace xhd {

// Short backend name, as xhd_backend_name() reports it. Static storage.
const char* backend_name();

// The X-HD search for `device` (already current). Throws Unavailable when this library's search cannot run
// there (the OptiX library: no OptiX in the driver, an ABI the driver does not know, no context).
DirectedSearch backend_directed_search(int device);

}  // namespace xhd
