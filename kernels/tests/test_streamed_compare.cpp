// xhd_points_compare_files (cpu/streamed_compare.h): two binary PLY point sets compared while held in slabs
// and tiles of a small memory limit give xhd_hausdorff's answer over the same values, bit for bit with the
// witnesses: float32 and double records (with other properties in them), ties, survey coordinates, 2D data,
// a hole that defeats the first halo, sets far apart, LAZ files decoded a run of chunks at a time; and a bad
// record (or a LAZ file's bad chunk) is named by its file, record (chunk) and byte, with nothing else to read.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <algorithm>
#include <vector>

#include "../cpu/laz_chunk_encode.h"
#include "../cpu/point_file_reader.h"
#include "../cpu/slab_ordered_copy.h"
#include "check.h"
#include "random_points.h"
#include "temp_file.h"
#include "xhd.h"

namespace {

// Records of x, y, z (and, with `extra`, an int32 before and a uint8 after them), float or double.
template <class T>
std::vector<uint8_t> ply_records(const std::vector<double>& xyz, bool extra, bool two_d, size_t* header_bytes) {
  const size_t n = xyz.size() / 3;
  const std::string type = sizeof(T) == 4 ? "float" : "double";
  std::string header = "ply\nformat binary_little_endian 1.0\nelement vertex " + std::to_string(n) + "\n";
  if (extra) header += "property int id\n";
  header += "property " + type + " x\nproperty " + type + " y\n";
  if (!two_d) header += "property " + type + " z\n";
  if (extra) header += "property uchar flag\n";
  header += "end_header\n";
  std::vector<uint8_t> bytes(header.begin(), header.end());
  *header_bytes = bytes.size();
  for (size_t i = 0; i < n; ++i) {
    if (extra) {
      const int32_t id = static_cast<int32_t>(i);
      bytes.insert(bytes.end(), reinterpret_cast<const uint8_t*>(&id), reinterpret_cast<const uint8_t*>(&id) + 4);
    }
    for (int k = 0; k < (two_d ? 2 : 3); ++k) {
      const T v = static_cast<T>(xyz[3 * i + k]);
      bytes.insert(bytes.end(), reinterpret_cast<const uint8_t*>(&v), reinterpret_cast<const uint8_t*>(&v) + sizeof(T));
    }
    if (extra) bytes.push_back(7);
  }
  return bytes;
}

// One set: its PLY file and the values the reader gives (the float32 ones rounded), as a point set.
struct PlySet {
  std::vector<float> f;
  std::vector<double> d;
  std::unique_ptr<xhd_test::TempFile> file;
  xhd_point_file point_file{};

  PlySet(const std::vector<double>& xyz, bool floats, bool extra = false, bool two_d = false) {
    size_t header = 0;
    const std::vector<uint8_t> bytes =
        floats ? ply_records<float>(xyz, extra, two_d, &header) : ply_records<double>(xyz, extra, two_d, &header);
    file = std::make_unique<xhd_test::TempFile>(bytes);
    const int size = floats ? 4 : 8;
    const int base = extra ? 4 : 0;
    xhd_ply_vertex_layout& l = point_file.layout;
    l.body_offset = header;
    l.count = xyz.size() / 3;
    l.stride = static_cast<uint32_t>(base + (two_d ? 2 : 3) * size + (extra ? 1 : 0));
    for (int k = 0; k < 3; ++k) {
      l.offset[k] = k == 2 && two_d ? -1 : base + k * size;
      l.type[k] = floats ? XHD_FLOAT32 : XHD_FLOAT64;
    }
    l.output = floats ? XHD_FLOAT32 : XHD_FLOAT64;
    point_file.path = file->path();
    for (size_t i = 0; i < xyz.size(); ++i) {
      const double v = two_d && i % 3 == 2 ? 0.0 : xyz[i];
      if (floats) f.push_back(static_cast<float>(v));
      else d.push_back(v);
    }
  }
  xhd_points points() const {
    return f.empty() ? xhd_points{nullptr, d.size() / 3, d.data()} : xhd_points{f.data(), f.size() / 3, nullptr};
  }
};

// One LAZ set of point format 0 (the POINT10 item): integer X, Y, Z scaled by 0.01 and offset by 1000, in chunks
// of `chunk_size`, after a prefix the reader never reads; the doubles the reader gives, as a point set.
struct LazSet {
  std::vector<double> d;
  std::vector<uint64_t> chunks;  // offset, bytes, points, first point
  std::vector<uint16_t> items{6, 20, 2};
  std::unique_ptr<xhd_test::TempFile> file;
  xhd_point_file point_file{};

