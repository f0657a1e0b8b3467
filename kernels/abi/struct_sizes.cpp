// xhd_struct_size and xhd_struct_field: the ABI's struct layouts as this library was compiled, so bindings that
// declare them again (the TypeScript's declarations, src/native/abi.ts) can check every struct's size and every
// field's name and offset at load instead of reading or writing past a field. Built into every backend library.
#include <cstddef>
#include <cstring>

#include "xhd.h"

namespace {

struct Named {
  const char* name;
  uint64_t size;
};

#define XHD_SIZE_OF(type) \
  Named { #type, sizeof(type) }

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
    XHD_SIZE_OF(xhd_per_point),
    XHD_SIZE_OF(xhd_las_job),
    XHD_SIZE_OF(xhd_las_result),
    XHD_SIZE_OF(xhd_e57_job),
    XHD_SIZE_OF(xhd_e57_result),
    XHD_SIZE_OF(xhd_placement),
    XHD_SIZE_OF(xhd_point_file),
    XHD_SIZE_OF(xhd_streamed),
    XHD_SIZE_OF(xhd_laz_job),
    XHD_SIZE_OF(xhd_laz_result),
    XHD_SIZE_OF(xhd_laz_points),
    XHD_SIZE_OF(xhd_laz_write_result),
    XHD_SIZE_OF(xhd_file_read),
    XHD_SIZE_OF(xhd_ply_vertex_layout),
    XHD_SIZE_OF(xhd_read_result),
    XHD_SIZE_OF(xhd_delimited_layout),
    XHD_SIZE_OF(xhd_delimited_result),
    XHD_SIZE_OF(xhd_distance_options),
    XHD_SIZE_OF(xhd_distance_pair),
    XHD_SIZE_OF(xhd_distance_result),
    XHD_SIZE_OF(xhd_surface_compare_options),
    XHD_SIZE_OF(xhd_surface_direction),
    XHD_SIZE_OF(xhd_surface_compare_result),
    XHD_SIZE_OF(xhd_voxel_mask),
    XHD_SIZE_OF(xhd_mask_points_result),
    XHD_SIZE_OF(xhd_distance_stats_options),
    XHD_SIZE_OF(xhd_directed_stats),
    XHD_SIZE_OF(xhd_distance_stats_result),
    XHD_SIZE_OF(xhd_join_set),
    XHD_SIZE_OF(xhd_join_options),
    XHD_SIZE_OF(xhd_join_result),
};

struct Field {
  const char* owner;
  const char* name;
  uint64_t offset;
  uint64_t size;
};

#define XHD_FIELD(type, field) \
  Field { #type, #field, offsetof(type, field), sizeof(type::field) }

// Every field of every struct above, in declaration order (checked below: a field left out fails the build).
constexpr Field kFields[] = {
    // xhd_points
    XHD_FIELD(xhd_points, xyz),
    XHD_FIELD(xhd_points, count),
    XHD_FIELD(xhd_points, xyz64),
    // xhd_progress
    XHD_FIELD(xhd_progress, done),
    XHD_FIELD(xhd_progress, total),
    XHD_FIELD(xhd_progress, cancel),
    XHD_FIELD(xhd_progress, reserved),
    XHD_FIELD(xhd_progress, message),
    // xhd_hausdorff_options
    XHD_FIELD(xhd_hausdorff_options, method),
    XHD_FIELD(xhd_hausdorff_options, directions),
    XHD_FIELD(xhd_hausdorff_options, threads),
    XHD_FIELD(xhd_hausdorff_options, device),
    XHD_FIELD(xhd_hausdorff_options, seed),
    XHD_FIELD(xhd_hausdorff_options, cell_size),
    XHD_FIELD(xhd_hausdorff_options, distinct),
    XHD_FIELD(xhd_hausdorff_options, reserved),
    // xhd_directed
    XHD_FIELD(xhd_directed, distance),
    XHD_FIELD(xhd_directed, from_index),
    XHD_FIELD(xhd_directed, to_index),
    XHD_FIELD(xhd_directed, build_ms),
    XHD_FIELD(xhd_directed, query_ms),
    XHD_FIELD(xhd_directed, distance_evals),
    XHD_FIELD(xhd_directed, pruned_queries),
    XHD_FIELD(xhd_directed, fallback_queries),
    XHD_FIELD(xhd_directed, grid_dims),
    XHD_FIELD(xhd_directed, cell_size),
    XHD_FIELD(xhd_directed, exact_checks),
    XHD_FIELD(xhd_directed, exact_ms),
    // xhd_hausdorff_result
    XHD_FIELD(xhd_hausdorff_result, ab),
    XHD_FIELD(xhd_hausdorff_result, ba),
    XHD_FIELD(xhd_hausdorff_result, upload_ms),
    XHD_FIELD(xhd_hausdorff_result, download_ms),
    XHD_FIELD(xhd_hausdorff_result, peak_device_bytes),
    XHD_FIELD(xhd_hausdorff_result, device),
    XHD_FIELD(xhd_hausdorff_result, query_chunks),
    XHD_FIELD(xhd_hausdorff_result, origin),
    // xhd_device_info
    XHD_FIELD(xhd_device_info, name),
    XHD_FIELD(xhd_device_info, ordinal),
    XHD_FIELD(xhd_device_info, compute_major),
    XHD_FIELD(xhd_device_info, compute_minor),
    XHD_FIELD(xhd_device_info, multiprocessors),
    XHD_FIELD(xhd_device_info, total_memory),
    XHD_FIELD(xhd_device_info, free_memory),
    XHD_FIELD(xhd_device_info, driver_version),
    XHD_FIELD(xhd_device_info, runtime_version),
    // xhd_mesh
    XHD_FIELD(xhd_mesh, xyz),
    XHD_FIELD(xhd_mesh, vertex_count),
    XHD_FIELD(xhd_mesh, triangles),
    XHD_FIELD(xhd_mesh, triangle_count),
    XHD_FIELD(xhd_mesh, xyz64),
    // xhd_surface_options
    XHD_FIELD(xhd_surface_options, method),
    XHD_FIELD(xhd_surface_options, threads),
    XHD_FIELD(xhd_surface_options, device),
    XHD_FIELD(xhd_surface_options, reserved),
    // xhd_surface_result
    XHD_FIELD(xhd_surface_result, build_ms),
    XHD_FIELD(xhd_surface_result, query_ms),
    XHD_FIELD(xhd_surface_result, upload_ms),
    XHD_FIELD(xhd_surface_result, download_ms),
    XHD_FIELD(xhd_surface_result, peak_device_bytes),
    XHD_FIELD(xhd_surface_result, triangle_tests),
    XHD_FIELD(xhd_surface_result, device),
    XHD_FIELD(xhd_surface_result, reserved),
    XHD_FIELD(xhd_surface_result, origin),
    // xhd_nearest_result
    XHD_FIELD(xhd_nearest_result, build_ms),
    XHD_FIELD(xhd_nearest_result, query_ms),
    XHD_FIELD(xhd_nearest_result, distance_evals),
    XHD_FIELD(xhd_nearest_result, device),
    XHD_FIELD(xhd_nearest_result, reserved),
    // xhd_per_point
    XHD_FIELD(xhd_per_point, distance_ab),
    XHD_FIELD(xhd_per_point, nearest_ab),
    XHD_FIELD(xhd_per_point, distance_ba),
    XHD_FIELD(xhd_per_point, nearest_ba),
    // xhd_las_job
    XHD_FIELD(xhd_las_job, body_offset),
    XHD_FIELD(xhd_las_job, point_count),
    XHD_FIELD(xhd_las_job, piece_bytes),
    XHD_FIELD(xhd_las_job, every),
    XHD_FIELD(xhd_las_job, record_length),
    XHD_FIELD(xhd_las_job, extended),
    XHD_FIELD(xhd_las_job, scale),
    XHD_FIELD(xhd_las_job, offset),
    XHD_FIELD(xhd_las_job, classes),
    XHD_FIELD(xhd_las_job, box),
    XHD_FIELD(xhd_las_job, returns),
    XHD_FIELD(xhd_las_job, threads),
    // xhd_las_result
    XHD_FIELD(xhd_las_result, kind),
    XHD_FIELD(xhd_las_result, error_number),
    XHD_FIELD(xhd_las_result, record),
    XHD_FIELD(xhd_las_result, byte),
    XHD_FIELD(xhd_las_result, kept),
    XHD_FIELD(xhd_las_result, class_counts),
    XHD_FIELD(xhd_las_result, return_counts),
    XHD_FIELD(xhd_las_result, raw_min),
    XHD_FIELD(xhd_las_result, raw_max),
    XHD_FIELD(xhd_las_result, min),
    XHD_FIELD(xhd_las_result, max),
    // xhd_e57_job
    XHD_FIELD(xhd_e57_job, data_start),
    XHD_FIELD(xhd_e57_job, section_end),
    XHD_FIELD(xhd_e57_job, records),
    XHD_FIELD(xhd_e57_job, piece_bytes),
    XHD_FIELD(xhd_e57_job, minimum),
    XHD_FIELD(xhd_e57_job, scale),
    XHD_FIELD(xhd_e57_job, offset),
    XHD_FIELD(xhd_e57_job, kind),
    XHD_FIELD(xhd_e57_job, bits),
    XHD_FIELD(xhd_e57_job, stream),
    XHD_FIELD(xhd_e57_job, field_count),
    XHD_FIELD(xhd_e57_job, spherical),
    XHD_FIELD(xhd_e57_job, pose),
    XHD_FIELD(xhd_e57_job, threads),
    XHD_FIELD(xhd_e57_job, reserved),
    // xhd_e57_result
    XHD_FIELD(xhd_e57_result, kind),
    XHD_FIELD(xhd_e57_result, error_number),
    XHD_FIELD(xhd_e57_result, kept),
    XHD_FIELD(xhd_e57_result, invalid),
    XHD_FIELD(xhd_e57_result, min),
    XHD_FIELD(xhd_e57_result, max),
    // xhd_placement
    XHD_FIELD(xhd_placement, devices),
    XHD_FIELD(xhd_placement, device_count),
    XHD_FIELD(xhd_placement, spatial_directions),
    XHD_FIELD(xhd_placement, memory_limit),
    XHD_FIELD(xhd_placement, target_tiles),
    XHD_FIELD(xhd_placement, workers),
    // xhd_point_file
    XHD_FIELD(xhd_point_file, path),
    XHD_FIELD(xhd_point_file, layout),
    XHD_FIELD(xhd_point_file, laz),
    XHD_FIELD(xhd_point_file, laz_check_bounds),
    XHD_FIELD(xhd_point_file, laz_job),
    XHD_FIELD(xhd_point_file, laz_bounds),
    // xhd_streamed
    XHD_FIELD(xhd_streamed, memory_limit),
    XHD_FIELD(xhd_streamed, slabs),
    XHD_FIELD(xhd_streamed, passes),
    XHD_FIELD(xhd_streamed, peak_bytes),
    XHD_FIELD(xhd_streamed, second_pass_queries),
    XHD_FIELD(xhd_streamed, bad_file),
    XHD_FIELD(xhd_streamed, slow_directions),
    XHD_FIELD(xhd_streamed, read),
    XHD_FIELD(xhd_streamed, min_a),
    XHD_FIELD(xhd_streamed, max_a),
    XHD_FIELD(xhd_streamed, min_b),
    XHD_FIELD(xhd_streamed, max_b),
    XHD_FIELD(xhd_streamed, skipped_records),
    XHD_FIELD(xhd_streamed, slow_slabs),
    // xhd_laz_job
    XHD_FIELD(xhd_laz_job, chunks),
    XHD_FIELD(xhd_laz_job, chunk_count),
    XHD_FIELD(xhd_laz_job, point_count),
    XHD_FIELD(xhd_laz_job, items),
    XHD_FIELD(xhd_laz_job, item_count),
    XHD_FIELD(xhd_laz_job, record_length),
    XHD_FIELD(xhd_laz_job, scale),
    XHD_FIELD(xhd_laz_job, offset),
    XHD_FIELD(xhd_laz_job, classes),
    XHD_FIELD(xhd_laz_job, box),
    XHD_FIELD(xhd_laz_job, returns),
    XHD_FIELD(xhd_laz_job, threads),
    XHD_FIELD(xhd_laz_job, piece_bytes),
    // xhd_laz_result
    XHD_FIELD(xhd_laz_result, kind),
    XHD_FIELD(xhd_laz_result, error_number),
    XHD_FIELD(xhd_laz_result, chunk),
    XHD_FIELD(xhd_laz_result, byte),
    XHD_FIELD(xhd_laz_result, kept),
    XHD_FIELD(xhd_laz_result, class_counts),
    XHD_FIELD(xhd_laz_result, return_counts),
    XHD_FIELD(xhd_laz_result, raw_min),
    XHD_FIELD(xhd_laz_result, raw_max),
    XHD_FIELD(xhd_laz_result, min),
    XHD_FIELD(xhd_laz_result, max),
    // xhd_laz_points
    XHD_FIELD(xhd_laz_points, count),
    XHD_FIELD(xhd_laz_points, xyz),
    XHD_FIELD(xhd_laz_points, intensity),
    XHD_FIELD(xhd_laz_points, return_number),
    XHD_FIELD(xhd_laz_points, return_count),
    XHD_FIELD(xhd_laz_points, classification),
    XHD_FIELD(xhd_laz_points, gps_time),
    XHD_FIELD(xhd_laz_points, rgb),
    XHD_FIELD(xhd_laz_points, extra),
    XHD_FIELD(xhd_laz_points, extra_count),
    XHD_FIELD(xhd_laz_points, point_format),
    XHD_FIELD(xhd_laz_points, scale),
    XHD_FIELD(xhd_laz_points, offset),
    XHD_FIELD(xhd_laz_points, chunk_size),
    XHD_FIELD(xhd_laz_points, threads),
    // xhd_laz_write_result
    XHD_FIELD(xhd_laz_write_result, kind),
    XHD_FIELD(xhd_laz_write_result, error_number),
    XHD_FIELD(xhd_laz_write_result, point),
    XHD_FIELD(xhd_laz_write_result, value),
    XHD_FIELD(xhd_laz_write_result, axis),
    XHD_FIELD(xhd_laz_write_result, chunks),
    XHD_FIELD(xhd_laz_write_result, bytes),
    XHD_FIELD(xhd_laz_write_result, min),
    XHD_FIELD(xhd_laz_write_result, max),
    // xhd_file_read
    XHD_FIELD(xhd_file_read, bytes),
    XHD_FIELD(xhd_file_read, error_number),
    XHD_FIELD(xhd_file_read, reserved),
    // xhd_ply_vertex_layout
    XHD_FIELD(xhd_ply_vertex_layout, body_offset),
    XHD_FIELD(xhd_ply_vertex_layout, count),
    XHD_FIELD(xhd_ply_vertex_layout, piece_bytes),
    XHD_FIELD(xhd_ply_vertex_layout, stride),
    XHD_FIELD(xhd_ply_vertex_layout, swap_bytes),
    XHD_FIELD(xhd_ply_vertex_layout, offset),
    XHD_FIELD(xhd_ply_vertex_layout, type),
    XHD_FIELD(xhd_ply_vertex_layout, output),
    XHD_FIELD(xhd_ply_vertex_layout, threads),
    XHD_FIELD(xhd_ply_vertex_layout, scale),
    XHD_FIELD(xhd_ply_vertex_layout, add),
    // xhd_read_result
    XHD_FIELD(xhd_read_result, kind),
    XHD_FIELD(xhd_read_result, error_number),
    XHD_FIELD(xhd_read_result, record),
    XHD_FIELD(xhd_read_result, byte),
    XHD_FIELD(xhd_read_result, value),
    XHD_FIELD(xhd_read_result, min),
    XHD_FIELD(xhd_read_result, max),
    // xhd_delimited_layout
    XHD_FIELD(xhd_delimited_layout, slots),
    XHD_FIELD(xhd_delimited_layout, column_count),
    XHD_FIELD(xhd_delimited_layout, comma),
    XHD_FIELD(xhd_delimited_layout, threads),
    XHD_FIELD(xhd_delimited_layout, reserved),
    XHD_FIELD(xhd_delimited_layout, piece_bytes),
    // xhd_delimited_result
    XHD_FIELD(xhd_delimited_result, rows),
    XHD_FIELD(xhd_delimited_result, plain),
    XHD_FIELD(xhd_delimited_result, reserved),
    XHD_FIELD(xhd_delimited_result, min),
    XHD_FIELD(xhd_delimited_result, max),
    // xhd_distance_options
    XHD_FIELD(xhd_distance_options, which),
    XHD_FIELD(xhd_distance_options, method),
    XHD_FIELD(xhd_distance_options, threads),
    XHD_FIELD(xhd_distance_options, device),
    // xhd_distance_pair
    XHD_FIELD(xhd_distance_pair, distance),
    XHD_FIELD(xhd_distance_pair, triangle_a),
    XHD_FIELD(xhd_distance_pair, triangle_b),
    XHD_FIELD(xhd_distance_pair, point_a),
    XHD_FIELD(xhd_distance_pair, point_b),
    XHD_FIELD(xhd_distance_pair, intersecting),
    XHD_FIELD(xhd_distance_pair, reserved),
    // xhd_distance_result
    XHD_FIELD(xhd_distance_result, min),
    XHD_FIELD(xhd_distance_result, max),
    XHD_FIELD(xhd_distance_result, query_ms),
    XHD_FIELD(xhd_distance_result, upload_ms),
    XHD_FIELD(xhd_distance_result, download_ms),
    XHD_FIELD(xhd_distance_result, box_pairs),
    XHD_FIELD(xhd_distance_result, triangle_pairs),
    XHD_FIELD(xhd_distance_result, peak_device_bytes),
    XHD_FIELD(xhd_distance_result, device),
    XHD_FIELD(xhd_distance_result, iterations),
    XHD_FIELD(xhd_distance_result, contact_pairs),
    XHD_FIELD(xhd_distance_result, contact_min),
    XHD_FIELD(xhd_distance_result, contact_max),
    XHD_FIELD(xhd_distance_result, solids),
    XHD_FIELD(xhd_distance_result, solids_flags),
    XHD_FIELD(xhd_distance_result, penetration_lower),
    XHD_FIELD(xhd_distance_result, penetration_upper),
    XHD_FIELD(xhd_distance_result, penetration_direction),
    // xhd_surface_compare_options
    XHD_FIELD(xhd_surface_compare_options, method),
    XHD_FIELD(xhd_surface_compare_options, directions),
    XHD_FIELD(xhd_surface_compare_options, sampling),
    XHD_FIELD(xhd_surface_compare_options, threads),
    XHD_FIELD(xhd_surface_compare_options, device),
    XHD_FIELD(xhd_surface_compare_options, reserved),
    XHD_FIELD(xhd_surface_compare_options, samples),
    XHD_FIELD(xhd_surface_compare_options, density),
    XHD_FIELD(xhd_surface_compare_options, seed),
    // xhd_surface_direction
    XHD_FIELD(xhd_surface_direction, hd),
    XHD_FIELD(xhd_surface_direction, min),
    XHD_FIELD(xhd_surface_direction, mean),
    XHD_FIELD(xhd_surface_direction, rms),
    XHD_FIELD(xhd_surface_direction, e),
    XHD_FIELD(xhd_surface_direction, samples),
    XHD_FIELD(xhd_surface_direction, from_index),
    XHD_FIELD(xhd_surface_direction, to_index),
    XHD_FIELD(xhd_surface_direction, from_point),
    XHD_FIELD(xhd_surface_direction, to_point),
    XHD_FIELD(xhd_surface_direction, queries_from),
    XHD_FIELD(xhd_surface_direction, reserved),
    XHD_FIELD(xhd_surface_direction, queries),
    XHD_FIELD(xhd_surface_direction, queries64),
    XHD_FIELD(xhd_surface_direction, distances),
    XHD_FIELD(xhd_surface_direction, build_ms),
    XHD_FIELD(xhd_surface_direction, query_ms),
    XHD_FIELD(xhd_surface_direction, upload_ms),
    XHD_FIELD(xhd_surface_direction, download_ms),
    XHD_FIELD(xhd_surface_direction, triangle_tests),
    XHD_FIELD(xhd_surface_direction, peak_device_bytes),
    // xhd_surface_compare_result
    XHD_FIELD(xhd_surface_compare_result, ab),
    XHD_FIELD(xhd_surface_compare_result, ba),
    XHD_FIELD(xhd_surface_compare_result, sample_ms),
    XHD_FIELD(xhd_surface_compare_result, build_ms),
    XHD_FIELD(xhd_surface_compare_result, query_ms),
    XHD_FIELD(xhd_surface_compare_result, upload_ms),
    XHD_FIELD(xhd_surface_compare_result, download_ms),
    XHD_FIELD(xhd_surface_compare_result, peak_device_bytes),
    XHD_FIELD(xhd_surface_compare_result, device),
    XHD_FIELD(xhd_surface_compare_result, threads),
    XHD_FIELD(xhd_surface_compare_result, origin),
    // xhd_voxel_mask
    XHD_FIELD(xhd_voxel_mask, values),
    XHD_FIELD(xhd_voxel_mask, value_type),
    XHD_FIELD(xhd_voxel_mask, use_label),
    XHD_FIELD(xhd_voxel_mask, dims),
    XHD_FIELD(xhd_voxel_mask, label),
    XHD_FIELD(xhd_voxel_mask, affine),
    XHD_FIELD(xhd_voxel_mask, surface),
    XHD_FIELD(xhd_voxel_mask, threads),
    XHD_FIELD(xhd_voxel_mask, device),
    XHD_FIELD(xhd_voxel_mask, reserved),
    // xhd_mask_points_result
    XHD_FIELD(xhd_mask_points_result, xyz),
    XHD_FIELD(xhd_mask_points_result, count),
    XHD_FIELD(xhd_mask_points_result, foreground),
    XHD_FIELD(xhd_mask_points_result, upload_ms),
    XHD_FIELD(xhd_mask_points_result, compute_ms),
    XHD_FIELD(xhd_mask_points_result, download_ms),
    XHD_FIELD(xhd_mask_points_result, peak_device_bytes),
    XHD_FIELD(xhd_mask_points_result, device),
    XHD_FIELD(xhd_mask_points_result, threads),
    XHD_FIELD(xhd_mask_points_result, bounds),
    // xhd_distance_stats_options
    XHD_FIELD(xhd_distance_stats_options, percentile),
    XHD_FIELD(xhd_distance_stats_options, has_percentile),
    XHD_FIELD(xhd_distance_stats_options, pooled),
    XHD_FIELD(xhd_distance_stats_options, threads),
    XHD_FIELD(xhd_distance_stats_options, device),
    XHD_FIELD(xhd_distance_stats_options, tolerances),
    XHD_FIELD(xhd_distance_stats_options, within_ab),
    XHD_FIELD(xhd_distance_stats_options, within_ba),
    XHD_FIELD(xhd_distance_stats_options, tolerance_count),
    // xhd_directed_stats
    XHD_FIELD(xhd_directed_stats, count),
    XHD_FIELD(xhd_directed_stats, max),
    XHD_FIELD(xhd_directed_stats, sum),
    XHD_FIELD(xhd_directed_stats, sq_sum),
    XHD_FIELD(xhd_directed_stats, percentile),
    // xhd_distance_stats_result
    XHD_FIELD(xhd_distance_stats_result, ab),
    XHD_FIELD(xhd_distance_stats_result, ba),
    XHD_FIELD(xhd_distance_stats_result, pooled_percentile),
    XHD_FIELD(xhd_distance_stats_result, upload_ms),
    XHD_FIELD(xhd_distance_stats_result, compute_ms),
    XHD_FIELD(xhd_distance_stats_result, device),
    XHD_FIELD(xhd_distance_stats_result, threads),
    // xhd_join_set
    XHD_FIELD(xhd_join_set, xyz),
    XHD_FIELD(xhd_join_set, xyz64),
    XHD_FIELD(xhd_join_set, vertex_count),
    XHD_FIELD(xhd_join_set, triangles),
    XHD_FIELD(xhd_join_set, object_faces),
    XHD_FIELD(xhd_join_set, object_count),
    // xhd_join_options
    XHD_FIELD(xhd_join_options, predicate),
    XHD_FIELD(xhd_join_options, method),
    XHD_FIELD(xhd_join_options, threads),
    XHD_FIELD(xhd_join_options, device),
    XHD_FIELD(xhd_join_options, distance),
    XHD_FIELD(xhd_join_options, k),
    XHD_FIELD(xhd_join_options, self_join),
    XHD_FIELD(xhd_join_options, group_size),
    XHD_FIELD(xhd_join_options, reserved),
    // xhd_join_result
    XHD_FIELD(xhd_join_result, pair_count),
    XHD_FIELD(xhd_join_result, object_pairs),
    XHD_FIELD(xhd_join_result, group_pairs),
    XHD_FIELD(xhd_join_result, triangle_pairs),
    XHD_FIELD(xhd_join_result, build_ms),
    XHD_FIELD(xhd_join_result, filter_ms),
    XHD_FIELD(xhd_join_result, refine_ms),
    XHD_FIELD(xhd_join_result, upload_ms),
    XHD_FIELD(xhd_join_result, download_ms),
    XHD_FIELD(xhd_join_result, peak_device_bytes),
    XHD_FIELD(xhd_join_result, device),
    XHD_FIELD(xhd_join_result, threads),
    XHD_FIELD(xhd_join_result, pairs),
};

constexpr bool same(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

// Whether the table lists the struct's fields completely: each starts where the one before ends, the first at 0,
// and the last ends at the struct's size. The structs of xhd.h have no padding (room kept for alignment is an
// explicit reserved field), so a field missing from the table leaves a gap, which this refuses; so does
// padding added to xhd.h by mistake, which a binding could lay out differently.
constexpr bool listed_completely(const Named& s) {
  uint64_t end = 0, fields = 0;
  for (const Field& f : kFields) {
    if (!same(f.owner, s.name)) continue;
    if (f.offset != end) return false;
    end = f.offset + f.size;
    ++fields;
  }
  return fields > 0 && end == s.size;
}

constexpr bool every_struct_listed_completely() {
  for (const Named& s : kStructs)
    if (!listed_completely(s)) return false;
  return true;
}

static_assert(every_struct_listed_completely(), "kFields must list every field of every struct of xhd.h, in order");

}  // namespace

extern "C" XHD_API uint64_t xhd_struct_size(const char* name) {
  if (name == nullptr) return 0;
  for (const Named& s : kStructs)
    if (std::strcmp(s.name, name) == 0) return s.size;
  return 0;
}

extern "C" XHD_API const char* xhd_struct_field(const char* name, uint32_t index, uint64_t* offset) {
  if (name == nullptr) return nullptr;
  uint32_t seen = 0;
  for (const Field& f : kFields) {
    if (std::strcmp(f.owner, name) != 0) continue;
    if (seen++ != index) continue;
    if (offset != nullptr) *offset = f.offset;
    return f.name;
  }
  return nullptr;
}
