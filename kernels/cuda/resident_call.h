// A resident kernel's call (resident_loop.h) as one 64-bit word. Plain C++ (no CUDA headers), so that the native
// tests check the packing.
#pragma once

namespace xhd {

#ifdef __CUDACC__
#define RESIDENT_HD __host__ __device__
#else
#define RESIDENT_HD
#endif

// A call, as one 64-bit word (pack_call), so that the kernel's one read of the mailbox brings all of it: every read
// of host memory from the device is a round trip over the bus (1-2 us), and a call read field by field took 10 us.
// Anything larger goes in the pinned inputs the call names, written before the word.
struct ResidentCall {
  unsigned long long number;  // 40 bits: the kernel takes a call whose number differs from the last it took
  unsigned int kind;          // 0-2: the caller's; kResidentLeave: leave
  unsigned int frames;        // 1-64
  unsigned int first;         // 0-63
  unsigned int slot;          // 0-3
  bool start, descent, trace;
  bool cut;                   // touching frames may search from the stored cut (mesh_distance_gpu.cu: cut_frames)
};

constexpr unsigned int kResidentLeave = 3;
constexpr unsigned long long kResidentNumbers = 1ull << 40;

RESIDENT_HD inline unsigned long long pack_call(const ResidentCall& c) {
  return (c.number & (kResidentNumbers - 1)) | (static_cast<unsigned long long>(c.kind & 3) << 40) |
         (static_cast<unsigned long long>((c.frames - 1) & 63) << 42) |
         (static_cast<unsigned long long>(c.first & 63) << 48) | (static_cast<unsigned long long>(c.slot & 3) << 54) |
         (static_cast<unsigned long long>(c.start) << 56) | (static_cast<unsigned long long>(c.descent) << 57) |
         (static_cast<unsigned long long>(c.trace) << 58) | (static_cast<unsigned long long>(c.cut) << 59);
}

RESIDENT_HD inline ResidentCall unpack_call(unsigned long long w) {
  return {w & (kResidentNumbers - 1),
          static_cast<unsigned int>((w >> 40) & 3),
          static_cast<unsigned int>((w >> 42) & 63) + 1,
          static_cast<unsigned int>((w >> 48) & 63),
          static_cast<unsigned int>((w >> 54) & 3),
          ((w >> 56) & 1) != 0,
          ((w >> 57) & 1) != 0,
          ((w >> 58) & 1) != 0,
          ((w >> 59) & 1) != 0};
}

// A call's payload (its first frame) travels in the mailbox beside the call's word, so that the kernel's one look
// over the bus brings both. The device's reads of host memory are not ordered with each other, so a look may catch
// the host part-way through writing the payload: each 64-bit word carries 32 bits of it and the low 32 bits of the
// call's number (a word is written and read whole), and the kernel takes a call only when every word it reads
// bears that call's number. The host writes the payload on every call, so a word from before bears the number
// before, never this one (numbers wrap at 40 bits, and consecutive ones differ in their low 32).
constexpr unsigned int kResidentPayloadWords = 96;
// An answer may come back the same way (ResidentMailbox::answer): 32 payload words of the call's number, written by
// the kernel with no fence before them (a release store costs the device 0.6 us on an H200), which the host takes
// once every word bears its call's number.
constexpr unsigned int kResidentAnswerWords = 32;

RESIDENT_HD inline unsigned long long payload_word(unsigned long long number, unsigned int data) {
  return ((number & 0xffffffffull) << 32) | data;
}

RESIDENT_HD inline bool payload_of_call(unsigned long long word, unsigned long long number) {
  return (word >> 32) == (number & 0xffffffffull);
}

RESIDENT_HD inline unsigned int payload_data(unsigned long long word) { return static_cast<unsigned int>(word); }

}  // namespace xhd
