#include "sluice/ipc/ipc_stream_reader.h"

#include <vector>

#include "sluice/ipc/segment_layout.h"

namespace sluice {

Result<std::unique_ptr<IpcStreamReader>> IpcStreamReader::Open(
    const uint8_t* data, int64_t size, MemoryOwner owner, std::string source,
    std::span<const uint8_t> first_segment) {
  std::unique_ptr<IpcStreamReader> reader(new IpcStreamReader());
  if (!first_segment.empty()) {
    // Reading the Schema message there makes it known to the decoder.
    const std::string first_source = "the first segment of " + source + "'s map output";
    SLUICE_ASSIGN_OR_RAISE(
        std::vector<uint8_t> message,
        FirstSchemaMessage(first_segment.data(), static_cast<int64_t>(first_segment.size()),
                           first_source));
    SLUICE_RETURN_NOT_OK(reader->decoder_.Begin(
        message.data(), static_cast<int64_t>(message.size()), nullptr, first_source));
    SLUICE_RETURN_NOT_OK(reader->decoder_.ReadSchema());
  }
  SLUICE_RETURN_NOT_OK(reader->decoder_.Begin(data, size, std::move(owner), std::move(source)));
  SLUICE_RETURN_NOT_OK(reader->decoder_.ReadSchema());
  return reader;
}

Result<std::optional<RecordBatch>> IpcStreamReader::Next() {
  if (!failure_.ok()) return failure_;
  if (finished_) return std::optional<RecordBatch>();
  auto next = decoder_.Next();
  if (!next.ok()) {
    failure_ = next.status();
    return failure_;
  }
  if (!next->has_value()) finished_ = true;
  return next;
}

}  // namespace sluice
