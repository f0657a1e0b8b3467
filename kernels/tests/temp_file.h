// A file of the given bytes in the temporary directory ($TMPDIR, else /tmp), removed when it goes out of
// scope: the native readers' tests hand the library a path, as the CLI does.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "check.h"

namespace xhd_test {

class TempFile {
 public:
  explicit TempFile(const std::vector<uint8_t>& bytes) : TempFile(bytes.data(), bytes.size()) {}
  explicit TempFile(const std::string& bytes) : TempFile(bytes.data(), bytes.size()) {}
  ~TempFile() { unlink(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const char* path() const { return path_.c_str(); }

 private:
  TempFile(const void* data, size_t size) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/xhd-native-test-XXXXXX";
    const int fd = mkstemp(path_.data());
    CHECK(fd >= 0);
    if (fd >= 0) {
      CHECK_EQ(write(fd, data, size), ssize_t(size));
      close(fd);
    }
  }

  std::string path_;
};

// xorshift32: a tiny deterministic stream of 32-bit values for record-shaped test data.
inline uint32_t xorshift32(uint32_t& s) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}

}  // namespace xhd_test
