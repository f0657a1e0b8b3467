// A file opened for positioned reads (pread), which any number of threads may issue at once: there is
// no shared file position to fight over. System errors are thrown as SystemError carrying errno, for
// the readers to hand back to TypeScript, which words them as it words its own (src/io/input-file.ts).
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

namespace xhd {

struct SystemError {
  int code;
};

class OpenFile {
 public:
  explicit OpenFile(const char* path) : fd_(::open(path, O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw SystemError{errno};
  }
  ~OpenFile() { ::close(fd_); }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;

  // The file's size now.
  uint64_t size() const {
    struct stat st;
    if (::fstat(fd_, &st) != 0) throw SystemError{errno};
    return static_cast<uint64_t>(st.st_size);
  }

  // Up to `length` bytes at `offset` into `into`; fewer only where the file ends first.
  uint64_t read(void* into, uint64_t length, uint64_t offset) const {
    uint64_t done = 0;
    while (done < length) {
      // Linux moves at most about 2 GiB per call.
      const size_t ask = static_cast<size_t>(std::min<uint64_t>(length - done, uint64_t(1) << 30));
      const ssize_t got = ::pread(fd_, static_cast<char*>(into) + done, ask, static_cast<off_t>(offset + done));
      if (got < 0) {
        if (errno == EINTR) continue;
        throw SystemError{errno};
      }
      if (got == 0) break;
      done += static_cast<uint64_t>(got);
    }
    return done;
  }

 private:
  int fd_;
};

}  // namespace xhd
