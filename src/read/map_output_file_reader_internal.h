// MapOutputFileReader: finds partitions [start, end) of one map output's data file and reads
// them, in large reads, into pooled buffers.
//
// The range is located through Spark's .index file or the offsets the writer returned. Only the
// index entries the range needs are read (plus the last one, which must equal the data file's
// size), so the cost per map output does not grow with the partition count; those entries are
// checked (whole 8-byte entries, a count that covers the range, offsets that never decrease and
// stay inside the file) before any data byte is read. The data is then read with one pread per
// piece of whole partitions of at most max_read_bytes, never per block. A range that holds no
// bytes opens no data file at all.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/aligned_buffer_pool_internal.h"
#include "sluice/base/result.h"
#include "sluice/io/input_file.h"
#include "sluice/read/segment_source.h"

namespace sluice::internal {

/// File reading work, added to the reader's metrics.
struct FileReadCounters {
  int64_t bytes_read = 0;
  int64_t file_reads = 0;
  int64_t read_nanos = 0;
};

class MapOutputFileReader {
 public:
  /// Resolves `file`'s partition range and loads its checksums. `name` prefixes every error;
  /// `partition_count` (-1: any) is the count the index or offsets must describe.
  static Result<std::unique_ptr<MapOutputFileReader>> Open(const MapOutputFile& file,
                                                           std::string name,
                                                           int32_t partition_count,
                                                           FileReadCounters* counters);

  /// Reads the next piece of the range: whole partitions of at most `max_read_bytes` bytes
  /// together (a larger partition alone), as a block over a buffer from `pool`. Returns
  /// std::nullopt after the last piece.
  Result<std::optional<SegmentBlock>> ReadNext(AlignedBufferPool* pool, int64_t max_read_bytes,
                                               FileReadCounters* counters);

  /// Reads the Schema message the map output's segments start with: its data file's first
  /// bytes, whatever the range (a non-empty data file starts with its first non-empty
  /// partition). A block of just that message, or std::nullopt when every partition of the
  /// map output is empty. For a reader whose range holds no rows: it returns the map outputs'
  /// schema, not one without columns.
  Result<std::optional<SegmentBlock>> ReadSchemaMessage(FileReadCounters* counters);

 private:
  Result<std::optional<SegmentBlock>> ReadCompactSegmentAtStart(FileReadCounters* counters);
  static constexpr int64_t kFirstCompactChunkBytes = int64_t{64} << 10;

 public:
  /// The bytes of the whole data file, as the index or offsets say.
  int64_t data_size() const { return last_offset_; }

 private:
  MapOutputFileReader() = default;
  Status LoadOffsets(const MapOutputFile& file, int32_t partition_count,
                     FileReadCounters* counters);
  Status LoadChecksums(const MapOutputFile& file, FileReadCounters* counters);
  Status OpenDataFile();

  std::string name_;
  std::string data_path_;
  std::unique_ptr<InputFile> data_;
  int32_t start_partition_ = 0;
  int32_t end_partition_ = 0;
  /// The partitions in the map output, as its index or offsets say.
  int64_t partition_count_ = 0;
  /// Where the map output's data ends, as its index or offsets say.
  int64_t last_offset_ = 0;
  /// Offsets of partitions start..end (end - start + 1 entries).
  std::vector<int64_t> offsets_;
  ChecksumAlgorithm checksum_algorithm_ = ChecksumAlgorithm::kNone;
  /// Checksums of partitions start..end - 1, when verified.
  std::vector<uint32_t> checksums_;
  int32_t next_partition_ = 0;
};

}  // namespace sluice::internal
