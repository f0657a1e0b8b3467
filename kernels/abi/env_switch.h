// Paths that are on by default and can be turned off, to measure what they save or to let tests reach the
// way around them: NAME=0 (any value starting with '0') turns one off; unset, or anything else, leaves it on.
#pragma once

#include <cstdlib>

namespace xhd {

inline bool switched_on(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr || value[0] != '0';
}

// Paths that are off by default (measured not to pay) and can be turned on: NAME=1 (any value starting with '1').
inline bool asked_for(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] == '1';
}

}  // namespace xhd
