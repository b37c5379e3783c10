// OutputTarget: what a path given for output is, decided once before anything is written.
//
// Sluice replaces regular files atomically (a temporary file beside the target, renamed into
// place on commit), and nothing else: a path that names a character or block device, a FIFO or
// a socket, or "-" for standard output, is written to as a stream, and a symbolic link is
// followed, so its target is replaced and the link stays. A directory is refused. An existing
// file that is not a regular file is never removed or renamed over (`--output /dev/null` as
// root once replaced the machine's /dev/null with a regular file).
#pragma once

#include <string>

#include "sluice/base/result.h"

namespace sluice {

class OutputTarget {
 public:
  enum class Kind {
    kReplaceFile,     ///< a regular file or nothing yet: write beside it, rename over it
    kStream,          ///< a device, FIFO or socket: open it and write in order
    kStandardOutput,  ///< "-"
  };

  /// Inspects `path` ("-" for standard output), following symbolic links to their final target
  /// (which may not exist yet). IOError naming the path when it is a directory, a link loop, or
  /// cannot be inspected.
  static Result<OutputTarget> Resolve(const std::string& path);

  Kind kind() const { return kind_; }
  /// The path as given.
  const std::string& path() const { return path_; }
  /// The file that is written or replaced: `path()` with every symbolic link followed.
  const std::string& resolved_path() const { return resolved_path_; }
  /// A name for messages: the path, with its target when it is a link.
  std::string Describe() const;

  /// Opens a stream target for writing (no creation, no truncation: a FIFO blocks until it has
  /// a reader). Returns the descriptor, which the caller closes.
  Result<int> OpenStream() const;

 private:
  Kind kind_ = Kind::kReplaceFile;
  std::string path_;
  std::string resolved_path_;
};

/// Returns `path` with every symbolic link of its last component followed, as far as the
/// links exist (a dangling link resolves to the path it names). IOError after 40 links.
Result<std::string> FollowSymbolicLinks(const std::string& path);

/// Checks that `path`, which a committed output is about to replace, is a regular file or does
/// not exist; IOError naming what it is otherwise. Symbolic links are not followed: callers
/// replace resolved paths.
Status CheckReplaceable(const std::string& path);

}  // namespace sluice
