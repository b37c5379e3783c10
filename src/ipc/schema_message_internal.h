// Conversion between Sluice schemas and Arrow IPC Schema flatbuffers.
#pragma once

#include <string_view>

#include "arrow_message_generated.h"
#include "sluice/base/aligned_buffer.h"
#include "sluice/base/result.h"
#include "sluice/format/schema.h"

namespace sluice::ipc {

/// Appends a complete framed Schema message (prefix, flatbuffer, padding; no body) to `out`.
Status AppendSchemaMessage(const Schema& schema, AlignedBuffer* out);

/// Converts a verified Schema flatbuffer. `context` prefixes error messages.
Result<SchemaPtr> SchemaFromFlatbuffer(const fb::Schema& schema, std::string_view context);

/// Appends the flatbuffer `builder` holds as a framed message (prefix, flatbuffer padded to 8).
void AppendFramedMessage(const uint8_t* flatbuffer, int64_t size, AlignedBuffer* out);

}  // namespace sluice::ipc
