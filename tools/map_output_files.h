// MapOutputFiles: the files of one map output in Spark's layout, found on disk.
//
//   DIR/shuffle_S_M_0.data  .index  .checksum.<ALGO>
//
// `sluice read` finds every map output of a shuffle in a directory; `sluice inspect` starts from
// a data file's path. The checksum file is whichever of ADLER32, CRC32 and CRC32C exists.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/codec/checksum.h"

namespace sluice::cli {

struct MapOutputFiles {
  int64_t shuffle_id = 0;
  int64_t map_id = 0;
  std::string data;
  std::string index;
  /// Empty when no checksum file exists.
  std::string checksum;
  ChecksumAlgorithm checksum_algorithm = ChecksumAlgorithm::kNone;
};

/// Returns the files of map output `map_id` of `shuffle_id` in `directory`; the data and index
/// files must exist.
Result<MapOutputFiles> FindMapOutput(const std::string& directory, int64_t shuffle_id,
                                     int64_t map_id);

/// Returns the map outputs of `shuffle_id` in `directory`, by map id: those in `map_ids`, or
/// every one whose data file exists when it is empty. Fails when none is found.
Result<std::vector<MapOutputFiles>> FindMapOutputs(const std::string& directory, int64_t shuffle_id,
                                                   const std::vector<int64_t>& map_ids);

/// Returns the files beside a data file named shuffle_S_M_0.data (any other name: S and M are 0,
/// and the index is "<name>.index").
Result<MapOutputFiles> MapOutputForDataFile(const std::string& data_path);

}  // namespace sluice::cli