  LazSet(const std::vector<double>& xyz, uint64_t chunk_size) {
    const size_t n = xyz.size() / 3;
    constexpr uint32_t kLength = 20;
    std::vector<uint8_t> records(n * kLength, 0);
    for (size_t i = 0; i < n; ++i) {
      uint8_t* r = records.data() + i * kLength;
      for (int k = 0; k < 3; ++k) {
        const int32_t stored = static_cast<int32_t>(std::lround((xyz[3 * i + k] - 1000.0) / 0.01));
        xhd::laz::store<int32_t>(r + 4 * k, stored);
        d.push_back(stored * 0.01 + 1000.0);  // as the reader scales it: the product, then the sum
      }
      r[14] = 1 | (1 << 3);  // return 1 of 1
      r[15] = 2;             // ground
    }
    std::vector<uint8_t> bytes(64, 0xab);
    const std::vector<xhd::laz::Item> item_list{{6, 20, 2}};
    for (uint64_t first = 0; first < n; first += chunk_size) {
      const uint64_t count = std::min<uint64_t>(chunk_size, n - first);
      std::vector<uint8_t> chunk;
      xhd::laz::encode_chunk(records.data() + first * kLength, count, item_list, kLength, chunk);
      chunks.insert(chunks.end(), {bytes.size(), chunk.size(), count, first});
      bytes.insert(bytes.end(), chunk.begin(), chunk.end());
    }
    file = std::make_unique<xhd_test::TempFile>(bytes);
    point_file.path = file->path();
    point_file.layout.count = n;
    point_file.layout.output = XHD_FLOAT64;
    point_file.laz = 1;
    point_file.laz_check_bounds = 1;
    xhd_laz_job& job = point_file.laz_job;
    job.chunks = chunks.data();
    job.chunk_count = chunks.size() / 4;
    job.point_count = n;
    job.items = items.data();
    job.item_count = 1;
    job.record_length = kLength;
    for (int k = 0; k < 3; ++k) {
      job.scale[k] = 0.01;
      job.offset[k] = 1000.0;
      point_file.laz_bounds[k] = INFINITY;
      point_file.laz_bounds[3 + k] = -INFINITY;
    }
    for (size_t i = 0; i < d.size(); ++i) {
      point_file.laz_bounds[i % 3] = std::min(point_file.laz_bounds[i % 3], d[i]);
      point_file.laz_bounds[3 + i % 3] = std::max(point_file.laz_bounds[3 + i % 3], d[i]);
    }
  }
  xhd_points points() const { return xhd_points{nullptr, d.size() / 3, d.data()}; }
};

xhd_hausdorff_options grid_options() {
  xhd_hausdorff_options o{};
  o.method = XHD_METHOD_GRID;
  o.directions = XHD_DIRECTION_AB | XHD_DIRECTION_BA;
  o.threads = 2;
  o.seed = 1;
  return o;
}

template <class SetA, class SetB>
xhd_streamed check_streamed_once(const SetA& a, const SetB& b, uint64_t limit) {
  const xhd_hausdorff_options o = grid_options();
  xhd_hausdorff_result whole{};
  const xhd_points pa = a.points(), pb = b.points();
  CHECK_EQ(xhd_hausdorff(&pa, &pb, &o, &whole, nullptr), int32_t(XHD_OK));
  xhd_streamed streamed{};
  streamed.memory_limit = limit;
  xhd_hausdorff_result got{};
  CHECK_EQ(xhd_points_compare_files(&a.point_file, &b.point_file, &o, &streamed, &got, nullptr), int32_t(XHD_OK));
  CHECK_EQ(streamed.bad_file, -1);
  CHECK_EQ(got.ab.distance, whole.ab.distance);
  CHECK_EQ(got.ab.from_index, whole.ab.from_index);
  CHECK_EQ(got.ab.to_index, whole.ab.to_index);
  CHECK_EQ(got.ba.distance, whole.ba.distance);
  CHECK_EQ(got.ba.from_index, whole.ba.from_index);
  CHECK_EQ(got.ba.to_index, whole.ba.to_index);
  // Each file's bounds, as a plain pass over its values gives them.
  for (const auto& [p, lo, hi] : {std::tuple{a.points(), streamed.min_a, streamed.max_a}, std::tuple{b.points(), streamed.min_b, streamed.max_b}}) {
    for (int k = 0; k < 3; ++k) {
      double least = INFINITY, most = -INFINITY;
      for (size_t i = 0; i < p.count; ++i) {
        const double v = p.xyz != nullptr ? p.xyz[3 * i + k] : p.xyz64[3 * i + k];
        least = std::min(least, v);
        most = std::max(most, v);
      }
      CHECK_EQ(lo[k], least);
      CHECK_EQ(hi[k], most);
    }
  }
  return streamed;
}

// The streamed answer under `limit` bytes equals the in-memory one, with the inputs' slab-ordered copies (the
// default) and without them (passes over the files); returns what the streaming did with them, or without
// them (`with_copies` false).
template <class SetA, class SetB>
xhd_streamed check_streamed(const SetA& a, const SetB& b, uint64_t limit, bool with_copies = true) {
  xhd_streamed kept{};
  for (const char* copies : {"0", "1"}) {
    setenv("XHD_STREAMED_SLAB_COPY", copies, 1);
    const xhd_streamed s = check_streamed_once(a, b, limit);
    if (with_copies == (copies[0] == '1')) kept = s;
  }
  unsetenv("XHD_STREAMED_SLAB_COPY");
  return kept;
}

// Points in the unit square (z = 0).
std::vector<double> cloud_2d(xhd_test::Random& rng) {
  std::vector<double> xyz = xhd_test::uniform_points(rng, 6000, 0.0, 1.0);
  for (size_t i = 2; i < xyz.size(); i += 3) xyz[i] = 0.0;
  return xyz;
}

std::vector<double> shifted(const std::vector<double>& xyz, double dx) {
  std::vector<double> out = xyz;
  for (size_t i = 0; i < out.size(); i += 3) out[i] += dx;
  return out;
}

}  // namespace

