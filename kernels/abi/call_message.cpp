#include "call_message.h"

#include <cstring>

namespace xhd {

void write_call_message(xhd_progress* slot, const std::string& message) {
  if (slot == nullptr) return;
  constexpr size_t room = sizeof(slot->message) - 1;  // the NUL's byte kept
  size_t length = message.size();
  if (length > room) {
    length = room;
    // Back off the continuation bytes (10xxxxxx) of a character the cut would split, and its lead byte.
    while (length > 0 && (static_cast<unsigned char>(message[length]) & 0xC0) == 0x80) --length;
  }
  std::memcpy(slot->message, message.data(), length);
  slot->message[length] = '\0';
}

}  // namespace xhd
