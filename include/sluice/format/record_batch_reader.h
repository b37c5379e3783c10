// RecordBatchReader: a pull-based stream of batches with one schema.
//
// The reduce-side reader, the segment decoder and imported ArrowArrayStreams all yield batches
// through this interface; c_data.h turns one into an ArrowArrayStream and back.
#pragma once

#include <optional>

#include "sluice/base/result.h"
#include "sluice/format/record_batch.h"

namespace sluice {

class RecordBatchReader {
 public:
  virtual ~RecordBatchReader() = default;

  /// Returns the schema every batch has.
  virtual const SchemaPtr& schema() const = 0;
  /// Returns the next batch, std::nullopt at the end, or the error that stopped the stream.
  /// After an error or the end, further calls return the same outcome.
  virtual Result<std::optional<RecordBatch>> Next() = 0;
};

}  // namespace sluice
