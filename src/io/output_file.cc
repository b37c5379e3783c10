#include "sluice/io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "sluice/io/io_fault_injection.h"

namespace sluice {

std::string ErrnoMessage(int errno_value) {
  return std::strerror(errno_value);
}

Result<std::unique_ptr<OutputFile>> OutputFile::Create(const std::string& path,
                                                       const OutputFileOptions& options) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error = errno;
    return Status::IOError("cannot create '", path, "': ", ErrnoMessage(error));
  }
  try {
    return std::unique_ptr<OutputFile>(new OutputFile(path, fd, options));
  } catch (...) {
    // The object that would remove the file was never made: remove it here.
    ::close(fd);
    ::unlink(path.c_str());
    throw;
  }
}

OutputFile::OutputFile(std::string path, int fd, const OutputFileOptions& options)
    : path_(std::move(path)), fd_(fd), flush_bytes_(options.flush_bytes) {
  // Room for a full flush and the block that crosses it, so appends never regrow (and copy) the
  // buffer; pages are touched only as they fill.
  pending_.Reserve(2 * flush_bytes_);
}

OutputFile::~OutputFile() {
  if (!keep_) {
    Remove();
  } else if (fd_ >= 0) {
    ::close(fd_);
  }
}

Status OutputFile::WriteAll(const uint8_t* data, int64_t size) {
  while (size > 0) {
    const int injected = io_faults::CheckWrite(size);
    ssize_t done = -1;
    int error = injected;
    if (injected == 0) {
      done = ::write(fd_, data, static_cast<size_t>(size));
      error = errno;
    }
    if (done < 0) {
      if (injected == 0 && error == EINTR) continue;
      return Status::IOError("cannot write ", size, " bytes to '", path_, "' at offset ", written_,
                             ": ", ErrnoMessage(error));
    }
    data += done;
    size -= done;
    written_ += done;
  }
  return Status::OK();
}

Status OutputFile::Flush() {
  if (fd_ < 0) return Status::IOError("'", path_, "' is closed");
  if (pending_.empty()) return Status::OK();
  Status status = WriteAll(pending_.data(), pending_.size());
  pending_.Clear();
  return status;
}

Status OutputFile::CopyFrom(int source_fd, const std::string& source_path, int64_t offset,
                            int64_t length) {
  SLUICE_RETURN_NOT_OK(Flush());
  bool kernel_copy = io_faults::CheckWrite(0) == 0;
  while (length > 0 && kernel_copy) {
    if (const int injected = io_faults::CheckWrite(length)) {
      return Status::IOError("cannot copy ", length, " bytes from '", source_path, "' to '", path_,
                             "': ", ErrnoMessage(injected));
    }
    loff_t in_offset = offset;
    const ssize_t done =
        ::copy_file_range(source_fd, &in_offset, fd_, nullptr, static_cast<size_t>(length), 0);
    if (done < 0) {
      const int error = errno;
      if (error == EINTR) continue;
      if (error == EXDEV || error == ENOSYS || error == EINVAL || error == EOPNOTSUPP) {
        kernel_copy = false;  // across file systems or unsupported: copy through memory
        break;
      }
      return Status::IOError("cannot copy ", length, " bytes from '", source_path, "' at offset ",
                             offset, " to '", path_, "': ", ErrnoMessage(error));
    }
    if (done == 0) {
      return Status::IOError("'", source_path, "' ends before offset ", offset + length);
    }
    offset += done;
    length -= done;
    written_ += done;
  }
  // Fallback through a bounded buffer.
  constexpr int64_t kChunk = int64_t{1} << 20;
  while (length > 0) {
    const int64_t chunk = std::min(length, kChunk);
    pending_.Resize(chunk);
    const ssize_t done = ::pread(source_fd, pending_.data(), static_cast<size_t>(chunk), offset);
    if (done <= 0) {
      const int error = done < 0 ? errno : 0;
      pending_.Clear();
      if (done < 0 && error == EINTR) continue;
      return Status::IOError("cannot read ", chunk, " bytes of '", source_path, "' at offset ",
                             offset, done == 0 ? ": unexpected end of file" : ": ",
                             done == 0 ? "" : ErrnoMessage(error));
    }
    pending_.Resize(done);
    SLUICE_RETURN_NOT_OK(Flush());
    offset += done;
    length -= done;
  }
  return Status::OK();
}

Status OutputFile::Sync() {
  SLUICE_RETURN_NOT_OK(Flush());
  if (::fsync(fd_) != 0) {
    const int error = errno;
    return Status::IOError("cannot fsync '", path_, "': ", ErrnoMessage(error));
  }
  return Status::OK();
}

Status OutputFile::Close() {
  if (fd_ < 0) return Status::OK();
  Status status = Flush();
  if (::close(fd_) != 0 && status.ok()) {
    const int error = errno;
    status = Status::IOError("cannot close '", path_, "': ", ErrnoMessage(error));
  }
  fd_ = -1;
  // A closed spill file lives on until the final merge; its buffer need not.
  pending_.Release();
  return status;
}

void OutputFile::Remove() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!removed_) {
    ::unlink(path_.c_str());
    removed_ = true;
  }
  pending_.Clear();
}

std::string TemporaryPathFor(const std::string& final_path) {
  static std::atomic<uint64_t> counter{0};
  return final_path + "." + std::to_string(::getpid()) + "." + std::to_string(counter++) + ".tmp";
}

Status RenameFile(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    const int error = errno;
    return Status::IOError("cannot rename '", from, "' to '", to, "': ", ErrnoMessage(error));
  }
  return Status::OK();
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

Status SyncDirectoryOf(const std::string& path) {
  const std::string directory = DirectoryOf(path);
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    return Status::IOError("cannot open directory '", directory, "': ", ErrnoMessage(error));
  }
  const int result = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (result != 0) {
    return Status::IOError("cannot fsync directory '", directory, "': ", ErrnoMessage(error));
  }
  return Status::OK();
}

}  // namespace sluice
