// IpcDescriptorReader: an Arrow IPC stream (or file) read from a file descriptor a message at a
// time, as a RecordBatchReader.
//
// A pipe cannot be mapped, and reading a whole input before decoding it holds all of it at
// once (`sluice write -` peaked at 2.1 GB for 8M rows under a 64 MiB budget). This reader holds
// one message: it reads each message's prefix and metadata, then its body straight into a
// buffer of the body's size that the decoded batch owns (zero-copy from there), so what it
// holds is the batches the consumer keeps. Every declared length is checked before anything is
// allocated for it: against the decoder's largest block, and for a regular file against the
// bytes left in it. An Arrow IPC file (ARROW1) is read as the stream it contains; its footer is
// not needed.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "sluice/format/record_batch_reader.h"
#include "sluice/ipc/message_reader.h"
#include "sluice/ipc/segment_decoder.h"

namespace sluice {

struct IpcDescriptorReaderOptions {
  /// Limits of the decoder; max_block_bytes also bounds a message body.
  SegmentDecoderOptions decoder;
  /// Asked when a read is interrupted by a signal (EINTR): true ends the stream with Cancelled,
  /// false retries. Unset: retries.
  std::function<bool()> cancelled;
};

class IpcDescriptorReader final : public RecordBatchReader {
 public:
  /// Reads the schema from `fd`, which the reader does not close. `source` names the stream in
  /// errors.
  static Result<std::unique_ptr<IpcDescriptorReader>> Open(int fd, std::string source,
                                                           IpcDescriptorReaderOptions options = {});
  ~IpcDescriptorReader() override;

  const SchemaPtr& schema() const override { return decoder_.schema(); }
  Result<std::optional<RecordBatch>> Next() override;

  /// Bytes read from the descriptor so far.
  int64_t bytes_read() const { return position_; }

 private:
  explicit IpcDescriptorReader(IpcDescriptorReaderOptions options);
  // Reads exactly `size` bytes; an early end of the stream is Corrupt, naming `what`.
  Status ReadExactly(uint8_t* out, int64_t size, const char* what);
  // Reads the next message's prefix and metadata into `message_`; false at the end of stream.
  Result<bool> ReadHeader(int64_t* body_length, ipc::MessageType* type);
  Result<std::optional<RecordBatch>> ReadNext();

  IpcDescriptorReaderOptions options_;
  int fd_ = -1;
  std::string source_;
  int64_t position_ = 0;
  int64_t file_size_ = -1;  // a regular file's size; -1 for a pipe or socket
  std::vector<uint8_t> header_;
  SegmentDecoder decoder_;
  Status failure_;
  bool finished_ = false;
};

}  // namespace sluice
