// The spatial join (xhd_join) against its brute-force reference on small collections: every predicate, the
// self-join, objects that cross, touch, nest, lie far apart or repeat (equal distances: ties by index), with
// float32 and double coordinates and several group sizes, so the filter's pruning is exercised at every
// level. The pairs must be the same, in the same order, with the same distances, triangles and points.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "check.h"
#include "random_points.h"
#include "xhd.h"

namespace {

struct Collection {
  std::vector<double> xyz;
  std::vector<uint32_t> triangles;
  std::vector<uint64_t> faces{0};
  std::vector<float> xyz32;

  // An octahedron-like closed mesh around c of radius r, its 6 vertices jittered, subdivided `levels` times.
  void add_blob(xhd_test::Random& rng, const double c[3], double r, int levels, bool jitter = true) {
    const uint32_t base = static_cast<uint32_t>(xyz.size() / 3);
    const double dirs[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    std::vector<std::array<double, 3>> v;
    for (const auto& d : dirs) {
      const double s = jitter ? r * rng.uniform(0.7, 1.3) : r;
      v.push_back({c[0] + s * d[0], c[1] + s * d[1], c[2] + s * d[2]});
    }
    std::vector<std::array<uint32_t, 3>> f = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
                                              {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
    for (int l = 0; l < levels; ++l) {
      std::vector<std::array<uint32_t, 3>> next;
      for (const auto& t : f) {
        uint32_t m[3];
        for (int e = 0; e < 3; ++e) {
          const auto& p = v[t[e]];
          const auto& q = v[t[(e + 1) % 3]];
          v.push_back({(p[0] + q[0]) / 2, (p[1] + q[1]) / 2, (p[2] + q[2]) / 2});
          m[e] = static_cast<uint32_t>(v.size() - 1);
        }
        next.push_back({t[0], m[0], m[2]});
        next.push_back({m[0], t[1], m[1]});
        next.push_back({m[2], m[1], t[2]});
        next.push_back({m[0], m[1], m[2]});
      }
      f = next;
    }
    for (const auto& p : v)
      for (double x : p) xyz.push_back(x);
    for (const auto& t : f)
      for (uint32_t i : t) triangles.push_back(base + i);
    faces.push_back(triangles.size() / 3);
  }

  xhd_join_set view(bool float32) {
    xyz32.assign(xyz.begin(), xyz.end());
    xhd_join_set s{};
    if (float32) s.xyz = xyz32.data();
    else s.xyz64 = xyz.data();
    s.vertex_count = xyz.size() / 3;
    s.triangles = triangles.data();
    s.object_faces = faces.data();
    s.object_count = faces.size() - 1;
    return s;
  }
};

struct Pairs {
  std::vector<uint64_t> objects;
  std::vector<double> distance, points;
  std::vector<int64_t> triangles;
  std::vector<int32_t> intersecting;
  xhd_join_result info{};
};

Pairs join(const xhd_join_set& a, const xhd_join_set& b, xhd_join_options o) {
  Pairs p;
  const int32_t status = xhd_join(&a, &b, &o, &p.info, nullptr);
  CHECK_EQ(status, XHD_OK);
  if (status != XHD_OK) return p;
  const uint64_t n = p.info.pair_count;
  p.objects.resize(2 * n);
  p.distance.resize(n);
  p.triangles.resize(2 * n);
  p.points.resize(6 * n);
  p.intersecting.resize(n);
  CHECK_EQ(xhd_join_read(&p.info, 0, n, p.objects.data(), p.distance.data(), p.triangles.data(), p.points.data(),
                         p.intersecting.data()),
           XHD_OK);
  xhd_join_free(&p.info);
  return p;
}

// The same bits (memcmp), not merely equal values: 0.0 and -0.0 or two NaNs would differ.
bool same_bits(const std::vector<double>& x, const std::vector<double>& y) {
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0);
}

void expect_same(const Pairs& x, const Pairs& y) {
  CHECK(x.objects == y.objects);
  CHECK(x.triangles == y.triangles);
  CHECK(x.intersecting == y.intersecting);
  CHECK(same_bits(x.distance, y.distance));
  CHECK(same_bits(x.points, y.points));
}

// A scene of blobs: clusters of crossing and nested blobs, exact copies (equal distances), and far ones.
Collection scene(uint64_t seed, int count, double spread) {
  xhd_test::Random rng(seed);
  Collection c;
  for (int i = 0; i < count; ++i) {
    double centre[3] = {rng.uniform(0, spread), rng.uniform(0, spread), rng.uniform(0, spread)};
    const int kind = i % 6;
    if (kind == 5 && i > 0) {
      // A copy of the last blob shifted by a whole unit along x: equal distances to symmetric neighbours.
      const uint64_t f0 = c.faces[c.faces.size() - 2], f1 = c.faces.back();
      const uint32_t base = static_cast<uint32_t>(c.xyz.size() / 3);
      uint32_t lo = UINT32_MAX, hi = 0;
      for (uint64_t t = 3 * f0; t < 3 * f1; ++t) lo = std::min(lo, c.triangles[t]), hi = std::max(hi, c.triangles[t]);
      for (uint32_t v = lo; v <= hi; ++v) {
        c.xyz.push_back(c.xyz[3 * v] + 4.0);
        c.xyz.push_back(c.xyz[3 * v + 1]);
        c.xyz.push_back(c.xyz[3 * v + 2]);
      }
      for (uint64_t t = 3 * f0; t < 3 * f1; ++t) c.triangles.push_back(c.triangles[t] - lo + base);
      c.faces.push_back(c.triangles.size() / 3);
      continue;
    }
    if (kind == 4 && i > 0) {
      // Nested inside the previous blob's centre region (its surface apart from the outer one).
      const uint64_t f0 = c.faces[c.faces.size() - 2];
      const uint32_t v0 = c.triangles[3 * f0];
      for (int k = 0; k < 3; ++k) centre[k] = c.xyz[3 * v0 + k];
      centre[0] -= 1.0;
      c.add_blob(rng, centre, 0.2, 1);
      continue;
    }
    c.add_blob(rng, centre, rng.uniform(0.5, 1.5), i % 3);
  }
  return c;
}

}  // namespace

TEST(join_matches_brute_force) {
  size_t found[3] = {0, 0, 0};
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    Collection ca = scene(seed, 40, 12.0), cb = scene(seed + 100, 30, 12.0);
    for (bool f32 : {false, true}) {
      const xhd_join_set a = ca.view(f32), b = cb.view(f32);
      for (int32_t predicate : {XHD_JOIN_INTERSECTS, XHD_JOIN_WITHIN, XHD_JOIN_KNN})
        for (int32_t self : {0, 1})
          for (uint32_t group : {4u, 32u}) {
            xhd_join_options o{};
            o.predicate = predicate;
            o.threads = 2;
            o.distance = 1.5;
            o.k = 3;
            o.self_join = self;
            o.group_size = group;
            const Pairs fast = join(a, b, o);
            o.method = XHD_JOIN_BRUTE;
            const Pairs slow = join(a, b, o);
            expect_same(fast, slow);
            found[predicate] += slow.distance.size();
            if (predicate == XHD_JOIN_INTERSECTS)
              for (size_t i = 0; i < fast.distance.size(); ++i)
                CHECK(fast.distance[i] == 0.0 && fast.intersecting[i] == 1);
            if (predicate == XHD_JOIN_KNN && self == 0) CHECK_EQ(fast.distance.size(), size_t(3) * a.object_count);
          }
    }
  }
  for (size_t n : found) CHECK(n > 10);  // every predicate found pairs: the comparisons are not vacuous
}

