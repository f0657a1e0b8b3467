// Host-to-device copies of the caller's (pageable) memory at pinned-memory speed. A copy from pageable
// memory goes through the driver's own staging on one thread, about 5 GB/s on the H100 host: for two
// 100M-point sets that was 441 ms of a 1.5 s compare. Here the host memory is copied into a few pinned
// buffers by every core, each buffer's DMA starting as soon as it is full while the next one fills.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <cuda_runtime.h>

namespace xhd {

// Copies bytes from host (any memory the caller owns) to device on stream. Returns once host has been read
// in full (the caller may free it); the DMA of the last pieces may still be running on stream.
void copy_to_device(void* device, const void* host, size_t bytes, cudaStream_t stream);

// Whether all of [host, host + bytes) lies in one range xhd_host_pin page-locked (copies from it need no staging).
bool is_pinned(const void* host, size_t bytes);

// xhd_host_pin and xhd_host_unpin: the caller's memory registered with the driver for every device, exactly the
// range given (not widened to whole pages, which would take in memory beside it). OutOfMemory when the driver
// refuses.
void pin_host_memory(const void* memory, uint64_t bytes);
void unpin_host_memory(const void* memory);

// The most bytes one piece of copy_pieces_to_device may have.
size_t staged_piece_bytes();

// Fills one piece: writes its bytes at `to` on up to `threads` threads.
using FillPiece = std::function<void(size_t piece, void* to, int threads)>;

// Copies to device, one after the other, pieces that fill writes straight into the pinned buffers (each at
// most staged_piece_bytes()): data gathered from the caller's memory reaches the device without a host copy
// of it. Returns once every piece has been filled; the last DMAs may still be running on stream.
void copy_pieces_to_device(void* device, const std::vector<size_t>& piece_bytes, const FillPiece& fill,
                           cudaStream_t stream);

}  // namespace xhd
