#include "ipc_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "interruption.h"
#include "mapped_file.h"
#include "sluice/ipc/ipc_descriptor_reader.h"
#include "sluice/ipc/segment_layout.h"

namespace sluice::cli {

namespace {

// Counts a file's rows from its messages' metadata, through a mapping released right after
// (only the metadata's pages are touched).
Result<int64_t> CountRows(const std::string& path) {
  SLUICE_ASSIGN_OR_RAISE(std::shared_ptr<const MappedFile> file, MappedFile::Open(path));
  if (file->size() == 0) return Status::Invalid("'", path, "' is empty, expected Arrow IPC");
  SLUICE_ASSIGN_OR_RAISE(SegmentLayout layout, ReadSegmentLayout(file->data(), file->size(), path));
  return layout.rows;
}

}  // namespace

Result<IpcInput> OpenIpcInput(const std::string& path) {
  IpcInput input;
  int fd = STDIN_FILENO;
  if (path == "-") {
    input.name = "standard input";
  } else {
    input.name = path;
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const int error = errno;
      return Status::IOError("cannot open '", path, "': ", std::strerror(error));
    }
    input.descriptor = std::shared_ptr<int>(new int(fd), [](int* owned) {
      ::close(*owned);
      delete owned;
    });
  }
  // The reader first: its Schema message names a column Sluice cannot carry before the rows are
  // counted from the messages that follow it.
  IpcDescriptorReaderOptions options;
  options.cancelled = [] { return InterruptingSignal() != 0; };
  SLUICE_ASSIGN_OR_RAISE(input.reader, IpcDescriptorReader::Open(fd, input.name, options));
  struct stat info;
  if (path != "-" && ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
    input.size = info.st_size;
    SLUICE_ASSIGN_OR_RAISE(input.total_rows, CountRows(path));
  }
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
