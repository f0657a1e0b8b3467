// Both directions of the Hausdorff distance on one GPU: uploads, index builds, queries (X-HD or EB),
// chunking of the source set when it does not fit beside the target, and the results.
#pragma once

#include "../abi/progress.h"
#include "xhd.h"

namespace xhd {

void gpu_hausdorff(const xhd_points& a, const xhd_points& b, const xhd_hausdorff_options& options,
                   const Progress& progress, xhd_hausdorff_result& result);

}  // namespace xhd
