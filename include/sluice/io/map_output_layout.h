// MapOutputLayout: where a committed map output's partitions lie, what a reader needs to find
// them: the writers return it (inside MapOutput) and the readers take it
// (MapOutputFile::FromMapOutput), so neither depends on the other.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sluice/codec/checksum.h"

namespace sluice {

struct MapOutputLayout {
  /// P + 1 offsets of the partitions in the data file; partition p is [offsets[p], offsets[p+1]).
  std::vector<int64_t> offsets;
  /// P lengths (offsets[p + 1] - offsets[p]); an empty partition is zero bytes.
  std::vector<int64_t> lengths;
  /// P checksums of each partition's bytes; empty when the algorithm is kNone.
  std::vector<uint32_t> checksums;
  ChecksumAlgorithm checksum_algorithm = ChecksumAlgorithm::kNone;
  std::string data_path;
  std::string index_path;     ///< Empty unless Spark files were written.
  std::string checksum_path;  ///< Empty unless Spark files were written with a checksum.
};

}  // namespace sluice
