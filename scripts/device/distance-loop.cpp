// The mesh distance query from a plain C++ program over the built library (no Node, no koffi): two UV spheres of
// 1M triangles each, 1 apart, B turned a little each frame, 200 frames; prints the mean call. With
// XHD_CUDA_PROFILE=1 the CUDA library prints each search's launch call and phases (docs/benchmarks.md, stop 56:
// the launch call took 3-5 us here against 13-46 us from Node's worker threads).
// Build and run on a GPU host, from the repository root:
//   g++ -O2 -std=c++17 -I kernels/include scripts/device/distance-loop.cpp -o /tmp/distance-loop -Lbuild
//       -l:libxhd_cuda.so -Wl,-rpath,$PWD/build && /tmp/distance-loop [min|max] [threads]
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <cmath>
#include <cstdio>
#include <vector>
#include "xhd.h"

static void sphere(double cx, int rings, int segments, std::vector<float>& xyz, std::vector<uint32_t>& tri) {
  for (int i = 0; i <= rings; ++i)
    for (int j = 0; j < segments; ++j) {
      const double t = M_PI * i / rings, p = 2 * M_PI * j / segments;
      xyz.push_back(static_cast<float>(cx + std::sin(t) * std::cos(p)));
      xyz.push_back(static_cast<float>(std::sin(t) * std::sin(p)));
      xyz.push_back(static_cast<float>(std::cos(t)));
    }
  for (int i = 0; i < rings; ++i)
    for (int j = 0; j < segments; ++j) {
      const uint32_t a = i * segments + j, b = i * segments + (j + 1) % segments, c = a + segments, d = b + segments;
      tri.insert(tri.end(), {a, c, b, b, c, d});
    }
}

int main(int argc, char** argv) {
  const int which = argc > 1 && argv[1][1] == 'a' ? XHD_DISTANCE_MAX : XHD_DISTANCE_MIN;
  std::vector<float> xa, xb;
  std::vector<uint32_t> ta, tb;
  sphere(0.0, 500, 1000, xa, ta);
  sphere(3.0, 500, 1000, xb, tb);
  const xhd_mesh a{xa.data(), xa.size() / 3, ta.data(), ta.size() / 3, nullptr};
  const xhd_mesh b{xb.data(), xb.size() / 3, tb.data(), tb.size() / 3, nullptr};
  xhd_distance_options o{which, XHD_DISTANCE_BVH, 0, 0};
  xhd_distance_context* context = nullptr;
  double build_ms = 0;
  xhd_progress progress{};
  if (xhd_distance_context_create(&a, &b, &o, &context, &build_ms, &progress) != 0) {
    std::printf("create failed: %s\n", progress.message);
    return 1;
  }
  // "threads": each query on the next of four sleeping worker threads in turn, as Node's worker pool runs the
  // library's asynchronous calls (MeshDistance.query); otherwise all on this thread.
  const bool rotate = argc > 2 && std::strcmp(argv[2], "threads") == 0;
  std::mutex mutex;
  std::condition_variable changed;
  int turn = -1;  // the frame whose query a worker is to run; -2: stop
  bool done = true;
  const double* pose_now = nullptr;
  xhd_distance_result* result_now = nullptr;
  int32_t status_now = 0;
  std::vector<std::thread> workers;
  for (int w = 0; rotate && w < 4; ++w)
    workers.emplace_back([&, w] {
      std::unique_lock<std::mutex> lock(mutex);
      for (;;) {
        changed.wait(lock, [&] { return turn == -2 || (turn >= 0 && turn % 4 == w && !done); });
        if (turn == -2) return;
        lock.unlock();
        const int32_t status = xhd_distance_query(context, pose_now, result_now, &progress);
        lock.lock();
        status_now = status, done = true;
        changed.notify_all();
      }
    });
  const auto on_worker = [&](int f, const double* pose, xhd_distance_result* r) {
    std::unique_lock<std::mutex> lock(mutex);
    turn = f, pose_now = pose, result_now = r, done = false;
    changed.notify_all();
    changed.wait(lock, [&] { return done; });
    return status_now;
  };
  std::vector<double> ms, query_ms;
  for (int f = 0; f < 200; ++f) {
    const double angle = 0.002 * f, c = std::cos(angle), s = std::sin(angle);
    const double pose[12] = {c, -s, 0, 0.01 * (f % 7), s, c, 0, 0, 0, 0, 1, 0};
    xhd_distance_result r{};
    const auto t0 = std::chrono::steady_clock::now();
    const int32_t status = rotate ? on_worker(f, pose, &r) : xhd_distance_query(context, pose, &r, &progress);
    if (status != 0) {
      std::printf("query failed: %s\n", progress.message);
      return 1;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    query_ms.push_back(r.query_ms);
    if (f == 199) std::printf("last: %.6f, query_ms %.4f\n", which == XHD_DISTANCE_MAX ? r.max.distance : r.min.distance, r.query_ms);
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    turn = -2;
  }
  changed.notify_all();
  for (std::thread& t : workers) t.join();
  double sum = 0, query_sum = 0;
  for (size_t i = 20; i < ms.size(); ++i) sum += ms[i], query_sum += query_ms[i];
  std::printf("%s%s: build %.1f ms; over frames 20-199, mean call %.4f ms, mean query_ms %.4f\n",
              which == XHD_DISTANCE_MAX ? "max" : "min", rotate ? " (four worker threads in turn)" : "", build_ms,
              sum / (ms.size() - 20), query_sum / (ms.size() - 20));
  xhd_distance_context_destroy(context);
}