TEST(streamed_compare_equals_the_in_memory_one) {
  xhd_test::Random rng(81);
  const std::vector<double> cloud = xhd_test::uniform_points(rng, 20000, 0.0, 1.0);
  for (const bool floats : {true, false}) {
    const PlySet a(cloud, floats), b(shifted(cloud, 0.005), floats, /*extra=*/true);
    // Small limits: slabs of about a thousand queries and tiles of about a thousand targets.
    const xhd_streamed small = check_streamed(a, b, 100000);
    CHECK(small.slabs > 10);
    CHECK(small.passes > 40);
    CHECK_EQ(check_streamed(a, b, 2000000).slow_directions, 0);  // each slab's X-HD, proven by the halo
    // Over the slab-ordered copies, a pass reads only the slabs it needs: most of each file is not read.
    CHECK(small.skipped_records > small.passes * 20000 / 2);
    CHECK_EQ(check_streamed(a, b, 100000, false).skipped_records, uint64_t(0));
    const xhd_streamed roomy = check_streamed(a, b, uint64_t(1) << 30);  // one slab, one tile
    CHECK_EQ(roomy.slabs, 1u);
  }
}

TEST(streamed_compare_settles_ties_survey_coordinates_and_2d) {
  xhd_test::Random rng(82);
  // Ties: B holds copies of A's points moved by exactly 1/8 along x, and exact duplicates.
  std::vector<double> a = xhd_test::uniform_points(rng, 6000, 0.0, 4.0), b;
  for (size_t i = 0; i < 3000; ++i) {
    b.insert(b.end(), {a[3 * i] + 0.125, a[3 * i + 1], a[3 * i + 2]});
    b.insert(b.end(), {a[3 * i] + 0.125, a[3 * i + 1], a[3 * i + 2]});
  }
  check_streamed(PlySet(a, false), PlySet(b, false), 60000);
  check_streamed(PlySet(a, true), PlySet(b, true), 60000);
  // Survey coordinates in double.
  const std::vector<double> far = xhd_test::uniform_points(rng, 8000, 4.2e6, 100.0);
  check_streamed(PlySet(far, false), PlySet(shifted(far, 0.012), false), 80000);
  // 2D data (no z).
  check_streamed(PlySet(cloud_2d(rng), true, false, true), PlySet(cloud_2d(rng), true, false, true), 80000);
}

