#include "ipc_output.h"

#include <unistd.h>

#include <cerrno>

#include "sluice/ipc/ipc_format.h"

namespace sluice::cli {

namespace {

// A stream is written in 4 MiB pieces: few syscalls, and it is written once per run.
constexpr int64_t kStandardOutputFlushBytes = int64_t{4} << 20;

}  // namespace

Result<std::unique_ptr<IpcOutput>> IpcOutput::Open(const std::string& path,
                                                   const SchemaPtr& schema) {
  std::unique_ptr<IpcOutput> output(new IpcOutput());
  SLUICE_ASSIGN_OR_RAISE(output->target_, OutputTarget::Resolve(path));
  SLUICE_ASSIGN_OR_RAISE(output->encoder_, SegmentEncoder::Make(schema));
  const std::span<const uint8_t> schema_message = output->encoder_->schema_message();
  if (output->target_.kind() == OutputTarget::Kind::kReplaceFile) {
    SLUICE_ASSIGN_OR_RAISE(output->file_,
                           OutputFile::Create(TemporaryPathFor(output->target_.resolved_path())));
    output->file_->Append(schema_message.data(), static_cast<int64_t>(schema_message.size()));
  } else {
    SLUICE_ASSIGN_OR_RAISE(output->stream_fd_, output->target_.OpenStream());
    output->pending_.Append(schema_message.data(), static_cast<int64_t>(schema_message.size()));
  }
  output->bytes_written_ = static_cast<int64_t>(schema_message.size());
  return output;
}

IpcOutput::~IpcOutput() {
  if (file_ != nullptr && !finished_) file_->Remove();
  if (stream_fd_ > STDERR_FILENO) ::close(stream_fd_);
}

Status IpcOutput::FlushPending(bool force) {
  if (file_ != nullptr) return force ? file_->Flush() : file_->MaybeFlush();
  if (!force && pending_.size() < kStandardOutputFlushBytes) return Status::OK();
  int64_t done = 0;
  while (done < pending_.size()) {
    const ssize_t count =
        ::write(stream_fd_, pending_.data() + done, static_cast<size_t>(pending_.size() - done));
    if (count < 0) {
      const int error = errno;
      if (error == EINTR) continue;
      return Status::IOError("cannot write to '", target_.Describe(), "': ", ErrnoMessage(error));
    }
    done += count;
  }
  pending_.Clear();
  return Status::OK();
}

Status IpcOutput::Write(const RecordBatch& batch) {
  AlignedBuffer* target = file_ != nullptr ? file_->pending() : &pending_;
  const int64_t before = target->size();
  SLUICE_RETURN_NOT_OK(encoder_->AppendRecordBatch(batch, target));
  bytes_written_ += target->size() - before;
  return FlushPending(false);
}

Status IpcOutput::Finish() {
  AlignedBuffer* target = file_ != nullptr ? file_->pending() : &pending_;
  target->Append(ipc::kEndOfStream.data(), static_cast<int64_t>(ipc::kEndOfStream.size()));
  bytes_written_ += static_cast<int64_t>(ipc::kEndOfStream.size());
  SLUICE_RETURN_NOT_OK(FlushPending(true));
  if (file_ != nullptr) {
    SLUICE_RETURN_NOT_OK(file_->Close());
    SLUICE_RETURN_NOT_OK(CheckReplaceable(target_.resolved_path()));
    SLUICE_RETURN_NOT_OK(RenameFile(file_->path(), target_.resolved_path()));
    file_->Keep();
  }
  finished_ = true;
  return Status::OK();
}

}  // namespace sluice::cli
