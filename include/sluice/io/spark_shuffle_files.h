// Spark's files beside a map output's data file, as IndexShuffleBlockResolver lays them out:
// - shuffle_S_M_0.index: P + 1 big-endian int64 offsets of the partitions in the data file;
// - shuffle_S_M_0.checksum.<ALGO>: P big-endian int64 checksums, one per partition, over the
//   exact bytes of that partition in the data file (ALGO is ADLER32, CRC32 or CRC32C).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/codec/checksum.h"

namespace sluice {

/// The names Spark gives the files of map output `map_id` of shuffle `shuffle_id` in `directory`.
struct SparkShuffleFileNames {
  std::string data;
  std::string index;
  /// The checksum file for `algorithm` (empty for kNone).
  std::string Checksum(ChecksumAlgorithm algorithm) const;

  static SparkShuffleFileNames For(const std::string& directory, int64_t shuffle_id,
                                   int64_t map_id);
  /// Derives the index and checksum names from a data file name ending in ".data" (or, for any
  /// other name, by appending ".index").
  static SparkShuffleFileNames ForDataFile(const std::string& data_path);
};

/// Writes an index file to `path` (new, then renamed by the caller): P + 1 big-endian offsets.
Status WriteIndexFile(const std::string& path, std::span<const int64_t> offsets, bool sync);

/// Writes a checksum file: one big-endian int64 per partition.
Status WriteChecksumFile(const std::string& path, std::span<const uint32_t> checksums, bool sync);

/// Reads an index file. Checks that it holds a whole number of offsets, that they start at 0
/// and never decrease; `data_size` (>= 0) must equal the last offset.
Result<std::vector<int64_t>> ReadIndexFile(const std::string& path, int64_t data_size = -1);

/// Reads a checksum file of `partitions` entries (-1 for any count).
Result<std::vector<uint32_t>> ReadChecksumFile(const std::string& path, int64_t partitions = -1);

}  // namespace sluice
