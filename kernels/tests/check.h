// A small assertion helper and test registry for the native tests (no framework): TEST(name) defines a
// test that registers itself, CHECK / CHECK_EQ / CHECK_NEAR count a check and, on failure, print where and
// why and mark the run failed. The run goes on after a failed check, so one run shows every failure;
// sanitizer errors stop it at once (-fno-sanitize-recover).
#pragma once

#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace xhd_test {

struct Registry {
  struct Test {
    const char* name;
    std::function<void()> body;
  };
  std::vector<Test> tests;
  long checks = 0;
  long failures = 0;
  const char* current = "";

  static Registry& get() {
    static Registry r;
    return r;
  }
};

struct Registrar {
  Registrar(const char* name, std::function<void()> body) { Registry::get().tests.push_back({name, std::move(body)}); }
};

inline bool record(bool ok, const char* file, int line, const std::string& what) {
  Registry& r = Registry::get();
  ++r.checks;
  if (!ok) {
    ++r.failures;
    std::fprintf(stderr, "FAILED %s (%s:%d): %s\n", r.current, file, line, what.c_str());
  }
  return ok;
}

// Each argument is evaluated once, before the comparison: a call under test runs once.
template <class A, class B>
bool check_eq(const A& a, const B& b, const char* a_text, const char* b_text, const char* file, int line) {
  const bool ok = a == b;
  if (ok) return record(true, file, line, "");
  std::ostringstream s;
  s.precision(17);
  s << a_text << " == " << b_text << " (" << a << " vs " << b << ")";
  return record(false, file, line, s.str());
}

inline bool check_near(double a, double b, double tolerance, const char* a_text, const char* b_text, const char* file,
                       int line) {
  const bool ok = std::fabs(a - b) <= tolerance;  // NaN fails
  if (ok) return record(true, file, line, "");
  std::ostringstream s;
  s.precision(17);
  s << a_text << " ~ " << b_text << " (" << a << " vs " << b << ", tolerance " << tolerance << ")";
  return record(false, file, line, s.str());
}

}  // namespace xhd_test

#define XHD_TEST_CONCAT2(a, b) a##b
#define XHD_TEST_CONCAT(a, b) XHD_TEST_CONCAT2(a, b)

// TEST(name) { ... }: a test function registered under `name` (a C++ identifier).
#define TEST(name)                                                                 \
  static void name();                                                              \
  static const xhd_test::Registrar XHD_TEST_CONCAT(registrar_, name)(#name, name); \
  static void name()

#define CHECK(cond) xhd_test::record(static_cast<bool>(cond), __FILE__, __LINE__, #cond)
#define CHECK_EQ(a, b) xhd_test::check_eq((a), (b), #a, #b, __FILE__, __LINE__)
// |a - b| <= tolerance (NaN fails).
#define CHECK_NEAR(a, b, tolerance) \
  xhd_test::check_near(double(a), double(b), double(tolerance), #a, #b, __FILE__, __LINE__)
