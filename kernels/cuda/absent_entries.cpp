// The optional entries of xhd.h that the CUDA library does not implement (its xhd_capabilities() leaves their
// bits clear): exported all the same, so that every library has every symbol of the header, each returning
// XHD_ERROR_UNAVAILABLE with a last error that names the library implementing it.
#include <string>

#include "../abi/status_guard.h"
#include "xhd.h"

namespace {

// progress: the call's xhd_progress, for the entries that take one (its message is the caller's to read).
int32_t unavailable(const char* entry, const char* capability, xhd_progress* progress = nullptr) {
  return xhd::guarded(progress, [&]() -> int32_t {
    throw xhd::Unavailable(std::string("the cuda library does not implement ") + entry + " (" + capability +
                           "); the cpu library does");
  });
}

}  // namespace

extern "C" {

XHD_API int32_t xhd_nearest_points(const xhd_points*, const xhd_points*, const xhd_hausdorff_options*, double*,
                                   int64_t*, xhd_nearest_result*, xhd_progress* progress) {
  return unavailable("xhd_nearest_points", "XHD_CAP_NEAREST_POINTS", progress);
}

XHD_API int32_t xhd_points_compare_files(const xhd_point_file*, const xhd_point_file*, const xhd_hausdorff_options*,
                                         xhd_streamed*, xhd_hausdorff_result*, xhd_progress* progress) {
  return unavailable("xhd_points_compare_files", "XHD_CAP_STREAMED_COMPARE", progress);
}

XHD_API int32_t xhd_read_file(const char*, uint64_t, uint64_t, int32_t, uint8_t*, xhd_file_read*) {
  return unavailable("xhd_read_file", "XHD_CAP_FILE_READERS");
}

XHD_API int32_t xhd_read_ply_vertices(const char*, const xhd_ply_vertex_layout*, void*, xhd_read_result*) {
  return unavailable("xhd_read_ply_vertices", "XHD_CAP_FILE_READERS");
}

XHD_API int32_t xhd_read_triangle_records(const uint8_t*, uint64_t, uint32_t, int32_t, uint32_t*, uint64_t*) {
  return unavailable("xhd_read_triangle_records", "XHD_CAP_FILE_READERS");
}

XHD_API int32_t xhd_count_degenerate_triangles(const xhd_mesh*, int32_t, uint64_t*) {
  return unavailable("xhd_count_degenerate_triangles", "XHD_CAP_FILE_READERS");
}

XHD_API int32_t xhd_read_laz(const char*, const xhd_laz_job*, double*, double*, uint8_t*, uint8_t*, xhd_laz_result*) {
  return unavailable("xhd_read_laz", "XHD_CAP_FILE_READERS");
}

XHD_API int32_t xhd_compress_laz_chunk(const uint8_t*, uint64_t, const uint16_t*, uint32_t, uint32_t, uint8_t*,
                                       uint64_t, uint64_t*) {
  return unavailable("xhd_compress_laz_chunk", "XHD_CAP_FILE_READERS");
}

XHD_API int32_t xhd_read_las(const char*, const xhd_las_job*, double*, uint8_t*, xhd_las_result*) {
  return unavailable("xhd_read_las", "XHD_CAP_FILE_READERS");
}

XHD_API int32_t xhd_read_e57(const char*, const xhd_e57_job*, double*, xhd_e57_result*) {
  return unavailable("xhd_read_e57", "XHD_CAP_FILE_READERS");
}

XHD_API int32_t xhd_write_laz(const char*, const uint8_t*, uint64_t, const xhd_laz_points*, xhd_laz_write_result*) {
  return unavailable("xhd_write_laz", "XHD_CAP_FILE_READERS");
}

XHD_API int32_t xhd_count_lines(const uint8_t*, uint64_t, int32_t, uint64_t*) {
  return unavailable("xhd_count_lines", "XHD_CAP_DELIMITED_TEXT");
}

XHD_API int32_t xhd_parse_delimited(const uint8_t*, uint64_t, const xhd_delimited_layout*, double*, uint64_t,
                                    xhd_delimited_result*) {
  return unavailable("xhd_parse_delimited", "XHD_CAP_DELIMITED_TEXT");
}

}  // extern "C"
