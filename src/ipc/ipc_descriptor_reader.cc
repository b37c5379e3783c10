#include "sluice/ipc/ipc_descriptor_reader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sluice/base/aligned_buffer.h"
#include "sluice/base/failure_guard.h"
#include "sluice/ipc/ipc_format.h"
#include "sluice/ipc/message_reader.h"

namespace sluice {

namespace {

// Metadata of one message at most: far above any real schema or batch header (a batch of 10,000
// columns has about 1 MiB of metadata), low enough that a corrupt length costs nothing.
constexpr int64_t kMaxMetadataBytes = int64_t{64} << 20;

}  // namespace

IpcDescriptorReader::IpcDescriptorReader(IpcDescriptorReaderOptions options)
    : options_(std::move(options)), decoder_(options_.decoder) {}

IpcDescriptorReader::~IpcDescriptorReader() = default;

Result<std::unique_ptr<IpcDescriptorReader>> IpcDescriptorReader::Open(
    int fd, std::string source, IpcDescriptorReaderOptions options) {
  return GuardFailures(
      "IpcDescriptorReader::Open", [&]() -> Result<std::unique_ptr<IpcDescriptorReader>> {
        std::unique_ptr<IpcDescriptorReader> reader(new IpcDescriptorReader(std::move(options)));
        reader->fd_ = fd;
        reader->source_ = std::move(source);
        struct stat info;
        if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
          reader->file_size_ = info.st_size - ::lseek(fd, 0, SEEK_CUR);
        }
        // The file format's magic, or the first message's prefix.
        uint8_t start[ipc::kFileMagicPaddedSize];
        SLUICE_RETURN_NOT_OK(reader->ReadExactly(start, 4, "the stream's first message"));
        int64_t have = 4;
        if (std::memcmp(start, "ARRO", 4) == 0) {
          SLUICE_RETURN_NOT_OK(reader->ReadExactly(start + 4, 4, "the file format's magic"));
          if (!ipc::StartsWithFileMagic(start, 8)) {
            return Status::Corrupt(reader->source_,
                                   ": byte 0: neither an Arrow IPC stream nor file");
          }
          have = 0;
        }
        int64_t body_length = 0;
        ipc::MessageType type = ipc::MessageType::kSchema;
        reader->header_.assign(start, start + have);
        SLUICE_ASSIGN_OR_RAISE(bool more, reader->ReadHeader(&body_length, &type));
        if (!more) {
          return Status::Corrupt(reader->source_, ": the stream ends before its Schema message");
        }
        if (type != ipc::MessageType::kSchema || body_length != 0) {
          return Status::Corrupt(reader->source_,
                                 ": the stream starts with a message other than "
                                 "its Schema");
        }
        auto schema_message = std::make_shared<AlignedBuffer>();
        schema_message->Append(reader->header_.data(),
                               static_cast<int64_t>(reader->header_.size()));
        SLUICE_RETURN_NOT_OK(reader->decoder_.Begin(schema_message->data(), schema_message->size(),
                                                    schema_message, reader->source_, 0));
        SLUICE_RETURN_NOT_OK(reader->decoder_.ReadSchema());
        return reader;
      });
}

Status IpcDescriptorReader::ReadExactly(uint8_t* out, int64_t size, const char* what) {
  int64_t done = 0;
  while (done < size) {
    const ssize_t count = ::read(fd_, out + done, static_cast<size_t>(size - done));
    if (count < 0) {
      const int error = errno;
      if (error == EINTR) {
        if (options_.cancelled && options_.cancelled()) {
          return Status::Cancelled(source_, ": interrupted while reading ", what);
        }
        continue;
      }
      return Status::IOError(source_, ": byte ", position_ + done, ": cannot read ", what, ": ",
                             std::strerror(error));
    }
    if (count == 0) {
      return Status::Corrupt(source_, ": byte ", position_ + done, ": the stream ends inside ",
                             what, " (", done, " of ", size, " bytes)");
    }
    done += count;
  }
  position_ += size;
  return Status::OK();
}

