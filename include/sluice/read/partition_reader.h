// PartitionReader: the reduce side of a shuffle. Many map outputs in, right-sized Arrow batches
// out.
//
// A reduce task reads one partition, or a range of partitions, from every map output of a
// shuffle: thousands of small Arrow IPC streams. The reader turns them into the batches a
// query engine wants, in map order (all rows of source 0, then source 1, ...; within a source,
// partition by partition), and keeps the cost proportional to bytes:
// - one SegmentDecoder for the whole reader: one decompression context per codec, the schema
//   parsed once per distinct schema bytes, each compressed buffer decompressed once straight
//   into its final memory, every other buffer used in place;
// - file ranges are read with one large pread per map output (or per max_read_bytes of whole
//   partitions) into 64-byte aligned buffers from a small pool; a buffer goes back to the pool
//   when no batch points into it any more (the batches hold it through their owners);
// - small consecutive batches, also across map outputs and partitions, are joined into one
//   (BatchConcatenator) up to a target row count and size; a batch that is already large
//   enough passes through without a copy;
// - optionally a background thread reads and decodes ahead while the consumer works.
// Batches leave through Next() (also as a range-for), TryNext() for hosts that must not block,
// and the Arrow C Stream Interface (ExportRecordBatchReader in sluice/format/c_data.h).
//
// Every byte is untrusted. A truncated or bit-flipped data file, an index that is short, points
// past the end of the file or decreases, a checksum that does not match: each is an error naming
// the map output, the partition and the byte offset. With skip_failed_sources the reader instead
// records the failure, drops that map output's rows, and reads the rest unaffected.
#pragma once

#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/format/record_batch_reader.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/read/partition_reader_options.h"
#include "sluice/read/segment_source.h"

namespace sluice {

class PartitionReader final : public RecordBatchReader {
 public:
  /// Opens a reader over `sources`, read in order. Checks the options and sources; without a
  /// schema in the options, reads up to the first segment's schema (see
  /// PartitionReaderOptions::schema). Starts the read-ahead thread when asked.
  static Result<std::unique_ptr<PartitionReader>> Open(std::vector<SegmentSource> sources,
                                                       PartitionReaderOptions options = {});
  /// Stops the read-ahead thread (mid-read if need be) and detaches pushed queues.
  ~PartitionReader() override;
  PartitionReader(const PartitionReader&) = delete;
  PartitionReader& operator=(const PartitionReader&) = delete;

  const SchemaPtr& schema() const override;
  /// Returns the next batch, waiting for pushed blocks or the read-ahead thread when needed;
  /// std::nullopt at the end. After an error or the end, returns the same again.
  Result<std::optional<RecordBatch>> Next() override;

  enum class Poll : uint8_t { kBatch, kNotReady, kEnd };
  /// Like Next() without waiting: kBatch with `*out` set, kEnd, or kNotReady when the next
  /// batch needs a block not pushed yet (or, with read-ahead, not decoded yet). The batch
  /// `*out` holds on the call is handed back: the consumer is done with it, and the reader
  /// builds later batches in its vectors and memory while they are still in the cache (on
  /// kNotReady and kEnd `*out` may be left empty).
  Result<Poll> TryNext(RecordBatch* out);

  /// Returns the metrics so far. Thread-safe with the read-ahead thread; call it from the
  /// consumer's thread.
  PartitionReaderMetrics metrics() const;
  /// Returns the map outputs skipped so far, in the order they failed.
  std::vector<SourceFailure> failed_sources() const;

  /// Walks the batches with range-for: each element is a Result<RecordBatch>; an error is the
  /// last element.
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Result<RecordBatch>;
    using difference_type = std::ptrdiff_t;
    using pointer = value_type*;
    using reference = value_type&;

    Iterator() = default;
    reference operator*() { return *current_; }
    pointer operator->() { return &*current_; }
    Iterator& operator++();
    bool operator==(const Iterator& other) const { return reader_ == other.reader_; }

   private:
    friend class PartitionReader;
    explicit Iterator(PartitionReader* reader) : reader_(reader) { ++*this; }

    PartitionReader* reader_ = nullptr;
    std::optional<Result<RecordBatch>> current_;
  };
  Iterator begin() { return Iterator(this); }
  Iterator end() { return Iterator(); }

 private:
  class Impl;
  explicit PartitionReader(std::unique_ptr<Impl> impl);
  static Result<std::unique_ptr<PartitionReader>> OpenGuarded(
      std::vector<SegmentSource> sources, const PartitionReaderOptions& options);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice
