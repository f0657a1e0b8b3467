#include "temporary_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace xhd {

TemporaryFile::TemporaryFile() {
  const char* dir = std::getenv("TMPDIR");
  const std::string where = dir != nullptr && dir[0] != '\0' ? dir : "/tmp";
#ifdef O_TMPFILE
  fd_ = ::open(where.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ >= 0) return;
#endif
  std::string name = where + "/xhd-streamed-XXXXXX";
  fd_ = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd_ >= 0) ::unlink(name.c_str());
}

TemporaryFile::~TemporaryFile() { close(); }

void TemporaryFile::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool TemporaryFile::read(void* bytes, uint64_t length, uint64_t offset) {
  auto* at = static_cast<char*>(bytes);
  while (length > 0 && fd_ >= 0) {
    const ssize_t got = ::pread(fd_, at, length, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) close();
    else {
      at += got;
      offset += static_cast<uint64_t>(got);
      length -= static_cast<uint64_t>(got);
    }
  }
  return fd_ >= 0;
}

bool TemporaryFile::write(const void* bytes, uint64_t length, uint64_t offset) {
  const auto* at = static_cast<const char*>(bytes);
  while (length > 0 && fd_ >= 0) {
    const ssize_t put = ::pwrite(fd_, at, length, static_cast<off_t>(offset));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) close();
    else {
      at += put;
      offset += static_cast<uint64_t>(put);
      length -= static_cast<uint64_t>(put);
    }
  }
  return fd_ >= 0;
}

}  // namespace xhd
