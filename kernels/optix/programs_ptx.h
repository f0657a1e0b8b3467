// The PTX of device/search_programs.cu, embedded at build time (scripts/build-native.mjs writes the
// source that defines these).
#pragma once

#include <cstddef>

namespace xhd {

extern const char kSearchProgramsPtx[];
extern const size_t kSearchProgramsPtxSize;  // bytes, without the terminating zero

}  // namespace xhd
