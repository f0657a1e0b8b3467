// FCL's mesh-mesh minimum distance, frame by frame: the peer that scripts/bench-distance compares our CPU
// backend with. Reads two meshes and a list of poses for B from the binary files the benchmark writes,
// builds one BVHModel<OBBRSS> per mesh (FCL's bounding volume for distance queries) once, then runs
// fcl::distance for every pose with A at the identity. FCL has no maximum-distance query. Built by
// scripts/bench/fcl.ts.
//
//   fcl_mesh_distance A.mesh B.mesh B.poses [--warmup]
//
// Files (little endian): a mesh is "XHDMESH1", uint64 vertices V, uint64 triangles T, float32[3V], uint32[3T];
// poses are "XHDPOSE1", uint64 frames F, float64[12F] (each the rows of a 3x4 matrix [R | t]).
// Prints one JSON object per line, flushed at once so that a run killed at its time limit still leaves
// the frames it finished: {"built":...}, then one {"frame":...} per pose, then {"done":...}.
// Times cover FCL's work only (building both models; each fcl::distance call), never file reading.
#include <fcl/config.h>
#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/narrowphase/distance.h>

#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using Model = fcl::BVHModel<fcl::OBBRSSd>;
using Clock = std::chrono::steady_clock;

struct RawMesh {
  std::vector<float> xyz;
  std::vector<uint32_t> triangles;
};

static double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

class Reader {
 public:
  Reader(const std::string& path, const char magic[8]) : path_(path), in_(path, std::ios::binary) {
    if (!in_) throw std::runtime_error("cannot open " + path);
    char head[8];
    read(head, sizeof head);
    if (std::memcmp(head, magic, 8) != 0) throw std::runtime_error(path + " is not a " + std::string(magic, 8) + " file");
  }
  uint64_t count() {
    uint64_t n = 0;
    read(&n, sizeof n);
    return n;
  }
  template <typename T>
  void fill(std::vector<T>& out, uint64_t n) {
    out.resize(n);
    read(out.data(), n * sizeof(T));
  }

 private:
  void read(void* to, uint64_t bytes) {
    in_.read(static_cast<char*>(to), static_cast<std::streamsize>(bytes));
    if (static_cast<uint64_t>(in_.gcount()) != bytes) throw std::runtime_error(path_ + " is truncated");
  }
  std::string path_;
  std::ifstream in_;
};

static RawMesh readMesh(const std::string& path) {
  Reader reader(path, "XHDMESH1");
  uint64_t vertices = reader.count(), triangles = reader.count();
  RawMesh mesh;
  reader.fill(mesh.xyz, 3 * vertices);
  reader.fill(mesh.triangles, 3 * triangles);
  for (uint32_t index : mesh.triangles) {
    if (index >= vertices) throw std::runtime_error(path + ": a triangle names vertex " + std::to_string(index) + " of " + std::to_string(vertices));
  }
  return mesh;
}

static std::vector<double> readPoses(const std::string& path) {
  Reader reader(path, "XHDPOSE1");
  std::vector<double> poses;
  reader.fill(poses, 12 * reader.count());
  return poses;
}

// FCL keeps its own double-precision copy of the vertices; the float inputs convert exactly.
static std::shared_ptr<Model> buildModel(const RawMesh& mesh) {
  std::vector<fcl::Vector3d> points(mesh.xyz.size() / 3);
  for (std::size_t v = 0; v < points.size(); ++v) points[v] = fcl::Vector3d(mesh.xyz[3 * v], mesh.xyz[3 * v + 1], mesh.xyz[3 * v + 2]);
  std::vector<fcl::Triangle> triangles(mesh.triangles.size() / 3);
  for (std::size_t t = 0; t < triangles.size(); ++t) triangles[t] = fcl::Triangle(mesh.triangles[3 * t], mesh.triangles[3 * t + 1], mesh.triangles[3 * t + 2]);
  auto model = std::make_shared<Model>();
  if (model->beginModel(static_cast<int>(triangles.size()), static_cast<int>(points.size())) != fcl::BVH_OK ||
      model->addSubModel(points, triangles) != fcl::BVH_OK || model->endModel() != fcl::BVH_OK) {
    throw std::runtime_error("FCL refused to build a BVHModel");
  }
  return model;
}

static fcl::Transform3d poseAt(const std::vector<double>& poses, std::size_t frame) {
  const double* m = &poses[12 * frame];
  fcl::Transform3d pose = fcl::Transform3d::Identity();
  for (int row = 0; row < 3; ++row) {
    for (int col = 0; col < 3; ++col) pose.linear()(row, col) = m[4 * row + col];
    pose.translation()(row) = m[4 * row + 3];
  }
  return pose;
}

static double cpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

static double peakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;  // Linux reports kilobytes
}

static void run(const std::string& pathA, const std::string& pathB, const std::string& pathPoses, bool warmup) {
  std::vector<double> poses = readPoses(pathPoses);
  std::size_t frames = poses.size() / 12;
  std::shared_ptr<Model> a, b;
  std::size_t trianglesA = 0, trianglesB = 0;
  double buildMs = 0;
  {
    // The raw meshes go out of scope before the queries: FCL's models are what stays in memory.
    RawMesh rawA = readMesh(pathA), rawB = readMesh(pathB);
    trianglesA = rawA.triangles.size() / 3, trianglesB = rawB.triangles.size() / 3;
    auto start = Clock::now();
    a = buildModel(rawA);
    b = buildModel(rawB);
    buildMs = msSince(start);
  }
  std::printf("{\"built\":true,\"build_ms\":%.3f,\"fcl\":\"%s\",\"triangles_a\":%zu,\"triangles_b\":%zu,\"frames\":%zu}\n",
              buildMs, FCL_VERSION, trianglesA, trianglesB, frames);
  std::fflush(stdout);

  // rel_err = abs_err = 0: FCL prunes only what cannot hold a closer pair, so the distance is exact.
  fcl::DistanceRequestd request(false, false, 0.0, 0.0);
  const fcl::Transform3d identity = fcl::Transform3d::Identity();
  if (warmup && frames > 0) {
    fcl::DistanceResultd result;
    fcl::distance(a.get(), identity, b.get(), poseAt(poses, 0), request, result);
  }
  for (std::size_t frame = 0; frame < frames; ++frame) {
    fcl::DistanceResultd result;
    fcl::Transform3d pose = poseAt(poses, frame);
    auto start = Clock::now();
    double distance = fcl::distance(a.get(), identity, b.get(), pose, request, result);
    double ms = msSince(start);
    std::printf("{\"frame\":%zu,\"ms\":%.4f,\"distance\":%.17g,\"triangle_a\":%lld,\"triangle_b\":%lld}\n", frame, ms,
                distance, static_cast<long long>(result.b1), static_cast<long long>(result.b2));
    std::fflush(stdout);
  }
  std::printf("{\"done\":true,\"cpu_s\":%.3f,\"peak_rss_mib\":%.1f}\n", cpuSeconds(), peakRssMiB());
}

int main(int argc, char** argv) {
  try {
    std::vector<std::string> positional;
    bool warmup = false;
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--warmup") warmup = true;
      else if (arg.rfind("--", 0) == 0) throw std::runtime_error("unknown option '" + arg + "'");
      else positional.push_back(arg);
    }
    if (positional.size() != 3) throw std::runtime_error("usage: fcl_mesh_distance A.mesh B.mesh B.poses [--warmup]");
    run(positional[0], positional[1], positional[2], warmup);
    return 0;
  } catch (const std::exception& err) {
    std::fprintf(stderr, "fcl_mesh_distance: %s\n", err.what());
    return 1;
  }
}
