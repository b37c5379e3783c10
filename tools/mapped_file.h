// MappedFile: a whole file mapped read-only into memory, shared by the batches that view it.
//
// The tool reads Arrow inputs and map outputs through mappings: decoding is zero-copy over the
// page cache, and a 1 GiB input costs no 1 GiB of heap. The mapping lives as long as the last
// shared_ptr to it, which batches hold as their MemoryOwner.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sluice/base/result.h"

namespace sluice::cli {

class MappedFile {
 public:
  /// Maps `path`. An empty file maps to no bytes (data() is null). Errors name the path.
  static Result<std::shared_ptr<const MappedFile>> Open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::string& path() const { return path_; }
  const uint8_t* data() const { return data_; }
  int64_t size() const { return size_; }

 private:
  MappedFile(std::string path, const uint8_t* data, int64_t size)
      : path_(std::move(path)), data_(data), size_(size) {}

  std::string path_;
  const uint8_t* data_;
  int64_t size_;
};

}  // namespace sluice::cli
