// IpcStreamReader: the batches of one Arrow IPC stream (or file) held in memory, as a
// RecordBatchReader.
#pragma once

#include <memory>
#include <string>

#include "sluice/format/record_batch_reader.h"
#include "sluice/ipc/segment_decoder.h"

namespace sluice {

class IpcStreamReader final : public RecordBatchReader {
 public:
  /// Opens the stream in `data[0..size)`, which `owner` keeps alive; reads its schema now.
  /// `source` names the bytes in errors.
  static Result<std::unique_ptr<IpcStreamReader>> Open(const uint8_t* data, int64_t size,
                                                       MemoryOwner owner, std::string source);

  const SchemaPtr& schema() const override { return decoder_.schema(); }
  Result<std::optional<RecordBatch>> Next() override;

 private:
  IpcStreamReader() = default;

  SegmentDecoder decoder_;
  Status failure_;
  bool finished_ = false;
};

}  // namespace sluice
