#include "sluice/io/spark_shuffle_files.h"

#include "sluice/base/bit_ops.h"
#include "sluice/io/input_file.h"
#include "sluice/io/output_file.h"

namespace sluice {

std::string SparkShuffleFileNames::Checksum(ChecksumAlgorithm algorithm) const {
  if (algorithm == ChecksumAlgorithm::kNone) return std::string();
  std::string base = data;
  if (base.size() >= 5 && base.compare(base.size() - 5, 5, ".data") == 0) {
    base.resize(base.size() - 5);
  }
  return base + ".checksum." + std::string(ChecksumAlgorithmName(algorithm));
}

SparkShuffleFileNames SparkShuffleFileNames::For(const std::string& directory, int64_t shuffle_id,
                                                 int64_t map_id) {
  // Spark's reduce id in the name is always 0 for sort-shuffle outputs (NOOP_REDUCE_ID).
  const std::string stem =
      directory + "/shuffle_" + std::to_string(shuffle_id) + "_" + std::to_string(map_id) + "_0";
  return SparkShuffleFileNames{stem + ".data", stem + ".index"};
}

SparkShuffleFileNames SparkShuffleFileNames::ForDataFile(const std::string& data_path) {
  if (data_path.size() >= 5 && data_path.compare(data_path.size() - 5, 5, ".data") == 0) {
    const std::string stem = data_path.substr(0, data_path.size() - 5);
    return SparkShuffleFileNames{data_path, stem + ".index"};
  }
  return SparkShuffleFileNames{data_path, data_path + ".index"};
}

namespace {
Status WriteBigEndianLongs(const std::string& path, std::span<const uint64_t> values, bool sync) {
  SLUICE_ASSIGN_OR_RAISE(auto file, OutputFile::Create(path));
  for (uint64_t value : values) {
    const uint64_t big_endian = bits::ToBigEndian64(value);
    file->Append(&big_endian, sizeof(big_endian));
  }
  if (sync) SLUICE_RETURN_NOT_OK(file->Sync());
  SLUICE_RETURN_NOT_OK(file->Close());
  file->Keep();
  return Status::OK();
}

Result<std::vector<uint64_t>> ReadBigEndianLongs(const std::string& path, const char* what) {
  SLUICE_ASSIGN_OR_RAISE(auto file, InputFile::Open(path));
  if (file->size() % 8 != 0) {
    return Status::Corrupt(what, " file '", path, "' has ", file->size(),
                           " bytes, not a whole number of 8-byte entries");
  }
  AlignedBuffer bytes;
  SLUICE_RETURN_NOT_OK(file->ReadAt(0, file->size(), &bytes));
  std::vector<uint64_t> values(static_cast<size_t>(file->size() / 8));
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = bits::FromBigEndian64(bits::LoadUnaligned<uint64_t>(bytes.data() + i * 8));
  }
  return values;
}
}  // namespace

Status WriteIndexFile(const std::string& path, std::span<const int64_t> offsets, bool sync) {
  std::vector<uint64_t> values(offsets.begin(), offsets.end());
  return WriteBigEndianLongs(path, values, sync);
}

Status WriteChecksumFile(const std::string& path, std::span<const uint32_t> checksums, bool sync) {
  std::vector<uint64_t> values(checksums.begin(), checksums.end());
  return WriteBigEndianLongs(path, values, sync);
}

Result<std::vector<int64_t>> ReadIndexFile(const std::string& path, int64_t data_size) {
  SLUICE_ASSIGN_OR_RAISE(auto values, ReadBigEndianLongs(path, "index"));
  if (values.empty()) {
    return Status::Corrupt("index file '", path, "' is empty; it needs at least one offset");
  }
  std::vector<int64_t> offsets(values.begin(), values.end());
  if (offsets[0] != 0) {
    return Status::Corrupt("index file '", path, "': the first offset is ", offsets[0],
                           ", expected 0");
  }
  for (size_t i = 1; i < offsets.size(); ++i) {
    if (offsets[i] < offsets[i - 1]) {
      return Status::Corrupt("index file '", path, "': offset of partition ", i, " (", offsets[i],
                             ") is below that of partition ", i - 1, " (", offsets[i - 1], ")");
    }
  }
  if (data_size >= 0 && offsets.back() != data_size) {
    return Status::Corrupt("index file '", path, "' ends at offset ", offsets.back(),
                           " but its data file has ", data_size, " bytes");
  }
  return offsets;
}

Result<std::vector<uint32_t>> ReadChecksumFile(const std::string& path, int64_t partitions) {
  SLUICE_ASSIGN_OR_RAISE(auto values, ReadBigEndianLongs(path, "checksum"));
  if (partitions >= 0 && static_cast<int64_t>(values.size()) != partitions) {
    return Status::Corrupt("checksum file '", path, "' has ", values.size(),
                           " entries, expected one per partition (", partitions, ")");
  }
  std::vector<uint32_t> checksums(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] > 0xffffffffu) {
      return Status::Corrupt("checksum file '", path, "': entry ", i, " (", values[i],
                             ") is not a 32-bit checksum");
    }
    checksums[i] = static_cast<uint32_t>(values[i]);
  }
  return checksums;
}

}  // namespace sluice