TEST(join_touching_at_one_point) {
  // Octahedra of radius 1 at x = 0 and x = 2 share the point (1, 0, 0) and nothing else; a third at x = 2.5
  // crosses the second. Touching counts as intersecting (distance 0), as for xhd distance.
  xhd_test::Random rng(3);
  Collection c;
  for (double x : {0.0, 2.0, 2.5}) {
    const double at[3] = {x, 0, 0};
    c.add_blob(rng, at, 1.0, 0, false);
  }
  xhd_join_options o{};
  o.predicate = XHD_JOIN_INTERSECTS;
  o.self_join = 1;
  const xhd_join_set s = c.view(false);
  const Pairs fast = join(s, s, o);
  o.method = XHD_JOIN_BRUTE;
  const Pairs slow = join(s, s, o);
  expect_same(fast, slow);
  CHECK_EQ(fast.distance.size(), size_t(2));
  if (fast.distance.size() == 2) {
    CHECK(fast.objects[0] == 0 && fast.objects[1] == 1 && fast.objects[2] == 1 && fast.objects[3] == 2);
    CHECK_EQ(fast.points[0], 1.0);  // the shared point
    CHECK_EQ(fast.intersecting[0], 1);
  }
}

TEST(join_ties_and_nesting) {
  // Three equal blobs in a row 4 apart along x and a nested one: B's two outer blobs are at equal distance
  // from the middle one of A; 1-NN must take the smaller index. The nested blob's surface does not touch the
  // outer one: not an intersection (objects are surfaces).
  xhd_test::Random rng(5);
  Collection c;
  const double left[3] = {0, 0, 0}, right[3] = {8, 0, 0}, middle[3] = {4, 0, 0};
  Collection one;
  one.add_blob(rng, middle, 1.0, 1);
  for (const double* p : {left, right}) {
    const uint32_t base = static_cast<uint32_t>(c.xyz.size() / 3);
    for (size_t v = 0; v < one.xyz.size() / 3; ++v) {
      c.xyz.push_back(one.xyz[3 * v] + p[0] - 4.0);
      c.xyz.push_back(one.xyz[3 * v + 1]);
      c.xyz.push_back(one.xyz[3 * v + 2]);
    }
    for (uint32_t i : one.triangles) c.triangles.push_back(base + i);
    c.faces.push_back(c.triangles.size() / 3);
  }
  Collection a = one;
  const double inner[3] = {4, 0, 0};
  a.add_blob(rng, inner, 0.1, 0);
  xhd_join_options o{};
  o.predicate = XHD_JOIN_KNN;
  o.k = 1;
  const xhd_join_set sa = a.view(false), sb = c.view(false);
  const Pairs p = join(sa, sb, o);
  CHECK_EQ(p.distance.size(), size_t(2));
  if (p.distance.size() == 2) {
    CHECK_EQ(p.objects[1], uint64_t(0));  // the tie goes to B's object 0
    CHECK(p.distance[0] > 0.0);
  }
  o.predicate = XHD_JOIN_INTERSECTS;
  o.self_join = 1;
  const Pairs nested = join(sa, sa, o);
  CHECK_EQ(nested.distance.size(), size_t(0));
  o.predicate = XHD_JOIN_WITHIN;
  o.distance = 2.0;
  const Pairs near = join(sa, sa, o);
  CHECK_EQ(near.distance.size(), size_t(1));
}

TEST(join_refuses_bad_input) {
  xhd_test::Random rng(9);
  Collection c;
  const double at[3] = {0, 0, 0};
  c.add_blob(rng, at, 1.0, 0);
  c.faces.push_back(c.faces.back());  // an object without triangles
  const xhd_join_set s = c.view(false);
  xhd_join_options o{};
  o.predicate = XHD_JOIN_INTERSECTS;
  xhd_join_result r{};
  CHECK_EQ(xhd_join(&s, &s, &o, &r, nullptr), XHD_ERROR_INVALID_ARGUMENT);
  CHECK(std::strstr(xhd_last_error(), "object 1 of collection A has no triangles") != nullptr);
  c.faces.pop_back();
  const xhd_join_set ok = c.view(false);
  o.predicate = XHD_JOIN_WITHIN;
  o.distance = -1.0;
  CHECK_EQ(xhd_join(&ok, &ok, &o, &r, nullptr), XHD_ERROR_INVALID_ARGUMENT);
  o.predicate = XHD_JOIN_KNN;
  o.k = 0;
  CHECK_EQ(xhd_join(&ok, &ok, &o, &r, nullptr), XHD_ERROR_INVALID_ARGUMENT);
  CHECK(r.pairs == nullptr);
}
