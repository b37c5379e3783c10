// OutputFile: a new file written front to back in large sequential writes.
//
// Callers append to pending() (an aligned in-memory buffer) and call MaybeFlush(); the file sees
// one write(2) per `flush_bytes` of data, whatever the number of partitions or blocks. Offsets
// are computed (position()), never asked of the file system. Every failure (missing or
// read-only directory, disk full, a short write) is an IOError naming the path. A file that is
// neither committed nor kept is removed when the object dies, so a failed task leaves nothing.
#pragma once

#include <cstdint>
#include <string>

#include "sluice/base/aligned_buffer.h"
#include "sluice/base/result.h"

namespace sluice {

struct OutputFileOptions {
  /// Pending bytes that trigger a write. 256 KiB: large enough that syscalls are a rounding
  /// error next to the bytes (four per MiB), small enough that the buffer, which every task
  /// touches fresh, costs few page faults (at 4 MiB, faulting in the buffer was a sizeable
  /// share of a small map task's time), and that a write is short. A writer with a compression
  /// thread writes on its own thread while the other encodes the blocks queued for it: 1 MiB
  /// writes outlasted them and left that thread idle; 256 KiB writes do not (DEVELOPING.md,
  /// "Figures behind the constants").
  int64_t flush_bytes = int64_t{256} << 10;
};

class OutputFile {
 public:
  /// Creates `path`, which must not exist (O_EXCL).
  static Result<std::unique_ptr<OutputFile>> Create(const std::string& path,
                                                    const OutputFileOptions& options = {});
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  const std::string& path() const { return path_; }
  /// Returns the file offset where the next appended byte lands.
  int64_t position() const { return written_ + pending_.size(); }

  /// The buffer to append to; its bytes are at file offsets written() onwards.
  AlignedBuffer* pending() { return &pending_; }
  int64_t written() const { return written_; }

  /// Appends bytes to the pending buffer.
  void Append(const void* data, int64_t size) { pending_.Append(data, size); }
  /// Writes the pending bytes when there are at least flush_bytes of them.
  Status MaybeFlush() { return pending_.size() >= flush_bytes_ ? Flush() : Status::OK(); }
  /// Writes all pending bytes.
  Status Flush();
  /// Copies `length` bytes at `offset` of the open file `source_fd` (named `source_path` in
  /// errors) to the end of this file, with copy_file_range where the kernel allows it.
  Status CopyFrom(int source_fd, const std::string& source_path, int64_t offset, int64_t length);
  /// Flushes and fsyncs.
  Status Sync();
  /// Flushes and closes; the file stays until Remove() or destruction unless Keep() is called.
  Status Close();
  /// Marks the file to survive this object (after it was renamed or handed over).
  void Keep() { keep_ = true; }
  /// Removes the file (closing it first). Idempotent.
  void Remove();

 private:
  OutputFile(std::string path, int fd, const OutputFileOptions& options);
  Status WriteAll(const uint8_t* data, int64_t size);

  std::string path_;
  int fd_ = -1;
  int64_t flush_bytes_;
  int64_t written_ = 0;
  AlignedBuffer pending_;
  bool keep_ = false;
  bool removed_ = false;
};

/// Returns a path beside `final_path` for writing before an atomic rename:
/// "<final_path>.<pid>.<counter>.tmp".
std::string TemporaryPathFor(const std::string& final_path);

/// Renames `from` to `to` atomically (same file system). IOError naming both on failure.
Status RenameFile(const std::string& from, const std::string& to);

/// Returns the directory part of `path` ("." when it has none).
std::string DirectoryOf(const std::string& path);

/// Fsyncs the directory holding `path`, so a rename in it is durable.
Status SyncDirectoryOf(const std::string& path);

/// Returns "<message>: <strerror(errno_value)>".
std::string ErrnoMessage(int errno_value);

}  // namespace sluice
