// MapOutputFiles: the files of one map task, whoever produces the rows.
//
// Both map-side writers (the columnar MapWriter and the row-based RowMapWriter) hand their
// encoded blocks here, partition by partition; this class owns everything about files:
// - a spill is one new file with every partition in order; (offset, length, checksum) per
//   partition that has rows stays in memory (nothing for the others, so it follows the data);
// - the final data file is assembled partition by partition: the schema message, the
//   partition's piece of each spill (copy_file_range for large pieces, one sequential read
//   buffer per spill for small ones), the writer's remaining blocks, the end-of-stream marker;
//   piece checksums are combined, never recomputed;
// - with compaction enabled (EnableCompaction), a partition small enough is written as one
//   compact segment (sluice/ipc/compact_segment.h): its pieces in the spills are plain
//   RecordBatch messages, merged at the end with its held rows into one batch and one frame;
//   a partition that turns out larger gets its plain pieces compressed as blocks instead;
// - the data file (and Spark's index and checksum files when asked) are written under temporary
//   names and renamed into place; Abort() or destruction before commit removes everything.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/codec/checksum.h"
#include "sluice/io/input_file.h"
#include "sluice/io/map_output_layout.h"
#include "sluice/io/output_file.h"
#include "sluice/ipc/compact_segment_encoder.h"

namespace sluice {

/// Where a map task's files go and how they are committed.
struct MapOutputFilesOptions {
  std::string data_path;
  /// Empty: no Spark index / checksum file.
  std::string index_path;
  std::string checksum_path;
  std::vector<std::string> spill_directories;  // at least one
  ChecksumAlgorithm checksum = ChecksumAlgorithm::kAdler32;
  bool overwrite = false;
  /// Write data_path itself, not a temporary file renamed to it (MapWriterOptions::write_in_place).
  bool write_in_place = false;
  bool sync = false;
  OutputFileOptions file;
};

/// Time and bytes spent on files.
struct MapOutputFilesMetrics {
  int64_t spills = 0;
  int64_t spill_bytes = 0;
  int64_t output_bytes = 0;
  /// Time in writes and copies of file bytes.
  int64_t write_nanos = 0;
  /// Time inside Spill() and Finish(), the writers' encoding included: a writer's gathering is
  /// this minus write_nanos minus its codec time, measured once per flush, not per block.
  int64_t flush_nanos = 0;
};

class MapOutputFiles {
 public:
  /// Appends partition `p`'s blocks to `file`, updating `checksum` with the bytes it appends.
  using EncodePartition =
      std::function<Status(int32_t partition, OutputFile* file, Checksum* checksum)>;
  /// Returns whether the writer holds rows of partition `p`.
  using HasRows = std::function<bool(int32_t partition)>;

  /// What compaction asks of the writer about its held rows of a partition.
  struct PlainRows {
    /// The bytes partition p's held rows take as a plain RecordBatch body (an estimate).
    std::function<int64_t(int32_t partition)> estimated_bytes;
    /// Appends partition p's held rows to `out` as one plain RecordBatch message (the compact
    /// encoder's plain encoder's).
    std::function<Status(int32_t partition, AlignedBuffer* out)> encode;
  };

  /// Checks the paths (a committed output is never overwritten unless asked) and creates the
  /// data file under a temporary name. `schema_message` starts every non-empty partition.
  static Result<std::unique_ptr<MapOutputFiles>> Create(MapOutputFilesOptions options,
                                                        int32_t partition_count,
                                                        std::span<const uint8_t> schema_message);
  ~MapOutputFiles();

  int32_t partition_count() const { return partition_count_; }
  ChecksumAlgorithm checksum() const { return options_.checksum; }

  /// Which compact segments refer to the Schema message (compressed against it) instead of
  /// holding it: none, all but the data file's first (which holds it), or all (every reader is
  /// given the schema, and derives the given-schema dictionary from it:
  /// CompactSegmentSchema::kGiven).
  enum class SchemaReferences : uint8_t { kNone, kAfterFirst, kAll };
  /// The references the writer options ask for (MapWriterOptions' compact_schema_dictionary
  /// and readers_have_schema).
  static SchemaReferences SchemaReferencesFor(bool compact_schema_dictionary,
                                              bool readers_have_schema) {
    if (!compact_schema_dictionary) return SchemaReferences::kNone;
    return readers_have_schema ? SchemaReferences::kAll : SchemaReferences::kAfterFirst;
  }

