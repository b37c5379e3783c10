#include "sluice/io/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "sluice/io/output_file.h"

namespace sluice {

Result<std::unique_ptr<InputFile>> InputFile::Open(std::string path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    return Status::IOError("cannot open '", path, "': ", ErrnoMessage(error));
  }
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    return Status::IOError("cannot stat '", path, "': ", ErrnoMessage(error));
  }
  if (S_ISDIR(info.st_mode)) {
    ::close(fd);
    return Status::IOError("'", path, "' is a directory, expected a file");
  }
  return std::unique_ptr<InputFile>(new InputFile(std::move(path), fd, info.st_size));
}

InputFile::~InputFile() {
  ::close(fd_);
}

Status InputFile::ReadAt(int64_t offset, int64_t length, uint8_t* out) const {
  if (offset < 0 || length < 0 || offset > size_ || length > size_ - offset) {
    return Status::IOError("'", path_, "' has ", size_, " bytes; cannot read ", length,
                           " bytes at offset ", offset);
  }
  while (length > 0) {
    const ssize_t done = ::pread(fd_, out, static_cast<size_t>(length), offset);
    if (done < 0) {
      const int error = errno;
      if (error == EINTR) continue;
      return Status::IOError("cannot read '", path_, "' at offset ", offset, ": ",
                             ErrnoMessage(error));
    }
    if (done == 0) {
      return Status::IOError("'", path_, "' ended at offset ", offset, " while reading ", length,
                             " more bytes");
    }
    out += done;
    offset += done;
    length -= done;
  }
  return Status::OK();
}

Status InputFile::ReadAt(int64_t offset, int64_t length, AlignedBuffer* out) const {
  out->Resize(length);
  return ReadAt(offset, length, out->data());
}

Result<const uint8_t*> SequentialFileReader::Read(int64_t offset, int64_t length) {
  if (offset >= buffer_offset_ && offset + length <= buffer_offset_ + buffer_.size()) {
    return buffer_.data() + (offset - buffer_offset_);
  }
  const int64_t amount =
      std::min(std::max(length, buffer_bytes_), std::max<int64_t>(file_->size() - offset, length));
  SLUICE_RETURN_NOT_OK(file_->ReadAt(offset, amount, &buffer_));
  buffer_offset_ = offset;
  return buffer_.data();
}

}  // namespace sluice
