// The ABI's self-description: xhd_struct_field lists each struct's fields in declaration order at their
// compiled offsets (what bindings check their own declarations against), and the CPU library's
// xhd_capabilities states what it implements.
#include <cstddef>
#include <string>

#include "check.h"
#include "xhd.h"

namespace {

// The field's name, or "(none)" where the library lists none (so a failed check prints instead of crashing).
std::string field_name(const char* type, uint32_t index, uint64_t* offset) {
  const char* name = xhd_struct_field(type, index, offset);
  return name != nullptr ? name : "(none)";
}

}  // namespace

TEST(struct_field_lists_fields_in_order) {
  const struct {
    const char* name;
    uint64_t offset;
  } progress[] = {{"done", offsetof(xhd_progress, done)},
                  {"total", offsetof(xhd_progress, total)},
                  {"cancel", offsetof(xhd_progress, cancel)},
                  {"reserved", offsetof(xhd_progress, reserved)},
                  {"message", offsetof(xhd_progress, message)}};
  uint32_t i = 0;
  for (const auto& want : progress) {
    uint64_t offset = ~uint64_t(0);
    CHECK_EQ(field_name("xhd_progress", i++, &offset), std::string(want.name));
    CHECK_EQ(offset, want.offset);
  }
  CHECK(xhd_struct_field("xhd_progress", i, nullptr) == nullptr);
  CHECK_EQ(xhd_struct_size("xhd_progress"), uint64_t(sizeof(xhd_progress)));
}

TEST(struct_field_nested_and_arrays) {
  // xhd_hausdorff_result: two xhd_directed, then scalars, then origin[3] last.
  uint64_t offset = 0;
  CHECK_EQ(field_name("xhd_hausdorff_result", 1, &offset), std::string("ba"));
  CHECK_EQ(offset, uint64_t(offsetof(xhd_hausdorff_result, ba)));
  uint32_t last = 0;
  while (xhd_struct_field("xhd_hausdorff_result", last + 1, nullptr) != nullptr) ++last;
  CHECK_EQ(field_name("xhd_hausdorff_result", last, &offset), std::string("origin"));
  CHECK_EQ(offset + 3 * sizeof(double), uint64_t(sizeof(xhd_hausdorff_result)));
}

TEST(struct_field_unknown_names) {
  uint64_t offset = 42;
  CHECK(xhd_struct_field("xhd_no_such_struct", 0, &offset) == nullptr);
  CHECK(xhd_struct_field(nullptr, 0, &offset) == nullptr);
  CHECK_EQ(offset, uint64_t(42));
  CHECK_EQ(xhd_struct_size("xhd_no_such_struct"), uint64_t(0));
  CHECK_EQ(xhd_struct_size(nullptr), uint64_t(0));
}

TEST(cpu_capabilities) {
  const uint64_t caps = xhd_capabilities();
  CHECK_EQ(caps, uint64_t(XHD_CAP_NEAREST_POINTS | XHD_CAP_FILE_READERS | XHD_CAP_DELIMITED_TEXT |
                          XHD_CAP_REFERENCE_METHODS | XHD_CAP_STREAMED_COMPARE));
  // Without XHD_CAP_DEVICES: no devices, and describing one is unavailable.
  CHECK_EQ(xhd_device_count(), 0);
  xhd_device_info info;
  CHECK_EQ(xhd_device_info_get(0, &info), int32_t(XHD_ERROR_UNAVAILABLE));
}
