// IpcInput: an Arrow IPC stream or file given on the command line, as batches.
//
// A path is mapped (zero-copy decoding over the page cache); "-" reads standard input to its
// end first, because the decoder works on bytes in memory. The total row count comes from the
// messages' metadata before any batch is decoded, so progress can show an ETA.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sluice/base/result.h"
#include "sluice/format/record_batch_reader.h"

namespace sluice::cli {

struct IpcInput {
  std::unique_ptr<RecordBatchReader> reader;
  /// Rows in the whole input, from the metadata.
  int64_t total_rows = 0;
  /// Bytes of the stream (or file).
  int64_t size = 0;
  /// The name errors use: the path, or "standard input".
  std::string name;
};

/// Opens `path` ("-" for standard input). Errors name the path and the byte offset.
Result<IpcInput> OpenIpcInput(const std::string& path);

/// Reads every batch of `path` and returns them (with the schema), for small inputs such as
/// range bounds.
Result<std::vector<RecordBatch>> ReadAllBatches(const std::string& path, SchemaPtr* schema);

}  // namespace sluice::cli
