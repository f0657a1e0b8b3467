// A failed call's message in the call's own xhd_progress (xhd.h): the process-wide last-error slot is written
// by every call, so a caller running several calls at once could read another call's message there; the
// message in the slot the caller passed belongs to that call alone.
#pragma once

#include <string>

#include "xhd.h"

namespace xhd {

// Writes message into slot->message, cut at a UTF-8 character boundary when it does not fit (a caller decoding
// it as UTF-8 never meets half a character), and NUL-terminated. A null slot is ignored.
void write_call_message(xhd_progress* slot, const std::string& message);

}  // namespace xhd
