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

namespace {

// The whole of [at, at + length) moved by `move` (pread or pwrite) at `offset`, through short transfers and
// signals; false on an error or on the file's end.
template <class Byte, class Move>
bool move_all(int fd, Byte* at, uint64_t length, uint64_t offset, Move move) {
  while (length > 0) {
    const ssize_t done = move(fd, at, length, static_cast<off_t>(offset));
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) return false;
    at += done;
    offset += static_cast<uint64_t>(done);
    length -= static_cast<uint64_t>(done);
  }
  return true;
}

}  // namespace

bool TemporaryFile::read(void* bytes, uint64_t length, uint64_t offset) {
  if (fd_ >= 0 && !move_all(fd_, static_cast<char*>(bytes), length, offset, ::pread)) close();
  return fd_ >= 0;
}

bool TemporaryFile::write(const void* bytes, uint64_t length, uint64_t offset) {
  if (fd_ >= 0 && !move_all(fd_, static_cast<const char*>(bytes), length, offset, ::pwrite)) close();
  return fd_ >= 0;
}

}  // namespace xhd
