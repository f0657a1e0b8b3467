// Runs every registered native test (or those whose name contains argv[1]) and prints one closing line,
// "native tests: N checks passed, M failed in T tests", that test/native-sanitizers.test.ts reads.
#include <cstdio>
#include <cstring>

#include "check.h"

// Sanitizer settings built in, so that running the program by hand checks what the test run checks: a
// failed assertion (_GLIBCXX_ASSERTIONS aborts) shows its stack, as does every UBSan report, and returns
// of stack memory that a pointer still refers to are caught too.
extern "C" const char* __asan_default_options() {
  return "handle_abort=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1";
}
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1"; }

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each test's line out before a sanitizer stops the run
  xhd_test::Registry& r = xhd_test::Registry::get();
  const char* filter = argc > 1 ? argv[1] : nullptr;
  int ran = 0;
  for (const auto& test : r.tests) {
    if (filter != nullptr && std::strstr(test.name, filter) == nullptr) continue;
    r.current = test.name;
    const long failures_before = r.failures;
    test.body();
    ++ran;
    std::printf("%s %s\n", r.failures == failures_before ? "ok  " : "FAIL", test.name);
  }
  std::printf("native tests: %ld checks passed, %ld failed in %d tests\n", r.checks - r.failures, r.failures, ran);
  return r.failures == 0 && ran > 0 ? 0 : 1;
}
