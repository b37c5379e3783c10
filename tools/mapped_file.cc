#include "mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "sluice/io/output_file.h"

namespace sluice::cli {

Result<std::shared_ptr<const MappedFile>> MappedFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("cannot open '", path, "': ", ErrnoMessage(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    return Status::IOError("cannot stat '", path, "': ", ErrnoMessage(error));
  }
  if (S_ISDIR(info.st_mode)) {
    ::close(fd);
    return Status::IOError("'", path, "' is a directory, expected a file");
  }
  const int64_t size = info.st_size;
  const uint8_t* data = nullptr;
  if (size > 0) {
    void* mapping = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping == MAP_FAILED) {
      const int error = errno;
      ::close(fd);
      return Status::IOError("cannot map '", path, "': ", ErrnoMessage(error));
    }
    // Readers go front to back: let the kernel read ahead generously.
    ::madvise(mapping, static_cast<size_t>(size), MADV_SEQUENTIAL);
    data = static_cast<const uint8_t*>(mapping);
  }
  ::close(fd);  // the mapping keeps the file
  return std::shared_ptr<const MappedFile>(new MappedFile(path, data, size));
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), static_cast<size_t>(size_));
}

}  // namespace sluice::cli
