// Unnamed temporary files for the streamed compare's copies of its inputs (decoded_chunk_cache.h,
// slab_ordered_copy.h), and positioned reads and writes that finish what they start.
#pragma once

#include <cstdint>

namespace xhd {

// A file no other process can open, gone when closed or when the process dies: O_TMPFILE where the file
// system has it, else a named one unlinked at once; in TMPDIR, else /tmp. -1 where neither can be made.
int unnamed_temporary_file();

// All of [bytes, bytes + length) at `offset`, through short reads and writes and signals; false on an error
// or (reading) the file's end.
bool pread_all(int fd, void* bytes, uint64_t length, uint64_t offset);
bool pwrite_all(int fd, const void* bytes, uint64_t length, uint64_t offset);

}  // namespace xhd
