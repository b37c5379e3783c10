// IpcInput: an Arrow IPC stream or file given on the command line, as batches.
//
// The input is read a message at a time (IpcDescriptorReader), from standard input or from a
// file, so a command holds what it keeps of the batches and never the whole input: `sluice
// write` stays within its memory budget whatever the input's size. For a file, the total row
// count is read from the messages' metadata first (for progress with an ETA); for standard input
// it is unknown.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sluice/base/result.h"
#include "sluice/format/record_batch_reader.h"

namespace sluice::cli {

struct IpcInput {
  std::unique_ptr<RecordBatchReader> reader;
  /// Rows in the whole input, from the metadata; 0 when unknown (standard input).
  int64_t total_rows = 0;
  /// Bytes of the input file; 0 for standard input.
  int64_t size = 0;
  /// The name errors use: the path, or "standard input".
  std::string name;
  /// The open file (-1 for standard input), closed with the input.
  std::shared_ptr<int> descriptor;
};

/// Opens `path` ("-" for standard input). Errors name the path and the byte offset.
Result<IpcInput> OpenIpcInput(const std::string& path);

/// Reads every batch of `path` and returns them (with the schema), for small inputs such as
/// range bounds.
Result<std::vector<RecordBatch>> ReadAllBatches(const std::string& path, SchemaPtr* schema);

}  // namespace sluice::cli