  /// Writes partitions whose plain rows (held and spilled) are at most `max_bytes` as compact
  /// segments made by `encoder` (which must outlive this object).
  void EnableCompaction(CompactSegmentEncoder* encoder, int64_t max_bytes,
                        SchemaReferences schema_references, PlainRows plain_rows);

  /// Returns whether partition p's held rows are written plain (PlainRows::encode) rather than
  /// by `encode`: at a spill, when they are small enough; at Finish, when the whole partition
  /// (its spilled pieces too) is written as one compact segment.
  bool WritesHeldRowsPlain(int32_t partition) const;

  /// Writes one spill file: for each partition that has rows, its blocks.
  Status Spill(const HasRows& has_rows, const EncodePartition& encode);

  /// Writes the data file from the spills and the rows still held, then commits. Fills the
  /// offsets, lengths, checksums and paths of `output`.
  Status Finish(const HasRows& has_rows, const EncodePartition& encode, MapOutputLayout* output);

  /// Removes every file made so far (committed ones too if the commit did not complete).
  void Abort();

  /// Flushes `file` when its pending bytes reached the flush size, counting the time.
  Status FlushIfFull(OutputFile* file);

  const MapOutputFilesMetrics& metrics() const { return metrics_; }

 private:
  struct SpillPiece;
  struct SpillRecord;
  struct PartitionPiece;
  Status WritePartition(int32_t partition, bool held, std::span<const PartitionPiece> pieces,
                        const EncodePartition& encode, Checksum* checksum);
  const SpillPiece* FindPiece(const SpillRecord& spill, int32_t partition) const;
  Status WriteCompactPartition(int32_t partition, bool held, std::span<const PartitionPiece> pieces,
                               Checksum* checksum);
  Result<std::span<const uint8_t>> ReadPiece(const PartitionPiece& piece);
  // Records the end of `partition`, the last written before `next`, now that its bytes (the
  // padding after its segment too) are in the data file: its length, its checksum, and the
  // offsets of the partitions up to `next`.
  void EndPartition(int32_t partition, int32_t next, const Checksum& checksum,
                    MapOutputLayout* output) const;
  void ReleaseIfLast(const PartitionPiece& piece);
  MapOutputFiles(MapOutputFilesOptions options, int32_t partition_count,
                 std::span<const uint8_t> schema_message);
  Status TimedFlush(OutputFile* file);
  Status WriteSpill(const HasRows& has_rows, const EncodePartition& encode);
  Status WriteDataFile(const HasRows& has_rows, const EncodePartition& encode,
                       MapOutputLayout* output);
  Status Commit(const MapOutputLayout& output);
  std::vector<std::string> ReplacedSiblings() const;
  Status RemoveReplacedSiblings(const std::vector<std::string>& siblings);

  MapOutputFilesOptions options_;
  int32_t partition_count_;
  std::vector<uint8_t> schema_message_;
  uint32_t schema_checksum_ = 0;
  uint32_t end_of_stream_checksum_ = 0;
  std::unique_ptr<OutputFile> data_file_;
  std::vector<SpillRecord> spills_;
  // Compaction, when enabled.
  CompactSegmentEncoder* compact_encoder_ = nullptr;
  SchemaReferences schema_references_ = SchemaReferences::kNone;
  int64_t compact_max_bytes_ = 0;
  PlainRows plain_rows_;
  AlignedBuffer held_plain_;  // a compact partition's held rows, as one plain message
  bool assembling_ = false;   // the data file is being written (Finish)
  std::vector<std::span<const uint8_t>> compact_messages_;
  // While the data file is written: one sequential reader per spill.
  std::vector<SequentialFileReader> spill_readers_;
  std::vector<std::string> temporary_paths_;
  // Files renamed into place so far (options_ members), removed if the commit fails midway.
  std::vector<const std::string*> committed_paths_;
  bool committed_ = false;
  bool aborted_ = false;
  MapOutputFilesMetrics metrics_;
};

}  // namespace sluice
