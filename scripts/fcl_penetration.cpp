// FCL's penetration depth for convex meshes, frame by frame: the peer scripts/bench-penetration compares our
// bounds with. Reads two meshes and poses for B (the binary files of scripts/bench/fcl.ts), makes each mesh an
// fcl::Convex (its triangles as faces), and for every pose runs fcl::collide with contacts asked for, through
// each of FCL's two GJK/EPA solvers (libccd's and FCL's own): the depth and normal of its one contact.
// Built by scripts/bench/fcl-harness.ts.
//
//   fcl_penetration A.mesh B.mesh B.poses
//
// Prints one JSON object per line: {"frame", "solver", "ms", "collides", "depth", "normal"}, then {"done"}.
// Times are FCL's collide calls only (each pose's call is repeated until 2 ms have passed, and the mean kept).
#include <fcl/config.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/collision_object.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;

namespace {

std::vector<char> slurp(const std::string& path, const char magic[8]) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 8 || std::memcmp(bytes.data(), magic, 8) != 0) throw std::runtime_error(path + ": not a " + std::string(magic, 8) + " file");
  return bytes;
}

template <typename T>
T at(const std::vector<char>& bytes, size_t offset) {
  if (offset + sizeof(T) > bytes.size()) throw std::runtime_error("a file is truncated");
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

std::shared_ptr<fcl::Convexd> convex(const std::string& path) {
  const std::vector<char> bytes = slurp(path, "XHDMESH1");
  const uint64_t vertices = at<uint64_t>(bytes, 8), triangles = at<uint64_t>(bytes, 16);
  auto points = std::make_shared<std::vector<fcl::Vector3d>>();
  size_t offset = 24;
  for (uint64_t v = 0; v < vertices; ++v, offset += 12)
    points->emplace_back(at<float>(bytes, offset), at<float>(bytes, offset + 4), at<float>(bytes, offset + 8));
  auto faces = std::make_shared<std::vector<int>>();
  for (uint64_t t = 0; t < triangles; ++t, offset += 12) {
    faces->push_back(3);
    for (int k = 0; k < 3; ++k) {
      const uint32_t index = at<uint32_t>(bytes, offset + 4 * k);
      if (index >= vertices) throw std::runtime_error(path + ": a triangle names a vertex past the end");
      faces->push_back(static_cast<int>(index));
    }
  }
  return std::make_shared<fcl::Convexd>(points, static_cast<int>(triangles), faces);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: fcl_penetration A.mesh B.mesh B.poses\n");
    return 2;
  }
  try {
    const auto a = convex(argv[1]), b = convex(argv[2]);
    const std::vector<char> poses = slurp(argv[3], "XHDPOSE1");
    const uint64_t frames = at<uint64_t>(poses, 8);
    for (uint64_t f = 0; f < frames; ++f) {
      fcl::Transform3d pose = fcl::Transform3d::Identity();
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) pose.matrix()(r, c) = at<double>(poses, 16 + 8 * (12 * f + 4 * r + c));
      const fcl::CollisionObjectd oa(a, fcl::Transform3d::Identity()), ob(b, pose);
      for (const auto& [solver, name] : {std::pair{fcl::GST_LIBCCD, "libccd"}, std::pair{fcl::GST_INDEP, "indep"}}) {
        fcl::CollisionRequestd request(1, true);
        request.gjk_solver_type = solver;
        fcl::CollisionResultd result;
        int calls = 0;
        const auto start = Clock::now();
        double ms = 0.0;
        do {
          result.clear();
          fcl::collide(&oa, &ob, request, result);
          ++calls;
          ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        } while (ms < 2.0);
        const bool hit = result.numContacts() > 0;
        const fcl::Contactd c = hit ? result.getContact(0) : fcl::Contactd();
        std::printf("{\"frame\":%llu,\"solver\":\"%s\",\"ms\":%.6f,\"collides\":%s,\"depth\":%.17g,\"normal\":[%.17g,%.17g,%.17g]}\n",
                    static_cast<unsigned long long>(f), name, ms / calls, hit ? "true" : "false", hit ? c.penetration_depth : 0.0,
                    hit ? c.normal[0] : 0.0, hit ? c.normal[1] : 0.0, hit ? c.normal[2] : 0.0);
        std::fflush(stdout);
      }
    }
    std::printf("{\"done\":true,\"fcl\":\"%s\"}\n", FCL_VERSION);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fcl_penetration: %s\n", e.what());
    return 1;
  }
  return 0;
}
