#include "map_output_files.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <regex>

#include "sluice/io/spark_shuffle_files.h"

namespace sluice::cli {

namespace {

namespace fs = std::filesystem;

bool Exists(const std::string& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

void FindChecksumFile(const SparkShuffleFileNames& names, MapOutputFiles* files) {
  for (ChecksumAlgorithm algorithm :
       {ChecksumAlgorithm::kAdler32, ChecksumAlgorithm::kCrc32, ChecksumAlgorithm::kCrc32c}) {
    const std::string path = names.Checksum(algorithm);
    if (Exists(path)) {
      files->checksum = path;
      files->checksum_algorithm = algorithm;
      return;
    }
  }
}

Result<MapOutputFiles> Describe(const SparkShuffleFileNames& names, int64_t shuffle_id,
                                int64_t map_id) {
  MapOutputFiles files;
  files.shuffle_id = shuffle_id;
  files.map_id = map_id;
  files.data = names.data;
  files.index = names.index;
  if (!Exists(files.data)) {
    return Status::IOError("map output ", map_id, ": data file '", files.data, "' not found");
  }
  if (!Exists(files.index)) {
    return Status::IOError("map output ", map_id, ": index file '", files.index,
                           "' not found (the data file is there)");
  }
  FindChecksumFile(names, &files);
  return files;
}

}  // namespace

Result<MapOutputFiles> FindMapOutput(const std::string& directory, int64_t shuffle_id,
                                     int64_t map_id) {
  return Describe(SparkShuffleFileNames::For(directory, shuffle_id, map_id), shuffle_id, map_id);
}

Result<std::vector<MapOutputFiles>> FindMapOutputs(const std::string& directory, int64_t shuffle_id,
                                                   const std::vector<int64_t>& map_ids) {
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    return Status::IOError("'", directory, "' is not a directory");
  }
  std::vector<int64_t> ids = map_ids;
  if (ids.empty()) {
    const std::regex pattern("shuffle_" + std::to_string(shuffle_id) + "_([0-9]+)_0\\.data");
    for (const fs::directory_entry& entry : fs::directory_iterator(directory, error)) {
      const std::string name = entry.path().filename().string();
      std::smatch match;
      if (std::regex_match(name, match, pattern)) {
        int64_t id = 0;
        const std::string digits = match[1].str();
        std::from_chars(digits.data(), digits.data() + digits.size(), id);
        ids.push_back(id);
      }
    }
    if (error) return Status::IOError("cannot list '", directory, "': ", error.message());
    if (ids.empty()) {
      return Status::IOError("no map outputs of shuffle ", shuffle_id, " in '", directory,
                             "' (expected files named shuffle_", shuffle_id, "_<map>_0.data)");
    }
    std::sort(ids.begin(), ids.end());
  }
  std::vector<MapOutputFiles> outputs;
  for (int64_t id : ids) {
    SLUICE_ASSIGN_OR_RAISE(MapOutputFiles files, FindMapOutput(directory, shuffle_id, id));
    outputs.push_back(std::move(files));
  }
  return outputs;
}

Result<MapOutputFiles> MapOutputForDataFile(const std::string& data_path) {
  int64_t shuffle_id = 0;
  int64_t map_id = 0;
  const std::string name = fs::path(data_path).filename().string();
  const std::regex pattern("shuffle_([0-9]+)_([0-9]+)_0\\.data");
  std::smatch match;
  if (std::regex_match(name, match, pattern)) {
    const std::string shuffle = match[1].str();
    const std::string map = match[2].str();
    std::from_chars(shuffle.data(), shuffle.data() + shuffle.size(), shuffle_id);
    std::from_chars(map.data(), map.data() + map.size(), map_id);
  }
  return Describe(SparkShuffleFileNames::ForDataFile(data_path), shuffle_id, map_id);
}

}  // namespace sluice::cli
