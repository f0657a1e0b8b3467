// A mesh distance context for the native tests, its creation checked (the library's message printed when refused).
#pragma once

#include <cstdio>

#include "check.h"
#include "xhd.h"

namespace xhd_test {

inline xhd_distance_context* checked_context(const xhd_mesh& a, const xhd_mesh& b, int which, int method, int threads) {
  xhd_distance_options options{};
  options.which = which;
  options.method = method;
  options.threads = threads;
  xhd_distance_context* context = nullptr;
  if (!CHECK_EQ(xhd_distance_context_create(&a, &b, &options, &context, nullptr, nullptr), int32_t(XHD_OK)))
    std::fprintf(stderr, "  %s\n", xhd_last_error());
  return context;
}

}  // namespace xhd_test
