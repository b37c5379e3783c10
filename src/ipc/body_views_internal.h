// Turning a RecordBatch message's Buffer entries into views of its body, as the decoder does
// for every uncompressed block: the commonest per-buffer work of a read (a 50-column block has
// 125 buffers), so it makes no check per buffer. What lies outside the body is OR-ed up and
// reported once; the caller then takes its general path, which names the buffer.
//
// Built three times: a portable loop, an AVX2 loop that resolves two entries per step (an entry
// and a view are both two 64-bit words, so a 256-bit load of two entries becomes, lane by lane,
// the store of two views), and an AVX-512 loop that resolves four, and the last ones under a
// mask.
#pragma once

#include <cstdint>

#include "sluice/format/array_data.h"

namespace sluice::fb {
struct Buffer;
}

namespace sluice::ipc {

/// What ViewBuffersInBody found over all entries.
struct BodyViewsSummary {
  bool inside = true;         // every buffer lies inside the body (offset and length >= 0)
  uintptr_t any_address = 0;  // every viewed address OR-ed, for one alignment check
  bool any_bytes = false;     // some buffer has bytes
};

/// Writes views[i] = {body + offset, length} for the `count` Buffer entries (a null address for
/// an empty buffer). When the summary says a buffer is not inside the body, the views written
/// are meaningless and must not be used.
BodyViewsSummary ViewBuffersInBody(const fb::Buffer* entries, uint32_t count, const uint8_t* body,
                                   int64_t body_length, BufferView* views);

}  // namespace sluice::ipc
