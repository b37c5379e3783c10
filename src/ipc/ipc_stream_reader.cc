#include "sluice/ipc/ipc_stream_reader.h"

namespace sluice {

Result<std::unique_ptr<IpcStreamReader>> IpcStreamReader::Open(const uint8_t* data, int64_t size,
                                                               MemoryOwner owner,
                                                               std::string source) {
  std::unique_ptr<IpcStreamReader> reader(new IpcStreamReader());
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