TEST(streamed_compare_searches_again_where_the_first_halo_falls_short) {
  // B is A without a ball of radius 0.2: the A -> B HD is about the radius, far beyond the first halo.
  xhd_test::Random rng(83);
  const std::vector<double> a = xhd_test::uniform_points(rng, 20000, 0.0, 1.0);
  std::vector<double> b;
  for (size_t i = 0; i < a.size(); i += 3) {
    const double dx = a[i] - 0.5, dy = a[i + 1] - 0.5, dz = a[i + 2] - 0.5;
    if (dx * dx + dy * dy + dz * dz > 0.04) b.insert(b.end(), {a[i], a[i + 1], a[i + 2]});
  }
  // The first round's largest local answer (about the radius) gives a second halo that proves A -> B; B -> A
  // is proven by its first round. Four passes a slab for the first round of both directions (one over each
  // target for its halo, one over each source for its queries), and as many again for A -> B's second.
  const xhd_streamed s = check_streamed(PlySet(a, true), PlySet(b, true), 1500000);
  CHECK(s.slabs > 4);
  CHECK_EQ(s.slow_directions, 0);
  CHECK_EQ(s.second_pass_queries, 0u);
  const xhd_streamed proven = check_streamed(PlySet(a, true), PlySet(shifted(a, 0.001), true), 1500000);
  CHECK_EQ(proven.slow_directions, 0);
  CHECK(s.passes > proven.passes);
  // A far outlier first in A (so the plan's sample holds it): no halo that proves the outlier's slab of A -> B
  // fits the memory, so that slab's queries are searched query by query; the other slabs, and B -> A, whose
  // guesses are measured over the bulk of the sample, are proven by their halos.
  std::vector<double> outlier = {40.0, 0.5, 0.5};
  outlier.insert(outlier.end(), a.begin(), a.end());
  const xhd_streamed slow = check_streamed(PlySet(outlier, true), PlySet(b, true), 1500000);
  CHECK(slow.slabs > 4);
  CHECK_EQ(slow.slow_directions, 1);
  CHECK_EQ(slow.slow_slabs, 1u);
  // A far cluster, 2% of A's points in a box of side 1e-3 and all in the sample's first runs: the same, its slab
  // alone searched slowly. (A far group as long as the bulk along the plan's axis would reach every slab.)
  std::vector<double> cluster = a;
  for (size_t i = 0; i < cluster.size() / 50; i += 3) {
    cluster[i] = 1e7 + 1e-4 * (i % 7);
    cluster[i + 1] = 0.5 + 1e-4 * (i % 11);
    cluster[i + 2] = 0.5 + 1e-4 * (i % 13);
  }
  const xhd_streamed clustered = check_streamed(PlySet(cluster, true), PlySet(b, true), 1500000);
  CHECK(clustered.slabs > 4);
  CHECK_EQ(clustered.slow_directions, 1);
  CHECK_EQ(clustered.slow_slabs, 1u);
  // Far apart: every query's nearest lies in another slab's space.
  const std::vector<double> c = xhd_test::uniform_points(rng, 5000, 0.0, 1.0);
  const std::vector<double> d = xhd_test::uniform_points(rng, 5000, 3.0, 1.0);
  check_streamed(PlySet(c, false), PlySet(d, false), 60000);
}

