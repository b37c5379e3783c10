// SegmentMessage: one framed Arrow IPC message of a segment as the decoder met it, with where it
// lies, for the pieces of the decoder that read it (the buffer resolver, the column assembler)
// and for the errors they return, which name the source and the byte offset.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "sluice/base/status.h"

namespace sluice::fb {
struct Message;
}

namespace sluice::ipc {

struct SegmentMessage {
  int64_t start = 0;  // offset of the message prefix in the bytes being decoded
  bool end_of_stream = false;
  const uint8_t* metadata = nullptr;
  int64_t metadata_size = 0;
  const fb::Message* flatbuffer = nullptr;  // null for a Schema message the decoder knows
  const uint8_t* body = nullptr;
  int64_t body_offset = 0;
  int64_t body_length = 0;
  // Where the bytes came from, for errors: the source's name, and the offset of byte 0 in it.
  const std::string* source = nullptr;
  int64_t base_offset = 0;

  /// The error for bytes at `offset` (in the bytes being decoded) that break the format.
  template <typename... Parts>
  Status CorruptAt(int64_t offset, Parts&&... parts) const {
    return Status::Corrupt(*source, ": byte ", base_offset + offset, ": ",
                           std::forward<Parts>(parts)...);
  }
};

}  // namespace sluice::ipc
