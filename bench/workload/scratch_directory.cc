#include "workload/scratch_directory.h"

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>

namespace sluice::workload {

namespace {

class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    path_ = (std::filesystem::temp_directory_path() / "sluice-bench-XXXXXX").string();
    if (::mkdtemp(path_.data()) == nullptr) std::abort();
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

const std::string& ScratchDirectory() {
  static const TemporaryDirectory directory;
  return directory.path();
}

}  // namespace sluice::workload
