#include "sluice/read/segment_source.h"

#include "sluice/io/map_output_layout.h"
#include "sluice/io/spark_shuffle_files.h"

namespace sluice {

MapOutputFile MapOutputFile::Spark(std::string data_path, int32_t start_partition,
                                   int32_t end_partition, ChecksumAlgorithm checksum) {
  const SparkShuffleFileNames names = SparkShuffleFileNames::ForDataFile(data_path);
  MapOutputFile file;
  file.data_path = std::move(data_path);
  file.index_path = names.index;
  file.start_partition = start_partition;
  file.end_partition = end_partition;
  file.checksum_algorithm = checksum;
  file.checksum_path = names.Checksum(checksum);
  return file;
}

MapOutputFile MapOutputFile::FromMapOutput(const MapOutputLayout& output, int32_t start_partition,
                                           int32_t end_partition) {
  MapOutputFile file;
  file.data_path = output.data_path;
  file.offsets = output.offsets;
  file.start_partition = start_partition;
  file.end_partition = end_partition;
  if (!output.checksums.empty()) {
    file.checksum_algorithm = output.checksum_algorithm;
    file.checksums = output.checksums;
  }
  return file;
}

Result<SegmentBlock> SegmentBlock::FromDataFile(const uint8_t* data, int64_t size,
                                                MemoryOwner owner,
                                                const std::vector<int64_t>& offsets,
                                                int32_t start_partition, int32_t end_partition) {
  const int64_t partitions = static_cast<int64_t>(offsets.size()) - 1;
  if (start_partition < 0 || end_partition <= start_partition || end_partition > partitions) {
    return Status::Invalid("partitions [", start_partition, ", ", end_partition,
                           ") are not a range of the ", partitions, " partitions the offsets give");
  }
  for (int32_t p = start_partition; p <= end_partition; ++p) {
    if (offsets[p] < 0 || offsets[p] > size ||
        (p > start_partition && offsets[p] < offsets[p - 1])) {
      return Status::Invalid("offset of partition ", p, " (", offsets[p],
                             ") is negative, decreasing or past the ", size, " bytes given");
    }
  }
  SegmentBlock block;
  block.data = data + offsets[start_partition];
  block.size = offsets[end_partition] - offsets[start_partition];
  block.owner = std::move(owner);
  block.start_partition = start_partition;
  block.end_partition = end_partition;
  block.base_offset = offsets[start_partition];
  for (int32_t p = start_partition; p < end_partition; ++p) {
    block.partition_lengths.push_back(offsets[p + 1] - offsets[p]);
  }
  return block;
}

}  // namespace sluice
