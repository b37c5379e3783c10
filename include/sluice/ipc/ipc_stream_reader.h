// IpcStreamReader: the batches of one Arrow IPC stream (or file) held in memory, as a
// RecordBatchReader.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "sluice/format/record_batch_reader.h"
#include "sluice/ipc/segment_decoder.h"

namespace sluice {

class IpcStreamReader final : public RecordBatchReader {
 public:
  /// Opens the stream in `data[0..size)`, which `owner` keeps alive; reads its schema now.
  /// `source` names the bytes in errors. `first_segment` (copied from) is the start of the map
  /// output's data file, for a compact segment that refers to the Schema message found there
  /// (sluice/ipc/compact_segment.h).
  static Result<std::unique_ptr<IpcStreamReader>> Open(const uint8_t* data, int64_t size,
                                                       MemoryOwner owner, std::string source,
                                                       std::span<const uint8_t> first_segment = {});

  const SchemaPtr& schema() const override { return decoder_.schema(); }
  Result<std::optional<RecordBatch>> Next() override;

 private:
  IpcStreamReader() = default;

  SegmentDecoder decoder_;
  Status failure_;
  bool finished_ = false;
};

}  // namespace sluice
