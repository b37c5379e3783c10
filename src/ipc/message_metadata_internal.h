// The checks every reader of Arrow IPC message metadata makes, written once: the flatbuffers
// verifier with the limits that bound what corrupt input can cost, and the metadata version.
// (ReadMessageHeader in sluice/ipc/message_reader.h makes both; the decoder, which verifies a
// block's layout once per stream, calls them itself.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "arrow_message_generated.h"
#include "sluice/base/status.h"

namespace sluice::ipc {

/// Whether `metadata[0..size)`, 8-byte aligned, is a valid Message flatbuffer.
bool VerifyMessageMetadata(const uint8_t* metadata, size_t size);

/// The error for a message of metadata version `version`, which is not V4 or V5.
Status UnsupportedMetadataVersion(fb::MetadataVersion version, const std::string& source,
                                  int64_t offset);

/// OK when `message` has metadata version V4 or V5; else Corrupt, naming `source` and `offset`.
/// (Inline: the decoder checks every block's message.)
inline Status CheckMetadataVersion(const fb::Message& message, const std::string& source,
                                   int64_t offset) {
  const fb::MetadataVersion version = message.version();
  if (version >= fb::MetadataVersion::V4 && version <= fb::MetadataVersion::V5) [[likely]] {
    return Status::OK();
  }
  return UnsupportedMetadataVersion(version, source, offset);
}

}  // namespace sluice::ipc
