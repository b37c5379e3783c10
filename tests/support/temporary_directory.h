// A directory under $TMPDIR that is removed, with everything in it, when the object dies.
#pragma once

#include <string>
#include <vector>

namespace sluice::testing {

class TemporaryDirectory {
 public:
  TemporaryDirectory();
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

  const std::string& path() const { return path_; }
  /// Returns path() + "/" + name.
  std::string Join(const std::string& name) const { return path_ + "/" + name; }
  /// Returns the names of the entries in the directory, sorted.
  std::vector<std::string> List() const;

 private:
  std::string path_;
};

/// Reads a whole file; fails the test when it cannot.
std::string ReadFileBytes(const std::string& path);
/// Writes a whole file; fails the test when it cannot.
void WriteFileBytes(const std::string& path, const std::string& bytes);

}  // namespace sluice::testing
