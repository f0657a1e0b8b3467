#include "optix_tuning.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace xhd {
namespace {

// The rule for runs of points, fitted to the H200 measurements of docs/benchmarks.md ("OptiX primitives",
// runs of 1 to 256 points on the four cases at 1M and 12.5M): 16 points while the nearest distances are
// within the spacing (the overlapping sets: 16 was best or within 2% of it), growing as ratio^(3/4) beyond
// (64 was best at ratio 5), up to 256 (best for sets far apart, ratio 200 to 2,000, where a query is settled
// by the first run it meets and fewer, larger boxes mean less traversal). Rounded to a power of two.
uint32_t chunk_rule(double reach_over_spacing) {
  const double ratio = std::isfinite(reach_over_spacing) && reach_over_spacing > 1.0 ? reach_over_spacing : 1.0;
  const double ideal = std::min(256.0, 16.0 * std::pow(ratio, 0.75));
  return 1u << static_cast<int>(std::lround(std::log2(ideal)));
}

const char* setting(const char* name) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? text : nullptr;
}

}  // namespace

uint32_t optix_chunk_points(double reach_over_spacing) {
  const char* text = setting("XHD_OPTIX_CHUNK");
  const long v = text == nullptr ? 0 : std::strtol(text, nullptr, 10);
  return v >= 1 && v <= 1024 ? static_cast<uint32_t>(v) : chunk_rule(reach_over_spacing);
}

bool optix_use_spheres() {
  const char* text = setting("XHD_OPTIX_PRIMITIVE");
  return text != nullptr && std::strcmp(text, "spheres") == 0;
}

bool optix_rebuild_each_radius() {
  const char* text = setting("XHD_OPTIX_REBUILD");
  return text != nullptr && text[0] == '1';
}

}  // namespace xhd
