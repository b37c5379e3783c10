#include "sluice/io/output_target.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "sluice/io/output_file.h"

namespace sluice {

namespace {

// Linux's own limit of links followed in one path resolution (MAXSYMLINKS).
constexpr int kMaxSymbolicLinks = 40;

const char* FileKindName(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

}  // namespace

Result<std::string> FollowSymbolicLinks(const std::string& path) {
  std::string current = path;
  for (int links = 0; links <= kMaxSymbolicLinks; ++links) {
    struct stat info;
    if (::lstat(current.c_str(), &info) != 0) {
      const int error = errno;
      if (error == ENOENT) return current;
      return Status::IOError("cannot inspect '", current, "': ", ErrnoMessage(error));
    }
    if (!S_ISLNK(info.st_mode)) return current;
    std::vector<char> target(static_cast<size_t>(info.st_size > 0 ? info.st_size : 255) + 1);
    const ssize_t length = ::readlink(current.c_str(), target.data(), target.size());
    if (length < 0) {
      const int error = errno;
      return Status::IOError("cannot read the link '", current, "': ", ErrnoMessage(error));
    }
    std::string next(target.data(), static_cast<size_t>(length));
    if (next.empty()) return Status::IOError("the link '", current, "' is empty");
    if (next.front() != '/') next = DirectoryOf(current) + "/" + next;
    current = std::move(next);
  }
  return Status::IOError("'", path, "': more than ", kMaxSymbolicLinks,
                         " symbolic links to follow");
}

Status CheckReplaceable(const std::string& path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0) {
    const int error = errno;
    if (error == ENOENT) return Status::OK();
    return Status::IOError("cannot inspect '", path, "': ", ErrnoMessage(error));
  }
  if (S_ISREG(info.st_mode)) return Status::OK();
  return Status::IOError("'", path, "' is ", FileKindName(info.st_mode),
                         "; only a regular file is replaced by an output");
}

Result<OutputTarget> OutputTarget::Resolve(const std::string& path) {
  OutputTarget target;
  target.path_ = path;
  if (path == "-") {
    target.kind_ = Kind::kStandardOutput;
    return target;
  }
  if (path.empty()) return Status::Invalid("an output path is required");
  SLUICE_ASSIGN_OR_RAISE(target.resolved_path_, FollowSymbolicLinks(path));
  struct stat info;
  if (::lstat(target.resolved_path_.c_str(), &info) != 0) {
    const int error = errno;
    if (error != ENOENT) {
      return Status::IOError("cannot inspect '", target.Describe(), "': ", ErrnoMessage(error));
    }
    target.kind_ = Kind::kReplaceFile;
    return target;
  }
  if (S_ISREG(info.st_mode)) {
    target.kind_ = Kind::kReplaceFile;
  } else if (S_ISDIR(info.st_mode)) {
    return Status::IOError("'", target.Describe(), "' is a directory; expected a file path");
  } else {
    target.kind_ = Kind::kStream;
  }
  return target;
}

std::string OutputTarget::Describe() const {
  if (kind_ == Kind::kStandardOutput) return "standard output";
  if (resolved_path_.empty() || resolved_path_ == path_) return path_;
  return path_ + "' -> '" + resolved_path_;
}

Result<int> OutputTarget::OpenStream() const {
  if (kind_ == Kind::kStandardOutput) return STDOUT_FILENO;
  const int fd = ::open(resolved_path_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    return Status::IOError("cannot open '", Describe(), "' for writing: ", ErrnoMessage(error));
  }
  return fd;
}

}  // namespace sluice
