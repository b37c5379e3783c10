// BatchProducer: the work of a PartitionReader, as a state machine that can stop anywhere.
//
// It walks the sources in order: a file source becomes blocks (pieces of whole partitions read
// by MapOutputFileReader), a memory source is one block, a queue yields the blocks pushed into
// it. Each partition of a block has its checksum verified (when there is one) and is decoded
// by the reader's one SegmentDecoder; the batches go through the coalescer into a queue of
// finished batches. Next() returns from that queue and otherwise advances the machine one step
// at a time, so it can return "not ready" whenever a queue has no block yet and resume later.
//
// A map output (a file source, a memory source or one pushed block) is the unit of failure. A
// failure either ends the stream, after every batch decoded before it has been returned, or,
// when failed sources are skipped, is recorded and that unit's batches (held back until the unit
// has decoded completely) are dropped.
//
// One thread drives a producer (the consumer's, or the read-ahead thread); only Interrupt() may
// be called from another.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/aligned_buffer_pool_internal.h"
#include "batch_coalescer_internal.h"
#include "batch_queue_internal.h"
#include "map_output_file_reader_internal.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/read/partition_reader_options.h"
#include "sluice/read/pushed_block_queue.h"

namespace sluice::internal {

class BatchProducer {
 public:
  enum class Outcome : uint8_t { kBatch, kNotReady, kEnd };

  /// Checks the options and the sources given in memory.
  static Result<std::unique_ptr<BatchProducer>> Make(std::vector<SegmentSource> sources,
                                                     const PartitionReaderOptions& options);

  /// Produces the next batch into `*out`. With `wait`, blocks on pushed queues and never
  /// returns kNotReady.
  Result<Outcome> Next(bool wait, RecordBatch* out);

  /// Advances until the schema is known (the options' or the first segment's), without
  /// decoding a batch. kEnd when there is no segment at all; kNotReady as Next().
  Result<Outcome> ReadSchema(bool wait);
  /// Returns the schema, null while unknown.
  const SchemaPtr& schema() const { return schema_; }

  /// Makes a Next() running on another thread return Cancelled soon (a waiting pop at once).
  /// Detaches the pushed queues: the reader is going away.
  void Interrupt();

  /// Returns this producer's work (every metric but the consumer's: batches, rows, waits).
  PartitionReaderMetrics metrics() const;
  const std::vector<SourceFailure>& failures() const { return failures_; }

 private:
  BatchProducer(std::vector<SegmentSource> sources, const PartitionReaderOptions& options);

  // One step: decode a batch, start or finish a segment, a block or a source. A failure of the
  // current unit is returned; `*not_ready` is set when a queue has nothing yet.
  Status Step(bool wait, bool* not_ready);
  // Every partition asked for is empty: takes the schema the map outputs' files start with.
  Status ReadSchemaOfFiles();
  // One step with failures handled (skipped, or turned into the end of the stream). Returns
  // false when nothing could be done because a queue has no block yet.
  bool Advance(bool wait);
  Status StepDecoding();
  Status StartNextSegment();
  Status TakeNextBlock(bool wait, bool* not_ready);
  // Begins the segment at `cursor` of the block: `size` bytes, or -1 when it ends at its
  // end-of-stream marker.
  Status BeginSegment(int64_t cursor, int64_t size, std::string segment_name);
  Status LearnSchemaMessage(const CompactSegmentDictionary& dictionary);
  Status VerifyChecksum(int64_t offset, int64_t length, int32_t partition);
  void SetBlock(SegmentBlock block);
  void StartUnit(std::string name, int64_t block_index);
  Status FinishUnit();
  void AbandonUnit();
  Status Deliver(RecordBatch&& batch);
  Status Emit(RecordBatch&& batch);
  Status FinishStream();

  PartitionReaderOptions options_;
  std::vector<SegmentSource> sources_;
  std::vector<std::shared_ptr<PushedBlockQueue>> queues_;
  SchemaPtr schema_;
  SegmentDecoder decoder_;
  std::shared_ptr<AlignedBufferPool> pool_;
  std::optional<BatchCoalescer> coalescer_;
  BatchQueue ready_;
  std::atomic<bool> interrupted_{false};

  // Where the walk is.
  size_t source_index_ = 0;
  std::unique_ptr<MapOutputFileReader> file_reader_;
  // The first map output file that holds any partition: where an empty range takes its schema.
  int64_t file_with_data_ = -1;
  int64_t pushed_blocks_taken_ = 0;  // of the current queue
  bool unit_active_ = false;
  std::string unit_name_;
  int64_t unit_block_index_ = 0;
  std::vector<RecordBatch> unit_batches_;  // held back while skipping failed sources

  std::optional<SegmentBlock> block_;
  size_t block_partition_ = 0;  // next entry of partition_lengths
  int64_t block_cursor_ = 0;    // byte of the block where the next segment starts
  int64_t block_streams_ = 0;   // segments begun in a block without partition lengths

  bool decoding_ = false;
  int64_t segment_size_ = -1;  // -1: ends at its end-of-stream marker
  std::string segment_name_;
  SchemaPtr checked_schema_;  // the last segment schema found equal to schema_ (kept alive)

  bool finished_ = false;
  Status final_status_;

  int64_t units_started_ = 0;
  int64_t checksum_nanos_ = 0;
  FileReadCounters file_counters_;
  std::vector<SourceFailure> failures_;
};

}  // namespace sluice::internal
