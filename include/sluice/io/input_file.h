// InputFile: an open file read at explicit offsets, with errors that name the path.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sluice/base/aligned_buffer.h"
#include "sluice/base/result.h"

namespace sluice {

class InputFile {
 public:
  static Result<std::unique_ptr<InputFile>> Open(std::string path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }
  int64_t size() const { return size_; }

  /// Reads exactly `length` bytes at `offset` into `out` (which must hold them).
  Status ReadAt(int64_t offset, int64_t length, uint8_t* out) const;
  /// Reads exactly `length` bytes at `offset`, replacing the contents of `out`.
  Status ReadAt(int64_t offset, int64_t length, AlignedBuffer* out) const;

 private:
  InputFile(std::string path, int fd, int64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}

  std::string path_;
  int fd_;
  int64_t size_;
};

/// Reads a file front to back through one buffer: for merging the spill files, whose
/// partitions are read in order, with one read(2) per buffer-full rather than per partition.
class SequentialFileReader {
 public:
  SequentialFileReader(const InputFile* file, int64_t buffer_bytes)
      : file_(file), buffer_bytes_(buffer_bytes) {}

  /// Returns the bytes [offset, offset + length), valid until the next call. Offsets should
  /// increase from call to call; going back rereads.
  Result<const uint8_t*> Read(int64_t offset, int64_t length);
  /// Frees the buffer (a later Read allocates it again).
  void Release() { buffer_.Release(); }

 private:
  const InputFile* file_;
  int64_t buffer_bytes_;
  AlignedBuffer buffer_;
  int64_t buffer_offset_ = 0;
};

}  // namespace sluice
