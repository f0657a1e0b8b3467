// CGAL's approximate Hausdorff distance between two meshes, both ways, timed: the peer that
// scripts/bench-surface compares xhd's surface mode with. Each direction samples exactly N random uniform
// points on the faces of the sampled mesh (no vertex or edge samples, as xhd's `area` sampling) and
// measures each one's distance to the other mesh through an AABB tree. Built by scripts/bench/cgal.ts.
//
//   cgal_surface_hausdorff A.off B.off N [--repeat R] [--threads T] [--seed S]
//
// Prints one JSON line; times cover CGAL's sampling, tree build and queries, never file reading.
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Polygon_mesh_processing/IO/polygon_mesh_io.h>
#include <CGAL/Polygon_mesh_processing/distance.h>
#include <CGAL/Polygon_mesh_processing/triangulate_faces.h>
#include <CGAL/Surface_mesh.h>
#include <CGAL/boost/graph/IO/polygon_mesh_io.h>
#include <CGAL/Random.h>
#include <CGAL/version.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#ifdef CGAL_LINKED_WITH_TBB
#include <tbb/global_control.h>
constexpr bool kTbb = true;
#else
constexpr bool kTbb = false;
#endif

using Kernel = CGAL::Exact_predicates_inexact_constructions_kernel;
using Mesh = CGAL::Surface_mesh<Kernel::Point_3>;
namespace PMP = CGAL::Polygon_mesh_processing;

struct Options {
  std::string pathA, pathB;
  std::size_t samples = 0;
  int repeat = 1;
  int threads = 0;  // 0: every core
  unsigned seed = 1;
};

static long parsePositive(const char* text, const char* what) {
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || value < 1) throw std::runtime_error(std::string(what) + " expects a positive integer, got '" + text + "'");
  return value;
}

static Options parseOptions(int argc, char** argv) {
  Options o;
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--repeat") o.repeat = static_cast<int>(parsePositive(next(), "--repeat"));
    else if (arg == "--threads") o.threads = static_cast<int>(parsePositive(next(), "--threads"));
    else if (arg == "--seed") o.seed = static_cast<unsigned>(parsePositive(next(), "--seed"));
    else if (arg.rfind("--", 0) == 0) throw std::runtime_error("unknown option '" + arg + "'");
    else if (positional == 0) o.pathA = arg, ++positional;
    else if (positional == 1) o.pathB = arg, ++positional;
    else if (positional == 2) o.samples = static_cast<std::size_t>(parsePositive(arg.c_str(), "N")), ++positional;
    else throw std::runtime_error("unexpected argument '" + arg + "'");
  }
  if (positional != 3) throw std::runtime_error("usage: cgal_surface_hausdorff A.off B.off N [--repeat R] [--threads T] [--seed S]");
  return o;
}

// Reads a mesh as a Surface_mesh; a file that is not a valid polygon mesh as written (non-manifold,
// badly oriented) is read again as a polygon soup and repaired, which `repaired` reports.
static Mesh readMesh(const std::string& path, bool& repaired) {
  Mesh mesh;
  repaired = false;
  if (!CGAL::IO::read_polygon_mesh(path, mesh) || mesh.is_empty()) {
    mesh.clear();
    repaired = true;
    if (!PMP::IO::read_polygon_mesh(path, mesh) || mesh.is_empty()) throw std::runtime_error("cannot read a polygon mesh from " + path);
  }
  if (!CGAL::is_triangle_mesh(mesh)) PMP::triangulate_faces(mesh);
  return mesh;
}

static double directedMs(const Mesh& from, const Mesh& to, const Options& o, unsigned seed, double& hd) {
  // random_seed seeds only the choice of triangles; CGAL 5.5 places each point inside its triangle with
  // the global default generator, which is seeded from the clock unless seeded here.
  CGAL::get_default_random() = CGAL::Random(seed);
  auto start = std::chrono::steady_clock::now();
  hd = PMP::approximate_Hausdorff_distance<CGAL::Parallel_if_available_tag>(
      from, to,
      CGAL::parameters::number_of_points_on_faces(o.samples)
          .use_random_uniform_sampling(true)
          .do_sample_vertices(false)
          .do_sample_edges(false)
          .random_seed(seed));
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

static double cpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

static void run(const Options& o) {
  int threads = 1;
#ifdef CGAL_LINKED_WITH_TBB
  threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
#endif
  bool repairedA = false, repairedB = false;
  Mesh a = readMesh(o.pathA, repairedA);
  Mesh b = readMesh(o.pathB, repairedB);

  double best = std::numeric_limits<double>::infinity(), bestAb = 0, bestBa = 0, hdAb = 0, hdBa = 0;
  for (int run = 0; run < o.repeat; ++run) {
    double ab = 0, ba = 0;
    // A's samples use the seed and B's the seed + 1, as xhd's do (the streams themselves differ).
    double msAb = directedMs(a, b, o, o.seed, ab);
    double msBa = directedMs(b, a, o, o.seed + 1, ba);
    if (msAb + msBa < best) best = msAb + msBa, bestAb = msAb, bestBa = msBa, hdAb = ab, hdBa = ba;
  }
  std::printf(
      "{\"hd_ab\":%.17g,\"hd_ba\":%.17g,\"ms_ab\":%.3f,\"ms_ba\":%.3f,\"ms\":%.3f,\"threads\":%d,\"tbb\":%s,\"cgal\":\"%s\","
      "\"samples\":%zu,\"repeat\":%d,\"faces_a\":%zu,\"faces_b\":%zu,\"repaired_a\":%s,\"repaired_b\":%s,\"cpu_s\":%.3f}\n",
      hdAb, hdBa, bestAb, bestBa, best, threads, kTbb ? "true" : "false", CGAL_VERSION_STR, o.samples, o.repeat,
      static_cast<std::size_t>(a.number_of_faces()), static_cast<std::size_t>(b.number_of_faces()),
      repairedA ? "true" : "false", repairedB ? "true" : "false", cpuSeconds());
}

int main(int argc, char** argv) {
  try {
    run(parseOptions(argc, argv));
    return 0;
  } catch (const std::exception& err) {
    std::fprintf(stderr, "cgal_surface_hausdorff: %s\n", err.what());
    return 1;
  }
}
