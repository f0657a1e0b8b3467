// Where a GPU compare runs (xhd_placement): one worker per listed device ordinal (an ordinal may repeat:
// two workers then share that device, each with its own stream and half its memory) and each worker's
// memory budget.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../abi/work_split.h"

namespace xhd {

struct Placement {
  std::vector<int> devices;   // one worker each, in order
  uint64_t memory_limit = 0;  // bytes a worker may use; 0: what is free
};

// What the run did, for xhd_placement's outputs.
struct PlacementReport {
  uint32_t target_tiles = 1;  // the most tiles a direction's target was searched in
  uint32_t workers = 1;
  uint32_t spatial_directions = 0;  // XHD_DIRECTION_* bits split by space (slab_split.h)
};

// Every ordinal exists (InvalidArgument naming the first that does not otherwise).
void check_devices(const Placement& placement);

// Each worker's device memory budget: what is free on its device (device_memory_budget) shared evenly by the
// workers listed on that device, capped by the memory limit.
std::vector<uint64_t> worker_budgets(const Placement& placement);

// Labels of the workers for their failures ("device 1 (worker 2 of 3)").
std::vector<std::string> worker_labels(const Placement& placement);

}  // namespace xhd
