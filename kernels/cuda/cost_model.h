// c_hit / c_dist of the X-HD cost model, measured on the device by a short profiling kernel (clock64
// around the two inner operations of the query kernels) once per device and process.
#pragma once

#include "device_memory.h"

namespace xhd {

struct CostModel {
  double cell_cycles;      // c_hit: visiting one cell (offsets, box, estimator tests)
  double distance_cycles;  // c_dist: one point-to-point distance in a cell scan
  double ratio() const { return cell_cycles / distance_cycles; }
};

CostModel measure_cost_model(DeviceMemory& memory, int device, cudaStream_t stream);

}  // namespace xhd
