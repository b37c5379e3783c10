// MapWriter: the map side of a shuffle. Arrow batches in; one committed data file out, with the
// partition offsets returned in memory and, when asked, Spark's index and checksum files.
//
// How the work stays proportional to bytes, not partitions:
// - Write() computes partition ids column by column and keeps the batch by reference (its memory
//   is charged to the MemoryBudget); it never touches per-partition state.
// - When memory runs out (a spill) or at Finish(), one counting sort of all held rows groups them
//   by partition, and each partition's rows are gathered once, straight into the encode buffer,
//   in blocks of the target size, by one SegmentEncoder (one codec context, schema encoded once).
// - A spill is one file holding every partition in order, with (offset, length, checksum) per
//   partition kept in memory. The final file is written partition by partition: the schema
//   message, the partition's pieces of each spill (copy_file_range for large pieces, a
//   sequential read buffer for small ones), its remaining rows, the end-of-stream marker.
//   Checksums of pieces are combined, never recomputed.
// - The file is written in large sequential writes; offsets are counted, not asked of the file
//   system. Commit is atomic (temporary names, then rename); a failed or aborted task leaves
//   nothing behind, and a committed output is never overwritten.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/codec/checksum.h"
#include "sluice/format/record_batch.h"
#include "sluice/io/map_output_layout.h"
#include "sluice/io/output_file.h"
#include "sluice/ipc/segment_encoder.h"
#include "sluice/memory/memory_budget.h"
#include "sluice/partition/partitioner.h"
#include "sluice/write/map_output_files.h"