TEST(streamed_compare_names_a_bad_record) {
  xhd_test::Random rng(84);
  std::vector<double> a = xhd_test::uniform_points(rng, 5000, 0.0, 1.0);
  const std::vector<double> b = xhd_test::uniform_points(rng, 5000, 0.0, 1.0);
  a[3 * 3210 + 1] = std::nan("");
  const PlySet pa(a, false), pb(b, false);
  const xhd_hausdorff_options o = grid_options();
  xhd_streamed streamed{};
  streamed.memory_limit = 60000;
  xhd_hausdorff_result got{};
  CHECK_EQ(xhd_points_compare_files(&pa.point_file, &pb.point_file, &o, &streamed, &got, nullptr), int32_t(XHD_OK));
  CHECK_EQ(streamed.bad_file, 0);
  CHECK_EQ(streamed.read.kind, int32_t(XHD_READ_BAD_VALUE));
  CHECK_EQ(streamed.read.record, uint64_t(3210));
  CHECK_EQ(streamed.read.byte, pa.point_file.layout.body_offset + 3210ull * 24);
  // A refused call: an empty set, another method.
  xhd_point_file empty = pb.point_file;
  empty.layout.count = 0;
  CHECK_EQ(xhd_points_compare_files(&pa.point_file, &empty, &o, &streamed, &got, nullptr),
           int32_t(XHD_ERROR_INVALID_ARGUMENT));
  xhd_hausdorff_options eb = o;
  eb.method = XHD_METHOD_EB;
  CHECK_EQ(xhd_points_compare_files(&pa.point_file, &pb.point_file, &eb, &streamed, &got, nullptr),
           int32_t(XHD_ERROR_INVALID_ARGUMENT));
}

TEST(streamed_compare_reads_laz_files_a_run_of_chunks_at_a_time) {
  xhd_test::Random rng(85);
  const std::vector<double> cloud = xhd_test::uniform_points(rng, 12000, 1000.0, 50.0);
  // Chunks of 1,000 points, of 7 (many chunks a piece), and one chunk of the whole file.
  for (const uint64_t chunk_size : {uint64_t(1000), uint64_t(7), uint64_t(12000)}) {
    const LazSet a(cloud, chunk_size), b(shifted(cloud, 0.37), chunk_size);
    CHECK(check_streamed(a, b, 100000).slabs > 4);
  }
  // Points in x order along a long box, as a scanner's strips: each chunk a slice of x (the plan's axis), so
  // the passes that need one slab or halo skip the chunks known to lie outside it.
  std::vector<double> strip = xhd_test::uniform_points(rng, 12000, 1000.0, 50.0);
  for (size_t i = 0; i < strip.size(); i += 3) strip[i] = 1000.0 + 4.0 * (strip[i] - 1000.0);
  std::vector<size_t> order(strip.size() / 3);
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t p, size_t q) { return strip[3 * p] < strip[3 * q]; });
  std::vector<double> sorted;
  for (const size_t i : order) sorted.insert(sorted.end(), {strip[3 * i], strip[3 * i + 1], strip[3 * i + 2]});
  // (Passes over the files, as where no slab-ordered copy can be made: those over a copy skip its slabs.)
  const xhd_streamed skipping = check_streamed(LazSet(sorted, 500), LazSet(shifted(sorted, 0.37), 500), 100000, false);
  CHECK(skipping.slabs > 4);
  CHECK(skipping.skipped_records > 0);
  // In the order drawn, every chunk of 1,000 points spans the whole box: none can be skipped.
  CHECK_EQ(check_streamed(LazSet(cloud, 1000), LazSet(shifted(cloud, 0.37), 1000), 100000, false).skipped_records, uint64_t(0));
  // A LAZ file against a binary PLY one.
  const LazSet a(cloud, 1000);
  check_streamed(a, PlySet(xhd_test::uniform_points(rng, 9000, 1000.0, 50.0), false), 100000);
}

// Every record of the reader's file, read in a pass's pieces (whole chunks), twice over; the decodes it took.
static uint64_t read_twice(const xhd_point_file& file, std::vector<double>& got) {
  const std::unique_ptr<xhd::PointFileReader> reader = xhd::open_point_file(file, 2);
  for (int pass = 0; pass < 2; ++pass) {
    got.assign(3 * file.layout.count, NAN);
    for (uint64_t first = 0; first < file.layout.count;) {
      const uint64_t end = reader->piece_end(first, 2500);
      CHECK_EQ(reader->read(first, end - first, got.data() + 3 * first).kind, int32_t(XHD_READ_OK));
      first = end;
    }
  }
  return reader->chunks_decoded();
}

TEST(streamed_laz_reader_decodes_each_chunk_once) {
  xhd_test::Random rng(87);
  const std::vector<double> cloud = xhd_test::uniform_points(rng, 9000, 1000.0, 50.0);
  const LazSet laz(cloud, 700);  // 13 chunks, the last of 600 points
  const uint64_t chunks = laz.point_file.laz_job.chunk_count;
  std::vector<double> cached, decoded;
  // The second pass reads the chunks back from the temporary file: the same doubles, no decode.
  CHECK_EQ(read_twice(laz.point_file, cached), chunks);
  CHECK(cached == laz.d);
  setenv("XHD_STREAMED_LAZ_CACHE", "0", 1);
  CHECK_EQ(read_twice(laz.point_file, decoded), 2 * chunks);
  unsetenv("XHD_STREAMED_LAZ_CACHE");
  CHECK(decoded == laz.d);
  // Where no temporary file can be made, chunks are decoded every time, as without the cache.
  const LazSet moved(shifted(cloud, 0.37), 700);  // (its file made where the tests' files go)
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string kept = tmpdir != nullptr ? tmpdir : "";
  setenv("TMPDIR", "/nonexistent/xhd-no-such-dir", 1);
  CHECK_EQ(read_twice(laz.point_file, decoded), 2 * chunks);
  // Nor can the slab-ordered copies be made: every pass reads the files (none skips anything, the points
  // being in the order drawn), and the answer is the same.
  const xhd_streamed uncopied = check_streamed(laz, moved, 100000);
  CHECK(uncopied.slabs > 4);
  CHECK_EQ(uncopied.skipped_records, uint64_t(0));
  if (tmpdir != nullptr) setenv("TMPDIR", kept.c_str(), 1);
  else unsetenv("TMPDIR");
  CHECK(decoded == laz.d);
  CHECK(check_streamed(laz, moved, 100000).skipped_records > 0);
  // Streamed compares, with and without it, equal the in-memory one (check_streamed).
  check_streamed(laz, LazSet(shifted(cloud, 0.37), 700), 100000);
  setenv("XHD_STREAMED_LAZ_CACHE", "0", 1);
  check_streamed(laz, LazSet(shifted(cloud, 0.37), 700), 100000);
  unsetenv("XHD_STREAMED_LAZ_CACHE");
}

// The slab-ordered copy reads slabs back merged into record order: a few slabs by scanning their heads, many
// by a heap, and none at all where every slab asked for is empty.
TEST(slab_ordered_copy_merges_slabs_back_into_record_order) {
  constexpr size_t kSlabs = 12, kPoints = 5000;
  std::vector<uint64_t> counts(kSlabs, 0);
  std::vector<int> slab(kPoints);
  std::vector<double> xyz(3 * kPoints);
  std::vector<uint64_t> records(kPoints);
  xhd_test::Random rng(88);
  for (size_t i = 0; i < kPoints; ++i) {
    // Slabs 0 and 11 empty; runs of a slab now and then, as a file in scan order gives.
    slab[i] = i > 0 && rng.uniform(0.0, 1.0) < 0.6 ? slab[i - 1] : 1 + static_cast<int>(rng.uniform(0.0, 10.0));
    ++counts[static_cast<size_t>(slab[i])];
    records[i] = 3 * i + 7;
    for (int k = 0; k < 3; ++k) xyz[3 * i + k] = rng.uniform(0.0, 1.0);
  }
  xhd::SlabOrderedCopy copy(counts, false);
  CHECK(copy.usable());
  copy.append(xyz.data(), records.data(), slab.data(), 1234);  // in two calls, as pieces come
  copy.append(xyz.data() + 3 * 1234, records.data() + 1234, slab.data() + 1234, kPoints - 1234);
  CHECK(copy.complete());
  for (const auto& [first, last] : {std::pair{0, 0}, std::pair{11, 11}, std::pair{3, 3}, std::pair{2, 5}, std::pair{0, 11}}) {
    std::vector<double> got_xyz(3 * kPoints);
    std::vector<uint64_t> got(kPoints);
    // Small reads and small blocks, so that runs end at block and read ends.
    xhd::SlabOrderedCopy::Merge merge = copy.merge(first, last, 300);
    size_t n = 0;
    for (size_t step; (step = merge.next(got_xyz.data() + 3 * n, got.data() + n, 97)) > 0;) n += step;
    size_t expected = 0;
    for (size_t i = 0; i < kPoints; ++i) {
      if (slab[i] < first || slab[i] > last) continue;
      CHECK(expected < n);
      if (expected >= n) break;
      CHECK_EQ(got[expected], records[i]);
      for (int k = 0; k < 3; ++k) CHECK_EQ(got_xyz[3 * expected + k], xyz[3 * i + k]);
      ++expected;
    }
    CHECK_EQ(n, expected);
  }
}

TEST(streamed_compare_names_a_bad_laz_chunk) {
  xhd_test::Random rng(86);
  const std::vector<double> cloud = xhd_test::uniform_points(rng, 6000, 1000.0, 50.0);
  const LazSet good(cloud, 1000);
  const xhd_hausdorff_options o = grid_options();
  const auto run = [&](const xhd_point_file& bad) {
    xhd_streamed streamed{};
    streamed.memory_limit = 60000;
    xhd_hausdorff_result got{};
    const int32_t status = xhd_points_compare_files(&good.point_file, &bad, &o, &streamed, &got, nullptr);
    return std::pair{status, streamed};
  };
  // The last chunk (0-based 5) says it holds more bytes than the file has: it runs past the file's end.
  LazSet cut(cloud, 1000);
  cut.chunks[4 * 5 + 1] += 1000;
  auto [status, streamed] = run(cut.point_file);
  CHECK_EQ(status, int32_t(XHD_OK));
  CHECK_EQ(streamed.bad_file, 1);
  CHECK_EQ(streamed.read.kind, int32_t(XHD_READ_LAZ_CHUNK));
  CHECK_EQ(streamed.read.error_number, int32_t(XHD_LAZ_TRUNCATED));
  CHECK_EQ(streamed.read.record, uint64_t(5));
  // Header bounds with y up to 1001 (the points reach 1050): with the slack of 1 % of the extent (10.01), chunk 0
  // is the first whose points lie outside, and it is named with the axis and its points' extent.
  LazSet narrow(cloud, 1000);
  narrow.point_file.laz_bounds[1] = 0.0;
  narrow.point_file.laz_bounds[4] = 1001.0;
  std::tie(status, streamed) = run(narrow.point_file);
  CHECK_EQ(streamed.bad_file, 1);
  CHECK_EQ(streamed.read.kind, int32_t(XHD_READ_LAZ_OUTSIDE));
  CHECK_EQ(streamed.read.record, uint64_t(0));
  CHECK_EQ(streamed.read.error_number, 1);
  CHECK_EQ(streamed.read.byte, narrow.chunks[0]);
  CHECK(streamed.read.min[0] >= 1000.0 && streamed.read.max[0] > 1011.01);
  // Refused: filters on a LAZ point file, an output other than doubles, a count other than the chunks'.
  for (int which = 0; which < 3; ++which) {
    LazSet refused(cloud, 1000);
    const uint8_t classes[256] = {1};
    if (which == 0) refused.point_file.laz_job.classes = classes;
    if (which == 1) refused.point_file.layout.output = XHD_FLOAT32;
    if (which == 2) refused.point_file.layout.count = 5999;
    CHECK_EQ(run(refused.point_file).first, int32_t(XHD_ERROR_INVALID_ARGUMENT));
  }
}
