// FCL's broad phase + exact distance as the CPU peer of `xhd join --within D`: one BVHModel<OBBRSS> and
// CollisionObject per object, a DynamicAABBTreeCollisionManager per collection, and its distance traversal
// with a callback that computes fcl::distance for every candidate object pair and keeps the traversal's
// bound at D, so it visits every pair whose boxes lie within D (what the issue names as the peer). Built by
// scripts/bench/fcl-join.ts.
//
//   fcl_join A.join B.join D        (B may be "self": A joined with itself)
//
// A collection file (little endian): "XHDJOIN1", uint64 vertices V, uint64 triangles T, uint64 objects O,
// float64[3V], uint32[3T] (indices into the vertices), uint64[O + 1] (object offsets in triangles).
// Prints one JSON line: {"build_ms":..., "join_ms":..., "pairs":..., "distance_calls":...}. Times cover FCL's
// work only, not reading.
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/narrowphase/collision_object.h>
#include <fcl/narrowphase/distance.h>

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
using Object = fcl::CollisionObjectd;
using Clock = std::chrono::steady_clock;

static double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Collection {
  std::vector<double> xyz;
  std::vector<uint32_t> triangles;
  std::vector<uint64_t> faces;
};

static Collection read_collection(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  char magic[8];
  in.read(magic, 8);
  if (std::memcmp(magic, "XHDJOIN1", 8) != 0) throw std::runtime_error(path + " is not an XHDJOIN1 file");
  uint64_t v = 0, t = 0, o = 0;
  in.read(reinterpret_cast<char*>(&v), 8);
  in.read(reinterpret_cast<char*>(&t), 8);
  in.read(reinterpret_cast<char*>(&o), 8);
  Collection c;
  c.xyz.resize(3 * v);
  c.triangles.resize(3 * t);
  c.faces.resize(o + 1);
  in.read(reinterpret_cast<char*>(c.xyz.data()), 24 * v);
  in.read(reinterpret_cast<char*>(c.triangles.data()), 12 * t);
  in.read(reinterpret_cast<char*>(c.faces.data()), 8 * (o + 1));
  if (!in) throw std::runtime_error(path + " is truncated");
  return c;
}

// One CollisionObject per object; its user data is its index (the callback orders the pair by it).
static std::vector<std::unique_ptr<Object>> objects_of(const Collection& c, std::vector<Object*>& raw) {
  std::vector<std::unique_ptr<Object>> out;
  for (size_t o = 0; o + 1 < c.faces.size(); ++o) {
    std::vector<fcl::Vector3d> points;
    std::vector<fcl::Triangle> tris;
    std::vector<int64_t> map(c.xyz.size() / 3, -1);
    for (uint64_t t = c.faces[o]; t < c.faces[o + 1]; ++t) {
      size_t idx[3];
      for (int k = 0; k < 3; ++k) {
        const uint32_t v = c.triangles[3 * t + k];
        if (map[v] < 0) {
          map[v] = static_cast<int64_t>(points.size());
          points.emplace_back(c.xyz[3 * v], c.xyz[3 * v + 1], c.xyz[3 * v + 2]);
        }
        idx[k] = static_cast<size_t>(map[v]);
      }
      tris.emplace_back(idx[0], idx[1], idx[2]);
    }
    auto model = std::make_shared<Model>();
    model->beginModel();
    model->addSubModel(points, tris);
    model->endModel();
    auto object = std::make_unique<Object>(model, fcl::Transform3d::Identity());
    object->setUserData(reinterpret_cast<void*>(static_cast<uintptr_t>(o)));
    object->computeAABB();
    raw.push_back(object.get());
    out.push_back(std::move(object));
  }
  return out;
}

struct JoinData {
  double d = 0.0;
  bool self = false;
  uint64_t pairs = 0, calls = 0;
};

// Every candidate pair: its exact distance (FCL's), counted when within d; the bound stays at d so that the
// traversal goes on to every pair whose boxes are within d.
static bool within_callback(Object* o1, Object* o2, void* cdata, double& dist) {
  auto* data = static_cast<JoinData*>(cdata);
  dist = data->d;
  if (data->self && o1 == o2) return false;
  fcl::DistanceRequestd request;
  fcl::DistanceResultd result;
  fcl::distance(o1, o2, request, result);
  ++data->calls;
  if (result.min_distance <= data->d) ++data->pairs;
  return false;
}

int main(int argc, char** argv) {
  try {
    if (argc != 4) throw std::runtime_error("usage: fcl_join A.join B.join|self D");
    const Collection a = read_collection(argv[1]);
    const bool self = std::string(argv[2]) == "self";
    const Collection b = self ? Collection{} : read_collection(argv[2]);
    JoinData data;
    data.d = std::stod(argv[3]);
    data.self = self;
    const auto build = Clock::now();
    std::vector<Object*> raw_a, raw_b;
    auto objects_a = objects_of(a, raw_a);
    auto objects_b = self ? std::vector<std::unique_ptr<Object>>{} : objects_of(b, raw_b);
    fcl::DynamicAABBTreeCollisionManagerd manager_a, manager_b;
    manager_a.registerObjects(raw_a);
    manager_a.setup();
    if (!self) {
      manager_b.registerObjects(raw_b);
      manager_b.setup();
    }
    const double build_ms = ms_since(build);
    const auto start = Clock::now();
    if (self)
      manager_a.distance(&data, within_callback);
    else
      manager_a.distance(&manager_b, &data, within_callback);
    const double join_ms = ms_since(start);
    std::printf("{\"build_ms\":%.3f,\"join_ms\":%.3f,\"pairs\":%llu,\"distance_calls\":%llu}\n", build_ms, join_ms,
                static_cast<unsigned long long>(data.pairs), static_cast<unsigned long long>(data.calls));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fcl_join: %s\n", e.what());
    return 1;
  }
}