Result<bool> IpcDescriptorReader::ReadHeader(int64_t* body_length, ipc::MessageType* type) {
  // header_ may already hold the first bytes of the prefix (Open reads 4 to tell stream from
  // file).
  const int64_t start = position_ - static_cast<int64_t>(header_.size());
  uint8_t prefix_bytes[ipc::kMessagePrefixSize];
  int64_t have = static_cast<int64_t>(header_.size());
  if (have > 0) std::memcpy(prefix_bytes, header_.data(), static_cast<size_t>(have));
  if (have < 4) {
    SLUICE_RETURN_NOT_OK(ReadExactly(prefix_bytes + have, 4 - have, "a message prefix"));
    have = 4;
  }
  uint32_t marker;
  std::memcpy(&marker, prefix_bytes, 4);
  if (marker == ipc::kContinuationMarker && have < 8) {
    SLUICE_RETURN_NOT_OK(ReadExactly(prefix_bytes + 4, 4, "a message prefix"));
    have = 8;
  }
  SLUICE_ASSIGN_OR_RAISE(ipc::MessagePrefix prefix,
                         ipc::ReadMessagePrefix(prefix_bytes, have, source_, start,
                                                /*metadata_must_fit=*/false));
  if (prefix.end_of_stream()) {
    header_.clear();
    return false;
  }
  const int64_t left = file_size_ >= 0 ? file_size_ - position_ : kMaxMetadataBytes;
  if (prefix.metadata_size > std::min(kMaxMetadataBytes, left)) {
    return Status::Corrupt(source_, ": byte ", start, ": message metadata length ",
                           prefix.metadata_size, " exceeds the ", std::min(kMaxMetadataBytes, left),
                           " bytes it may have");
  }
  header_.resize(static_cast<size_t>(prefix.size + prefix.metadata_size));
  std::memcpy(header_.data(), prefix_bytes, static_cast<size_t>(prefix.size));
  SLUICE_RETURN_NOT_OK(
      ReadExactly(header_.data() + prefix.size, prefix.metadata_size, "a message's metadata"));
  SLUICE_ASSIGN_OR_RAISE(ipc::MessageHeader header,
                         ipc::ReadMessageHeader(header_.data() + prefix.size, prefix.metadata_size,
                                                source_, start + prefix.size));
  switch (header.type) {
    case ipc::MessageType::kSchema:
    case ipc::MessageType::kRecordBatch:
    case ipc::MessageType::kDictionaryBatch:
      break;
    default:
      return Status::Corrupt(source_, ": byte ", start, ": unexpected ", header.type_name,
                             " message in an Arrow IPC stream");
  }
  const int64_t body_left = file_size_ >= 0 ? file_size_ - position_ : INT64_MAX;
  const int64_t body_limit = std::min(options_.decoder.max_block_bytes, body_left);
  if (header.body_length > body_limit) {
    return Status::Corrupt(source_, ": byte ", start, ": message body length ", header.body_length,
                           " exceeds the ", body_limit,
                           file_size_ >= 0 && body_left < options_.decoder.max_block_bytes
                               ? " bytes left in the file"
                               : " bytes a block may have");
  }
  *body_length = header.body_length;
  *type = header.type;
  return true;
}

Result<std::optional<RecordBatch>> IpcDescriptorReader::Next() {
  if (!failure_.ok()) return failure_;
  if (finished_) return std::optional<RecordBatch>();
  auto next = GuardFailures("reading an Arrow IPC input", [&] { return ReadNext(); });
  if (!next.ok()) {
    failure_ = next.status();
    return failure_;
  }
  if (!next->has_value()) finished_ = true;
  return next;
}

Result<std::optional<RecordBatch>> IpcDescriptorReader::ReadNext() {
  int64_t start = position_;
  int64_t body_length = 0;
  ipc::MessageType type = ipc::MessageType::kSchema;
  // The message whole, in one buffer the batch owns: the decoder reads the body in place.
  std::shared_ptr<AlignedBuffer> message;
  while (true) {
    start = position_;
    header_.clear();
    SLUICE_ASSIGN_OR_RAISE(bool more, ReadHeader(&body_length, &type));
    if (!more) return std::optional<RecordBatch>();
    if (type == ipc::MessageType::kSchema) {
      return Status::Corrupt(source_, ": byte ", start, ": a second Schema message in one stream");
    }
    message = std::make_shared<AlignedBuffer>();
    const auto header_size = static_cast<int64_t>(header_.size());
    message->Resize(header_size + body_length);
    std::memcpy(message->data(), header_.data(), header_.size());
    SLUICE_RETURN_NOT_OK(ReadExactly(message->data() + header_size, body_length, "a message body"));
    SLUICE_RETURN_NOT_OK(
        decoder_.Continue(message->data(), message->size(), message, source_, start));
    if (type == ipc::MessageType::kRecordBatch) break;
    SLUICE_RETURN_NOT_OK(decoder_.ReadDictionaryBatch());
  }
  SLUICE_ASSIGN_OR_RAISE(std::optional<RecordBatch> batch, decoder_.Next());
  if (!batch.has_value()) {
    return Status::Corrupt(source_, ": byte ", start, ": a RecordBatch message held no batch");
  }
  return batch;
}

}  // namespace sluice
