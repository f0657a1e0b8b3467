#include "temporary_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace xhd {

int unnamed_temporary_file() {
  const char* dir = std::getenv("TMPDIR");
  const std::string where = dir != nullptr && dir[0] != '\0' ? dir : "/tmp";
#ifdef O_TMPFILE
  const int fd = ::open(where.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
#endif
  std::string name = where + "/xhd-streamed-XXXXXX";
  const int named = ::mkostemp(name.data(), O_CLOEXEC);
  if (named >= 0) ::unlink(name.c_str());
  return named;
}

bool pread_all(int fd, void* bytes, uint64_t length, uint64_t offset) {
  auto* at = static_cast<char*>(bytes);
  while (length > 0) {
    const ssize_t got = ::pread(fd, at, length, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    at += got;
    offset += static_cast<uint64_t>(got);
    length -= static_cast<uint64_t>(got);
  }
  return true;
}

bool pwrite_all(int fd, const void* bytes, uint64_t length, uint64_t offset) {
  const auto* at = static_cast<const char*>(bytes);
  while (length > 0) {
    const ssize_t put = ::pwrite(fd, at, length, static_cast<off_t>(offset));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    at += put;
    offset += static_cast<uint64_t>(put);
    length -= static_cast<uint64_t>(put);
  }
  return true;
}

}  // namespace xhd
