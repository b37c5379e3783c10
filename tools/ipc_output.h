// IpcOutput: batches written as an Arrow IPC stream to a file or to standard output.
//
// The stream is what `sluice generate` and `sluice read` produce and what pyarrow opens with
// pyarrow.ipc.open_stream: a Schema message, one RecordBatch message per batch (uncompressed),
// the end-of-stream marker. A regular file is written under a temporary name and renamed into
// place by Finish(), so an interrupted run never leaves half a file under the final name (and an
// existing file is replaced only by a complete one); a device, a FIFO or "-" is written to as a
// stream, and a symbolic link is followed (OutputTarget).
#pragma once

#include <memory>
#include <string>

#include "sluice/base/aligned_buffer.h"
#include "sluice/base/result.h"
#include "sluice/format/record_batch.h"
#include "sluice/io/output_file.h"
#include "sluice/io/output_target.h"
#include "sluice/ipc/segment_encoder.h"

namespace sluice::cli {

class IpcOutput {
 public:
  /// Opens `path` ("-" for standard output, a device or a FIFO as a stream) for batches of
  /// `schema`.
  static Result<std::unique_ptr<IpcOutput>> Open(const std::string& path, const SchemaPtr& schema);
  ~IpcOutput();

  /// Appends one batch, which must have the stream's schema.
  Status Write(const RecordBatch& batch);
  /// Writes the end-of-stream marker and commits the file.
  Status Finish();

  /// Returns the bytes written so far.
  int64_t bytes_written() const { return bytes_written_; }

 private:
  IpcOutput() = default;
  Status FlushPending(bool force);

  OutputTarget target_;
  std::unique_ptr<OutputFile> file_;  // a regular file's temporary; null for a stream
  int stream_fd_ = -1;                // a stream's descriptor
  std::unique_ptr<SegmentEncoder> encoder_;
  AlignedBuffer pending_;  // streams only
  int64_t bytes_written_ = 0;
  bool finished_ = false;
};

}  // namespace sluice::cli
