// Fuzzes what a reader trusts least: Spark's index and checksum files beside a data file, all
// three from the input, read by the index and checksum file readers, the segment layout (what
// `sluice inspect` walks) and the PartitionReader verifying checksums. Every outcome must be
// valid batches or an error naming the file, never a crash, a hang or a read out of bounds.
//
// Input layout (make_spark_files_corpus.py writes seeds of it):
//   byte 0     checksum algorithm (value % 4: none, ADLER32, CRC32, CRC32C)
//   byte 1     first partition, byte 2 end of the range
//   bytes 3-4  index file bytes (little-endian), bytes 5-6 checksum file bytes
//   then       the index file, the checksum file, and the data file (the rest).
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sluice/format/array_validate.h"
#include "sluice/io/spark_shuffle_files.h"
#include "sluice/ipc/segment_layout.h"
#include "sluice/read/partition_reader.h"

namespace {

constexpr size_t kHeaderBytes = 7;
constexpr int kMaxBatches = 256;

const std::string& Directory() {
  static const std::string* directory = [] {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "spark-files-fuzz-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    return new std::string(pattern);
  }();
  static const int registered = std::atexit([] {
    std::error_code ignored;
    std::filesystem::remove_all(*directory, ignored);
  });
  (void)registered;
  return *directory;
}

void WriteFile(const std::string& path, const uint8_t* data, size_t size) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeaderBytes) return 0;
  const sluice::ChecksumAlgorithm algorithms[] = {
      sluice::ChecksumAlgorithm::kNone, sluice::ChecksumAlgorithm::kAdler32,
      sluice::ChecksumAlgorithm::kCrc32, sluice::ChecksumAlgorithm::kCrc32c};
  const sluice::ChecksumAlgorithm algorithm = algorithms[data[0] % 4];
  const int32_t start = data[1];
  const int32_t end = data[2];
  size_t index_bytes = data[3] | (data[4] << 8);
  size_t checksum_bytes = data[5] | (data[6] << 8);
  size_t rest = size - kHeaderBytes;
  index_bytes = std::min(index_bytes, rest);
  checksum_bytes = std::min(checksum_bytes, rest - index_bytes);
  const uint8_t* index = data + kHeaderBytes;
  const uint8_t* checksums = index + index_bytes;
  const uint8_t* file = checksums + checksum_bytes;
  const size_t file_bytes = rest - index_bytes - checksum_bytes;

  const sluice::SparkShuffleFileNames names = sluice::SparkShuffleFileNames::For(Directory(), 0, 0);
  WriteFile(names.data, file, file_bytes);
  WriteFile(names.index, index, index_bytes);
  const std::string checksum_path = names.Checksum(algorithm);
  if (!checksum_path.empty()) WriteFile(checksum_path, checksums, checksum_bytes);

  // The file readers on their own, and the layout of every partition they describe.
  auto offsets = sluice::ReadIndexFile(names.index, static_cast<int64_t>(file_bytes));
  if (!checksum_path.empty()) {
    (void)sluice::ReadChecksumFile(checksum_path,
                                   offsets.ok() ? static_cast<int64_t>(offsets->size()) - 1 : -1);
  }
  if (offsets.ok()) {
    for (size_t p = 0; p + 1 < offsets->size(); ++p) {
      const int64_t begin = (*offsets)[p];
      const int64_t length = (*offsets)[p + 1] - begin;
      (void)sluice::ReadSegmentLayout(file + begin, length, "partition", begin);
    }
  }

  // The reader, verifying the checksum file when there is one.
  sluice::MapOutputFile source = sluice::MapOutputFile::Spark(names.data, start, end, algorithm);
  for (bool skip : {false, true}) {
    sluice::PartitionReaderOptions options;
    options.skip_failed_sources = skip;
    auto reader = sluice::PartitionReader::Open({source}, options);
    if (!reader.ok()) continue;
    for (int i = 0; i < kMaxBatches; ++i) {
      auto next = (*reader)->Next();
      if (!next.ok() || !next->has_value()) break;
      for (size_t c = 0; c < (*next)->num_columns(); ++c) {
        if (!sluice::ValidateArray((*next)->column(c), "fuzz").ok()) __builtin_trap();
      }
    }
  }
  return 0;
}
