// xhd_struct_size: the ABI's struct layouts as this library was compiled, so bindings that declare them
// again (the TypeScript's koffi structs, src/native/abi.ts) can check theirs at load instead of reading
// or writing past a field. Built into every backend library.
#include <cstring>

#include "xhd.h"

namespace {

struct Named {
  const char* name;
  uint64_t size;
};

#define XHD_SIZE_OF(type) Named{#type, sizeof(type)}

constexpr Named kStructs[] = {
    XHD_SIZE_OF(xhd_points),
    XHD_SIZE_OF(xhd_progress),
    XHD_SIZE_OF(xhd_hausdorff_options),
    XHD_SIZE_OF(xhd_directed),
    XHD_SIZE_OF(xhd_hausdorff_result),
    XHD_SIZE_OF(xhd_device_info),
    XHD_SIZE_OF(xhd_mesh),
    XHD_SIZE_OF(xhd_surface_options),
    XHD_SIZE_OF(xhd_surface_result),
    XHD_SIZE_OF(xhd_nearest_result),
    XHD_SIZE_OF(xhd_file_read),
    XHD_SIZE_OF(xhd_ply_vertex_layout),
    XHD_SIZE_OF(xhd_read_result),
    XHD_SIZE_OF(xhd_delimited_layout),
    XHD_SIZE_OF(xhd_delimited_result),
    XHD_SIZE_OF(xhd_laz_job),
    XHD_SIZE_OF(xhd_laz_result),
    XHD_SIZE_OF(xhd_laz_points),
    XHD_SIZE_OF(xhd_laz_write_result),
    XHD_SIZE_OF(xhd_distance_options),
    XHD_SIZE_OF(xhd_distance_pair),
    XHD_SIZE_OF(xhd_distance_result),
    XHD_SIZE_OF(xhd_surface_compare_options),
    XHD_SIZE_OF(xhd_surface_direction),
    XHD_SIZE_OF(xhd_surface_compare_result),
};

}  // namespace

extern "C" XHD_API uint64_t xhd_struct_size(const char* name) {
  if (name == nullptr) return 0;
  for (const Named& s : kStructs)
    if (std::strcmp(s.name, name) == 0) return s.size;
  return 0;
}
