#include "ipc_input.h"

#include <unistd.h>

#include <cerrno>

#include "mapped_file.h"
#include "segment_layout.h"
#include "sluice/base/aligned_buffer.h"
#include "sluice/io/output_file.h"
#include "sluice/ipc/ipc_stream_reader.h"

namespace sluice::cli {

namespace {

Result<std::shared_ptr<AlignedBuffer>> ReadStandardInput() {
  auto buffer = std::make_shared<AlignedBuffer>();
  // Reads in 1 MiB steps: few syscalls, and the buffer doubles as it grows.
  constexpr int64_t kStep = int64_t{1} << 20;
  while (true) {
    buffer->Reserve(buffer->size() + kStep);
    const ssize_t count = ::read(STDIN_FILENO, buffer->data() + buffer->size(), kStep);
    if (count < 0) {
      if (errno == EINTR) continue;
      return Status::IOError("cannot read standard input: ", ErrnoMessage(errno));
    }
    if (count == 0) break;
    buffer->Resize(buffer->size() + count);
  }
  return buffer;
}

}  // namespace

Result<IpcInput> OpenIpcInput(const std::string& path) {
  IpcInput input;
  const uint8_t* data = nullptr;
  MemoryOwner owner;
  if (path == "-") {
    input.name = "standard input";
    SLUICE_ASSIGN_OR_RAISE(std::shared_ptr<AlignedBuffer> buffer, ReadStandardInput());
    data = buffer->data();
    input.size = buffer->size();
    owner = std::move(buffer);
  } else {
    input.name = path;
    SLUICE_ASSIGN_OR_RAISE(std::shared_ptr<const MappedFile> file, MappedFile::Open(path));
    data = file->data();
    input.size = file->size();
    owner = std::move(file);
  }
  if (input.size == 0) return Status::Invalid("'", input.name, "' is empty, expected Arrow IPC");
  SLUICE_ASSIGN_OR_RAISE(SegmentLayout layout, ReadSegmentLayout(data, input.size, input.name));
  input.total_rows = layout.rows;
  SLUICE_ASSIGN_OR_RAISE(input.reader,
                         IpcStreamReader::Open(data, input.size, std::move(owner), input.name));
  return input;
}

Result<std::vector<RecordBatch>> ReadAllBatches(const std::string& path, SchemaPtr* schema) {
  SLUICE_ASSIGN_OR_RAISE(IpcInput input, OpenIpcInput(path));
  *schema = input.reader->schema();
  std::vector<RecordBatch> batches;
  while (true) {
    SLUICE_ASSIGN_OR_RAISE(std::optional<RecordBatch> batch, input.reader->Next());
    if (!batch) break;
    batches.push_back(std::move(*batch));
  }
  return batches;
}

}  // namespace sluice::cli
