// A failed call's message in its own xhd_progress: calls running at once on several threads (as a caller's
// thread pool runs them) each find their own message in their own slot, which no other call's failure
// replaces and no other call's success clears, while the process-wide last error is whichever call's came
// last. And the message is cut to fit without splitting a character.
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "../abi/call_message.h"
#include "check.h"
#include "xhd.h"

namespace {

// Points of set A whose point `bad` lies beyond the coordinates the library accepts, so xhd_hausdorff fails
// with a message naming that point: each call's own text.
struct Failing {
  std::vector<float> a, b;
  xhd_points pa{}, pb{};
  Failing(uint64_t bad, uint64_t count) : a(3 * count, 1.0f), b{0.0f, 0.0f, 0.0f} {
    a[3 * bad + 1] = 1e20f;
    pa = xhd_points{a.data(), count, nullptr};
    pb = xhd_points{b.data(), 1, nullptr};
  }
  std::string message(uint64_t bad) const {
    return "point " + std::to_string(bad) + " of set A has a coordinate beyond +-1e15";
  }
};

int32_t hausdorff(const xhd_points& a, const xhd_points& b, xhd_progress* progress) {
  xhd_hausdorff_options options{};
  options.method = XHD_METHOD_GRID;
  options.directions = XHD_DIRECTION_AB | XHD_DIRECTION_BA;
  options.threads = 1;
  xhd_hausdorff_result result{};
  return xhd_hausdorff(&a, &b, &options, &result, progress);
}

}  // namespace

TEST(call_message_each_failure_in_its_own_slot) {
  // One after the other, each on a thread of its own: A fails, B fails, C succeeds. The shared slot ends
  // empty (C's success), yet A's and B's slots still say why each failed.
  const Failing fa(3, 10), fb(7, 10);
  const std::vector<float> ok{0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f};
  const xhd_points good{ok.data(), 2, nullptr};
  xhd_progress slot_a{}, slot_b{}, slot_c{};
  std::strcpy(slot_c.message, "left over from an earlier call");
  int32_t status_a = -1, status_b = -1, status_c = -1;
  std::thread([&] { status_a = hausdorff(fa.pa, fa.pb, &slot_a); }).join();
  std::thread([&] { status_b = hausdorff(fb.pa, fb.pb, &slot_b); }).join();
  std::thread([&] { status_c = hausdorff(good, good, &slot_c); }).join();
  CHECK_EQ(status_a, int32_t(XHD_ERROR_INVALID_ARGUMENT));
  CHECK_EQ(status_b, int32_t(XHD_ERROR_INVALID_ARGUMENT));
  CHECK_EQ(status_c, int32_t(XHD_OK));
  CHECK_EQ(std::string(slot_a.message), fa.message(3));
  CHECK_EQ(std::string(slot_b.message), fb.message(7));
  CHECK_EQ(std::string(slot_c.message), std::string());    // a success leaves no stale message in its own slot
  CHECK_EQ(std::string(xhd_last_error()), std::string());  // the shared slot: C's success, last
}

TEST(call_message_concurrent_calls) {
  // Two threads failing over and over, each with its own point, and a third succeeding meanwhile: every
  // failed call's slot holds its own message, whatever the others did while it ran.
  constexpr int kRounds = 200;
  const Failing f1(2, 64), f2(5, 64);
  const std::vector<float> ok{0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f};
  const xhd_points good{ok.data(), 2, nullptr};
  std::atomic<int> wrong{0}, bad_status{0};
  auto fail_repeatedly = [&](const Failing& f, uint64_t bad) {
    const std::string want = f.message(bad);
    for (int i = 0; i < kRounds; ++i) {
      xhd_progress slot{};
      if (hausdorff(f.pa, f.pb, &slot) != XHD_ERROR_INVALID_ARGUMENT) ++bad_status;
      if (want != slot.message) ++wrong;
    }
  };
  std::thread t1(fail_repeatedly, std::cref(f1), 2), t2(fail_repeatedly, std::cref(f2), 5);
  std::thread t3([&] {
    for (int i = 0; i < kRounds; ++i) {
      xhd_progress slot{};
      if (hausdorff(good, good, &slot) != XHD_OK || slot.message[0] != '\0') ++bad_status;
    }
  });
  t1.join();
  t2.join();
  t3.join();
  CHECK_EQ(bad_status.load(), 0);
  CHECK_EQ(wrong.load(), 0);
}

TEST(call_message_without_a_slot_keeps_the_shared_one) {
  const Failing f(4, 8);
  CHECK_EQ(hausdorff(f.pa, f.pb, nullptr), int32_t(XHD_ERROR_INVALID_ARGUMENT));
  CHECK_EQ(std::string(xhd_last_error()), f.message(4));
}

TEST(call_message_cut_to_fit_at_a_character_boundary) {
  xhd_progress slot{};
  constexpr size_t room = sizeof(slot.message) - 1;
  // ASCII longer than the room: the first `room` bytes, NUL-terminated.
  xhd::write_call_message(&slot, std::string(room + 50, 'x'));
  CHECK_EQ(std::strlen(slot.message), room);
  // A two-byte character (é, C3 A9) straddling the cut: dropped whole, not halved.
  std::string straddling(room - 1, 'y');
  straddling += "\xC3\xA9tail";
  xhd::write_call_message(&slot, straddling);
  CHECK_EQ(std::string(slot.message), std::string(room - 1, 'y'));
  // A message that fits is copied as it is, and a null slot is ignored.
  xhd::write_call_message(&slot, "short \xC3\xA9");
  CHECK_EQ(std::string(slot.message), std::string("short \xC3\xA9"));
  xhd::write_call_message(nullptr, "ignored");
}