namespace sluice {

struct MapWriterOptions {
  /// The schema of every batch. Required.
  SchemaPtr schema;
  /// How rows are assigned to partitions, and how many partitions there are. Kind "given" with
  /// no key column means the ids come with each batch: Write(batch, ids).
  PartitionerOptions partitioning;
  /// Codec and level of the segments. Default none.
  SegmentEncoderOptions encoding;
  /// Rows per block at most. 8192: the batch size engines use, large enough to amortise
  /// per-block framing, small enough to decode into cache-sized batches.
  int64_t target_block_rows = 8192;
  /// Uncompressed bytes per block at most (estimated from the input's average row size).
  /// 4 MiB keeps wide rows from making huge blocks.
  int64_t target_block_bytes = int64_t{4} << 20;
  /// A partition whose rows take at most this many bytes uncompressed is written as one compact
  /// segment (sluice/ipc/compact_segment.h: one LZ4 or zstd frame around a plain Arrow IPC
  /// stream, which readers other than Sluice's open after one decompression) instead of an
  /// IPC stream with every buffer compressed on its own. At high partition counts most
  /// partitions are that small, and the per-buffer framing, the repeated schema and metadata,
  /// and a block per spill cost more than the data. 64 KiB; 0 turns it off (every segment is
  /// an Arrow IPC stream any reader opens as it is). Ignored without a codec.
  int64_t compact_segment_bytes = int64_t{64} << 10;
  /// Whether compact segments after the data file's first are compressed against the Schema
  /// message the first holds (sluice/ipc/compact_segment.h): about 600 fewer bytes per small
  /// partition. A reader other than Sluice's then decompresses with the codec's dictionary
  /// option (`lz4 -d -D`, `zstd -d -D`, given the data file's first segment decompressed), and a
  /// Sluice reader of fetched blocks is given the schema. On by default.
  bool compact_schema_dictionary = true;
  /// Whether every reader of the map output is given its schema (the Spark plugin's are): then
  /// the data file's first compact segment refers to the Schema message too instead of holding
  /// it (with compact_schema_dictionary), which is most of a small map output's bytes, and the
  /// data file alone cannot be read without the schema (`sluice read --schema`). Off by default.
  bool readers_have_schema = false;
  /// Write dictionary-encoded columns as the values their indices select instead of keeping
  /// them encoded. Default false: each block is preceded by a DictionaryBatch message of the
  /// values its rows use, which a block of few rows of a large dictionary makes much smaller.
  bool unpack_dictionaries = false;
  /// Where buffered data is charged. Null means a private FixedMemoryBudget of `memory_limit`.
  std::shared_ptr<MemoryBudget> memory_budget;
  /// The private budget's size when `memory_budget` is null; -1 means unlimited.
  /// Default 256 MiB.
  int64_t memory_limit = int64_t{256} << 20;
  /// Held input at which the writer spills even when the budget has room. Gathering a block's
  /// rows from a large hold misses the caches and the TLB on most values, so holding less is
  /// faster, at the price of smaller blocks, which compress less (DEVELOPING.md, "Figures behind
  /// the constants"). kAutoMaxHeldBytes (the default): 64 MiB, or 64 KiB per partition when that
  /// is more, so that blocks stay large at high partition counts. 0: no limit but the budget.
  int64_t max_held_bytes = kAutoMaxHeldBytes;
  static constexpr int64_t kAutoMaxHeldBytes = -1;
  /// Directories for spill files, used in turn. Empty means the data file's directory.
  std::vector<std::string> spill_directories;
  /// Checksum of each partition's bytes. ADLER32 is Spark's default
  /// (spark.shuffle.checksum.algorithm).
  ChecksumAlgorithm checksum = ChecksumAlgorithm::kAdler32;
  /// The data file to commit. Required. Must not exist unless `overwrite`.
  std::string data_path;
  /// Also write Spark's .index and .checksum.<ALGO> files. Default false: hosts that take the
  /// offsets in memory (MapOutput) need no index file.
  bool write_spark_files = false;
  /// Paths of those files; empty means derived from data_path (".data" becomes ".index" and
  /// ".checksum.<ALGO>").
  std::string index_path;
  std::string checksum_path;
  /// Replace existing output files. Default false: a committed output is never lost.
  bool overwrite = false;
  /// Write data_path itself instead of a temporary file renamed to it at Finish(), for a host
  /// that gives the writer a private temporary path and commits it itself (Spark's
  /// IndexShuffleBlockResolver renames the file it named): the writer creates data_path (which
  /// must not exist), leaves it in place at Finish() and removes it when the task fails. Saves
  /// a second file name and a rename per map task. Not with write_spark_files or overwrite.
  bool write_in_place = false;
  /// fsync files and their directory before and after the rename. Default false, as Spark.
  bool sync = false;
  /// Write buffering of the data and spill files.
  OutputFileOptions file;
  /// Background threads that encode (gather and compress) blocks beside the caller's thread:
  /// 0 or 1. Default 0: everything runs on the caller's thread. 1 trades a second core for wall
  /// time (the output is byte for byte the same), so it is for hosts with idle cores; a host
  /// that runs one task per core (Spark) keeps it off. Ignored without a codec. Blocks go to
  /// the thread in jobs of about 128 KiB of held rows (one block when blocks are larger), two
  /// jobs in flight; both threads claim a job's blocks and encode each whole. The two jobs'
  /// compressed messages and a second encoder (its codec context and the gathered bytes of one
  /// block) are the added scratch, fixed for the task (at most about 2 x (128 KiB +
  /// target_block_bytes) plus one block and the context) and, like the encoder's own scratch,
  /// outside the memory budget.
  int32_t compression_threads = 0;
  /// Check that every string (utf8, large_utf8, nested too) is valid UTF-8, refusing a batch
  /// that holds one that is not, naming the column, the row and the byte. Default false: a
  /// shuffle carries string bytes unchanged, valid or not, as Arrow IPC does (and as Spark does
  /// with UTF8String); the bytes out are the bytes in. The reader can check too
  /// (PartitionReaderOptions::validate_utf8). For the row writer: checked as rows are converted.
  bool validate_utf8 = false;
  /// Count the rows of each partition (MapOutput::partition_rows): 8 bytes per partition, for a
  /// host that reports them (the CLI's summary). Default false.
  bool count_partition_rows = false;
};

struct MapWriterMetrics {
  int64_t rows = 0;
  int64_t batches = 0;
  /// Bytes of the input buffers held (what was charged to the budget for data).
  int64_t input_bytes = 0;
  /// Bytes of the committed data file.
  int64_t output_bytes = 0;
  /// RecordBatch messages written, spills included.
  int64_t blocks = 0;
  int64_t spills = 0;
  int64_t spill_bytes = 0;
  /// What the writer keeps per partition whatever the data (the sort's partition starts, the
  /// output's offsets, lengths and checksums, the Spark files as they are written): fixed
  /// scratch up to 64 MiB (a million partitions), charged to the budget when the writer is made
  /// above that (a writer the budget cannot grant it to is not made).
  int64_t partition_state_bytes = 0;
  /// The most the writer held charged to the budget at once (partition state included when it
  /// was charged).
  int64_t peak_reserved_bytes = 0;
  int64_t partition_nanos = 0;
  int64_t gather_nanos = 0;
  int64_t compress_nanos = 0;
  int64_t write_nanos = 0;
  int64_t total_nanos = 0;
};

/// What a finished map task produced: where its partitions lie (MapOutputLayout, which the
/// readers take), and what the writer counted.
struct MapOutput : MapOutputLayout {
  /// P row counts, when MapWriterOptions::count_partition_rows asked for them; empty otherwise.
  std::vector<int64_t> partition_rows;
  MapWriterMetrics metrics;
};

/// The files part of a writer's options: paths (Spark's names derived from the data file when
/// asked), spill directories (the data file's directory when none), checksum, commit.
MapOutputFilesOptions OutputFilesOptionsFor(const MapWriterOptions& options);

class MapWriter {
 public:
  /// Checks the options, makes the partitioner and encoder, and creates the data file under a
  /// temporary name.
  static Result<std::unique_ptr<MapWriter>> Make(MapWriterOptions options);
  /// Aborts unless Finish() succeeded.
  ~MapWriter();
  MapWriter(const MapWriter&) = delete;
  MapWriter& operator=(const MapWriter&) = delete;

  /// Partitions `batch` and keeps it (by reference) until the next spill or Finish(). Spills
  /// first when the budget cannot take it. After an error the writer is aborted.
  Status Write(const RecordBatch& batch);
  /// Like Write, with the partition of each row given by the caller (num_rows ids, each below
  /// the partition count) instead of computed by the partitioner.
  Status Write(const RecordBatch& batch, const uint32_t* partition_ids);
  /// Writes everything held to a new spill file and releases its memory (the host calls this
  /// when it needs memory back). A no-op when nothing is held.
  Status Spill();
  /// Writes the data file, the Spark files when asked, and commits them.
  Result<MapOutput> Finish();
  /// Removes every file this task made and releases its memory. Idempotent.
  void Abort();

  int32_t partition_count() const;
  /// Bytes charged to the budget for held data now.
  int64_t held_bytes() const;
  const MapWriterMetrics& metrics() const;

 private:
  class Impl;
  explicit MapWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice
