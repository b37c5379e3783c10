// PartitionReaderOptions, PartitionReaderMetrics and SourceFailure: how a PartitionReader is set
// up and what it reports (partition_reader.h), apart from the reader itself, which its parts
// (the batch producer, the read-ahead thread) need without depending on it.
#pragma once

#include <cstdint>

#include "sluice/base/status.h"
#include "sluice/format/schema.h"
#include "sluice/ipc/segment_decoder.h"

namespace sluice {

struct PartitionReaderOptions {
  /// The schema of the batches, when the host knows it (Spark does). Every segment's fields
  /// must equal it (metadata may differ). Null (the default): the schema of the first segment,
  /// which Open() then reads, waiting for the first pushed block if a queue comes first. When
  /// every requested partition is empty, it is the schema the map outputs' data files start
  /// with (one small read of the first file that has any partition); only when no map output
  /// has a row at all does the schema have no fields, so a host that knows it gives it here.
  SchemaPtr schema;

  /// Join consecutive small batches into batches of about target_batch_rows rows and
  /// target_batch_bytes bytes. Default true: a partition read from 200 map outputs arrives in
  /// blocks of a few dozen rows, and engines pay per batch. A batch of at least half either
  /// target passes through unchanged (joining could at most double it, and the copy would cost
  /// more than the per-batch work it saves); the batches before it are emitted first.
  bool coalesce = true;
  /// Rows per output batch at most when coalescing. 8192: the batch size engines use (Spark's
  /// columnar batch size, the writer's block size).
  int64_t target_batch_rows = 8192;
  /// Bytes per output batch at most when coalescing. 4 MiB, as the writer's blocks, so full
  /// blocks pass through and wide rows do not make huge batches.
  int64_t target_batch_bytes = int64_t{4} << 20;

  /// Batches a background thread keeps decoded ahead of the consumer; 0 (the default) reads on
  /// the consumer's thread. A reduce task runs on one of the executor's task slots, and a second
  /// busy thread per task takes cores Spark has counted for other tasks; turn it on when the
  /// consumer spends much of its time elsewhere. 2 to 4 hides a file read behind the work on the
  /// current batch.
  int32_t read_ahead_batches = 0;

  /// The largest single read of a file range, in bytes: a map output's range is read in pieces
  /// of whole partitions of at most this size (a larger partition is read whole, since a segment
  /// is decoded in place). 16 MiB: large enough that a read costs far more than its syscall,
  /// small enough to bound the memory one map output pins.
  int64_t max_read_bytes = int64_t{16} << 20;
  /// Bytes of read buffers kept for reuse, lent out or free (a buffer is free again once no
  /// batch points into it); reads beyond them get buffers that are freed after use. 32 MiB: two
  /// reads of max_read_bytes, or the many small buffers that a batch being coalesced pins (its
  /// inputs view their read buffers when stored uncompressed). (The decoder pools its own
  /// decompression arenas too, up to 8 MiB.)
  int64_t pooled_read_bytes = int64_t{32} << 20;

  /// The partition count every index file and offsets list must describe; -1 (the default)
  /// accepts any count that covers the requested range. Spark knows it (the shuffle's
  /// numPartitions); giving it turns an index of the wrong length into an error even when the
  /// range happens to fit.
  int32_t partition_count = -1;

  /// On a bad map output (unreadable, corrupt, wrong checksum, failed fetch): false (the
  /// default) stops the reader with the error, after the batches decoded before it; true
  /// records it in failed_sources(), drops every row of that map output and reads on. Skipping
  /// holds each map output's batches until the whole output has decoded, so a failure halfway
  /// through never leaves part of it in the result.
  bool skip_failed_sources = false;

  /// Check that every string (utf8, large_utf8, nested too) of every block is valid UTF-8: a
  /// block holding one that is not is Corrupt, naming the map output, partition, column, row and
  /// byte. Default false: string bytes come out as they went in, valid or not (see
  /// MapWriterOptions::validate_utf8).
  bool validate_utf8 = false;
  /// Limits of the decoder (the largest block it will decompress). `allow_trailing_bytes` is
  /// managed by the reader.
  SegmentDecoderOptions decoder;
};

/// What a reader has done since it was opened.
struct PartitionReaderMetrics {
  /// Map outputs read: files, memory blocks and pushed blocks.
  int64_t sources = 0;
  /// Map outputs skipped because they failed (see failed_sources()).
  int64_t failed_sources = 0;
  /// Bytes read from files, and the reads (preads) that read them, index and checksum files
  /// included.
  int64_t bytes_read = 0;
  int64_t file_reads = 0;
  /// Read buffers allocated; every other data read reused one from the pool.
  int64_t read_buffers = 0;
  /// Partition segments (IPC streams) and blocks (RecordBatch messages) decoded.
  int64_t segments = 0;
  int64_t blocks = 0;
  /// Schema messages parsed; every other segment found its schema in the cache.
  int64_t schemas_parsed = 0;
  /// Batches and rows handed to the consumer.
  int64_t batches = 0;
  int64_t rows = 0;
  /// Output batches joined from two or more decoded batches, and the decoded batches that went
  /// into them.
  int64_t coalesced_batches = 0;
  int64_t coalesced_inputs = 0;
  /// Bytes produced by decompression.
  int64_t decompressed_bytes = 0;
  /// Time spent reading files, verifying checksums, decompressing and joining batches.
  int64_t read_nanos = 0;
  int64_t checksum_nanos = 0;
  int64_t decompress_nanos = 0;
  int64_t coalesce_nanos = 0;
  /// Time the consumer waited for the read-ahead thread (0 without read-ahead).
  int64_t wait_nanos = 0;
  /// The memory the reader keeps for reuse when the metrics were taken: its read buffers and
  /// decompression arenas, lent to batches or free. Blocks a host pushed are the host's.
  int64_t pooled_bytes = 0;
};

/// A map output the reader skipped (skip_failed_sources).
struct SourceFailure {
  /// Its position in the source list, and for a pushed block its position in its queue.
  int64_t source_index = 0;
  int64_t block_index = 0;
  Status status;
};

}  // namespace sluice
