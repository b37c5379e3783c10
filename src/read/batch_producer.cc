#include <chrono>

#include "batch_producer_internal.h"
#include "sluice/format/array_validate.h"

namespace sluice::internal {

namespace {

using Clock = std::chrono::steady_clock;

int64_t NanosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

// Checks what a block given in memory (or pushed) says about itself.
Status CheckBlock(const SegmentBlock& block, const std::string& name) {
  if (block.size < 0 || (block.size > 0 && block.data == nullptr)) {
    return Status::Invalid(name, ": a block of ", block.size, " bytes without valid data");
  }
  if (block.start_partition < 0 || block.end_partition <= block.start_partition) {
    return Status::Invalid(name, ": partition range [", block.start_partition, ", ",
                           block.end_partition, ") is empty or negative");
  }
  const int64_t partitions = int64_t{block.end_partition} - block.start_partition;
  if (!block.partition_lengths.empty()) {
    if (static_cast<int64_t>(block.partition_lengths.size()) != partitions) {
      return Status::Invalid(name, ": ", block.partition_lengths.size(),
                             " partition lengths for partitions [", block.start_partition, ", ",
                             block.end_partition, ")");
    }
    int64_t total = 0;
    for (size_t i = 0; i < block.partition_lengths.size(); ++i) {
      const int64_t length = block.partition_lengths[i];
      if (length < 0 || length > block.size - total) {
        return Status::Corrupt(name, " partition ", block.start_partition + int64_t(i), ": byte ",
                               block.base_offset + total, ": a length of ", length,
                               " bytes does not fit the block's ", block.size, " bytes");
      }
      total += length;
    }
    if (total != block.size) {
      return Status::Corrupt(name, ": byte ", block.base_offset + total,
                             ": the partition lengths add up to ", total, " bytes, the block has ",
                             block.size);
    }
  }
  if (block.checksum_algorithm != ChecksumAlgorithm::kNone) {
    if (block.partition_lengths.empty()) {
      return Status::Invalid(name, ": checksums need the partition lengths");
    }
    if (static_cast<int64_t>(block.checksums.size()) != partitions) {
      return Status::Invalid(name, ": ", block.checksums.size(), " checksums for ", partitions,
                             " partitions");
    }
  }
  return Status::OK();
}

SegmentDecoderOptions DecoderOptions(const PartitionReaderOptions& options) {
  SegmentDecoderOptions decoder = options.decoder;
  // Blocks without partition lengths hold streams back to back; the reader checks known bounds.
  decoder.allow_trailing_bytes = true;
  return decoder;
}

}  // namespace

Result<std::unique_ptr<BatchProducer>> BatchProducer::Make(std::vector<SegmentSource> sources,
                                                           const PartitionReaderOptions& options) {
  if (options.target_batch_rows <= 0 || options.target_batch_bytes <= 0) {
    return Status::Invalid("PartitionReaderOptions: target_batch_rows (", options.target_batch_rows,
                           ") and target_batch_bytes (", options.target_batch_bytes,
                           ") must be positive");
  }
  if (options.read_ahead_batches < 0 || options.pooled_read_bytes < 0) {
    return Status::Invalid("PartitionReaderOptions: read_ahead_batches (",
                           options.read_ahead_batches, ") and pooled_read_bytes (",
                           options.pooled_read_bytes, ") must not be negative");
  }
  if (options.max_read_bytes <= 0) {
    return Status::Invalid("PartitionReaderOptions: max_read_bytes (", options.max_read_bytes,
                           ") must be positive");
  }
  if (options.partition_count == 0 || options.partition_count < -1) {
    return Status::Invalid("PartitionReaderOptions: partition_count (", options.partition_count,
                           ") must be positive, or -1 for any");
  }
  for (size_t i = 0; i < sources.size(); ++i) {
    if (const auto* block = std::get_if<SegmentBlock>(&sources[i])) {
      SLUICE_RETURN_NOT_OK(CheckBlock(
          *block, block->name.empty() ? "map output " + std::to_string(i) : block->name));
    } else if (const auto* queue = std::get_if<std::shared_ptr<PushedBlockQueue>>(&sources[i])) {
      if (*queue == nullptr) return Status::Invalid("source ", i, " is a null queue");
    }
  }
  return std::unique_ptr<BatchProducer>(new BatchProducer(std::move(sources), options));
}

BatchProducer::BatchProducer(std::vector<SegmentSource> sources,
                             const PartitionReaderOptions& options)
    : options_(options),
      sources_(std::move(sources)),
      schema_(options.schema),
      decoder_(DecoderOptions(options)),
      pool_(AlignedBufferPool::Make(options.pooled_read_bytes)) {
  if (options_.coalesce)
    coalescer_.emplace(options_.target_batch_rows, options_.target_batch_bytes);
  for (const SegmentSource& source : sources_) {
    if (const auto* queue = std::get_if<std::shared_ptr<PushedBlockQueue>>(&source)) {
      queues_.push_back(*queue);
    }
  }
}

Result<BatchProducer::Outcome> BatchProducer::Next(bool wait, RecordBatch* out) {
  // The batch `out` still holds is one the consumer is done with: its vectors go back to the
  // decoder and its arena to the pool before the next block is decoded, which then reuses them
  // while they are still in the cache (on this thread only: with read-ahead, `out` is the
  // thread's own, always empty here).
  if (out->num_columns() > 0) decoder_.RecycleStorage(RecordBatch::TakeStorage(std::move(*out)));
  while (true) {
    if (!ready_.empty()) {
      *out = std::move(ready_.front());
      ready_.pop_front();
      return Outcome::kBatch;
    }
    if (finished_) {
      if (!final_status_.ok()) return final_status_;
      return Outcome::kEnd;
    }
    if (!Advance(wait)) return Outcome::kNotReady;
  }
}

Result<BatchProducer::Outcome> BatchProducer::ReadSchema(bool wait) {
  while (schema_ == nullptr) {
    if (finished_) {
      if (!final_status_.ok()) return final_status_;
      SLUICE_RETURN_NOT_OK(ReadSchemaOfFiles());
      return schema_ == nullptr ? Outcome::kEnd : Outcome::kBatch;
    }
    if (!Advance(wait)) return Outcome::kNotReady;
  }
  return Outcome::kBatch;
}

// Every requested partition was empty and no schema was given: the schema is that of the map
// outputs themselves, read from the first data file that holds any partition at all (its
// index was read already: when no file holds one, nothing more is read).
Status BatchProducer::ReadSchemaOfFiles() {
  if (file_with_data_ < 0) return Status::OK();
  const auto& file = std::get<MapOutputFile>(sources_[static_cast<size_t>(file_with_data_)]);
  const std::string name = file.name.empty() ? "map output " + std::to_string(file_with_data_) +
                                                   " (" + file.data_path + ")"
                                             : file.name;
  SLUICE_ASSIGN_OR_RAISE(auto reader, MapOutputFileReader::Open(
                                          file, name, options_.partition_count, &file_counters_));
  SLUICE_ASSIGN_OR_RAISE(std::optional<SegmentBlock> message,
                         reader->ReadSchemaMessage(&file_counters_));
  if (!message.has_value()) return Status::OK();
  SLUICE_RETURN_NOT_OK(
      decoder_.Begin(message->data, message->size, message->owner, name + " schema", 0));
  SLUICE_RETURN_NOT_OK(decoder_.ReadSchema());
  schema_ = decoder_.schema();
  return Status::OK();
}

void BatchProducer::Interrupt() {
  interrupted_.store(true);
  for (const auto& queue : queues_) queue->Detach();
}

bool BatchProducer::Advance(bool wait) {
  bool not_ready = false;
  Status status = Step(wait, &not_ready);
  if (status.ok()) return !not_ready;
  if (options_.skip_failed_sources && unit_active_ && !interrupted_.load()) {
    failures_.push_back(
        SourceFailure{static_cast<int64_t>(source_index_), unit_block_index_, std::move(status)});
    AbandonUnit();
    return true;
  }
  // The stream ends here: first the batches decoded before the failure, then the failure.
  AbandonUnit();
  if (coalescer_.has_value()) {
    Status flushed = coalescer_->Flush(&ready_);
    (void)flushed;  // the failure being reported matters more than a failure to join
  }
  finished_ = true;
  final_status_ = std::move(status);
  return true;
}

Status BatchProducer::Step(bool wait, bool* not_ready) {
  if (interrupted_.load()) return Status::Cancelled("the reader was closed");
  if (decoding_) return StepDecoding();
  if (block_.has_value()) return StartNextSegment();
  return TakeNextBlock(wait, not_ready);
}

Status BatchProducer::StepDecoding() {
  // Read in place: a batch moved out of the result costs its empty vectors' destructors.
  Result<std::optional<RecordBatch>> next = decoder_.Next();
  if (!next.ok()) return next.status();
  if (next->has_value()) return Deliver(std::move(**next));
  decoding_ = false;
  const int64_t consumed = decoder_.position();
  if (segment_size_ >= 0) {
    if (consumed != segment_size_) {
      return Status::Corrupt(segment_name_, ": byte ",
                             block_->base_offset + block_cursor_ + consumed, ": ",
                             segment_size_ - consumed,
                             " bytes follow the end-of-stream marker; the partition's bounds "
                             "are wrong");
    }
    block_cursor_ += segment_size_;
  } else {
    block_cursor_ += consumed;
  }
  return Status::OK();
}

Status BatchProducer::StartNextSegment() {
  const SegmentBlock& block = *block_;
  if (!block.partition_lengths.empty()) {
    while (block_partition_ < block.partition_lengths.size()) {
      const int32_t partition = block.start_partition + static_cast<int32_t>(block_partition_);
      const int64_t length = block.partition_lengths[block_partition_];
      ++block_partition_;
      if (block.checksum_algorithm != ChecksumAlgorithm::kNone) {
        SLUICE_RETURN_NOT_OK(VerifyChecksum(block_cursor_, length, partition));
      }
      if (length == 0) continue;
      return BeginSegment(block_cursor_, length,
                          unit_name_ + " partition " + std::to_string(partition));
    }
  } else if (block_cursor_ < block.size) {
    block_streams_ += 1;
    return BeginSegment(block_cursor_, -1,
                        unit_name_ + " partitions [" + std::to_string(block.start_partition) +
                            ", " + std::to_string(block.end_partition) + ") stream " +
                            std::to_string(block_streams_));
  }
  // The block is done; its owner is released (a read buffer goes back to the pool unless
  // batches still view it).
  block_.reset();
  return Status::OK();
}

Status BatchProducer::BeginSegment(int64_t cursor, int64_t size, std::string segment_name) {
  const SegmentBlock& block = *block_;
  const int64_t base_offset = block.base_offset + cursor;
  segment_name_ = segment_name;
  segment_size_ = size;
  const std::optional<CompactSegmentDictionary> dictionary =
      DictionaryReferenceAt(block.data + cursor, size >= 0 ? size : block.size - cursor);
  if (dictionary.has_value() && !decoder_.KnowsDictionary(*dictionary)) {
    SLUICE_RETURN_NOT_OK(LearnSchemaMessage(*dictionary));
  }
  SLUICE_RETURN_NOT_OK(decoder_.Begin(block.data + cursor, size >= 0 ? size : block.size - cursor,
                                      block.owner, std::move(segment_name), base_offset));
  SLUICE_RETURN_NOT_OK(decoder_.ReadSchema());
  const SchemaPtr& schema = decoder_.schema();
  if (schema != checked_schema_) {
    if (schema_ == nullptr) {
      schema_ = schema;
    } else if (!schema_->Equals(*schema)) {
      return Status::Invalid(segment_name_, ": byte ", base_offset,
                             ": the segment's schema differs from the reader's; found\n",
                             schema->ToString(), "\nexpected\n", schema_->ToString());
    }
    checked_schema_ = schema;
  }
  decoding_ = true;
  return Status::OK();
}

// A compact segment refers to a Schema message the decoder has not read: the one of the schema
// the reader was given, or else the one its map output's data file starts with.
Status BatchProducer::LearnSchemaMessage(const CompactSegmentDictionary& dictionary) {
  if (options_.schema != nullptr) {
    SLUICE_RETURN_NOT_OK(decoder_.AddSchema(options_.schema));
    if (decoder_.KnowsDictionary(dictionary)) return Status::OK();
  }
  if (file_reader_ == nullptr) return Status::OK();  // the decoder says what is missing
  SLUICE_ASSIGN_OR_RAISE(std::optional<SegmentBlock> message,
                         file_reader_->ReadSchemaMessage(&file_counters_));
  if (!message.has_value()) return Status::OK();
  SLUICE_RETURN_NOT_OK(
      decoder_.Begin(message->data, message->size, message->owner, unit_name_ + " schema", 0));
  return decoder_.ReadSchema();
}

Status BatchProducer::VerifyChecksum(int64_t offset, int64_t length, int32_t partition) {
  const SegmentBlock& block = *block_;
  const ChecksumAlgorithm algorithm = block.checksum_algorithm;
  const auto start = Clock::now();
  const uint32_t actual = length == 0 ? EmptyChecksum(algorithm)
                                      : UpdateChecksum(algorithm, EmptyChecksum(algorithm),
                                                       block.data + offset, length);
  checksum_nanos_ += NanosSince(start);
  const uint32_t expected = block.checksums[static_cast<size_t>(partition - block.start_partition)];
  if (actual != expected) {
    return Status::Corrupt(unit_name_, " partition ", partition, ": byte ",
                           block.base_offset + offset, ": ", ChecksumAlgorithmName(algorithm),
                           " checksum mismatch over the partition's ", length, " bytes: expected ",
                           expected, ", computed ", actual);
  }
  return Status::OK();
}

Status BatchProducer::TakeNextBlock(bool wait, bool* not_ready) {
  if (source_index_ >= sources_.size()) return FinishStream();
  SegmentSource& source = sources_[source_index_];
  if (auto* file = std::get_if<MapOutputFile>(&source)) {
    if (!unit_active_) {
      StartUnit(file->name.empty()
                    ? "map output " + std::to_string(source_index_) + " (" + file->data_path + ")"
                    : file->name,
                0);
      SLUICE_ASSIGN_OR_RAISE(
          file_reader_,
          MapOutputFileReader::Open(*file, unit_name_, options_.partition_count, &file_counters_));
      if (file_with_data_ < 0 && file_reader_->data_size() > 0) {
        file_with_data_ = static_cast<int64_t>(source_index_);
      }
    }
    SLUICE_ASSIGN_OR_RAISE(
        std::optional<SegmentBlock> block,
        file_reader_->ReadNext(pool_.get(), options_.max_read_bytes, &file_counters_));
    if (!block.has_value()) {
      file_reader_.reset();
      ++source_index_;
      return FinishUnit();
    }
    SetBlock(std::move(*block));
    return Status::OK();
  }
  if (auto* memory = std::get_if<SegmentBlock>(&source)) {
    if (unit_active_) {
      ++source_index_;
      return FinishUnit();
    }
    StartUnit(memory->name.empty() ? "map output " + std::to_string(source_index_) : memory->name,
              0);
    // Moved out of the source list, so its owner is released as soon as it is decoded.
    SetBlock(std::move(*memory));
    return Status::OK();
  }
  auto& queue = std::get<std::shared_ptr<PushedBlockQueue>>(source);
  if (unit_active_) return FinishUnit();
  PushedBlockQueue::Item item;
  switch (queue->Pop(wait, &item)) {
    case PushedBlockQueue::PopOutcome::kNotReady:
      *not_ready = true;
      return Status::OK();
    case PushedBlockQueue::PopOutcome::kClosed:
      ++source_index_;
      pushed_blocks_taken_ = 0;
      return Status::OK();
    case PushedBlockQueue::PopOutcome::kDetached:
      return Status::Cancelled("the reader was closed");
    case PushedBlockQueue::PopOutcome::kItem:
      break;
  }
  const int64_t block_index = pushed_blocks_taken_++;
  StartUnit(item.block.name.empty() ? "pushed block " + std::to_string(block_index) +
                                          " of source " + std::to_string(source_index_)
                                    : item.block.name,
            block_index);
  if (!item.failure.ok()) return item.failure.WithContext(unit_name_);
  SLUICE_RETURN_NOT_OK(CheckBlock(item.block, unit_name_));
  SetBlock(std::move(item.block));
  return Status::OK();
}

void BatchProducer::SetBlock(SegmentBlock block) {
  block_ = std::move(block);
  block_partition_ = 0;
  block_cursor_ = 0;
  block_streams_ = 0;
}

void BatchProducer::StartUnit(std::string name, int64_t block_index) {
  unit_active_ = true;
  unit_name_ = std::move(name);
  unit_block_index_ = block_index;
  units_started_ += 1;
}

Status BatchProducer::FinishUnit() {
  unit_active_ = false;
  for (RecordBatch& batch : unit_batches_) SLUICE_RETURN_NOT_OK(Emit(std::move(batch)));
  unit_batches_.clear();
  return Status::OK();
}

void BatchProducer::AbandonUnit() {
  const bool was_active = unit_active_;
  unit_active_ = false;
  unit_batches_.clear();
  block_.reset();
  file_reader_.reset();
  decoding_ = false;
  // A failed queue block leaves the queue in place; a failed file or memory source is done.
  if (was_active && source_index_ < sources_.size() &&
      !std::holds_alternative<std::shared_ptr<PushedBlockQueue>>(sources_[source_index_])) {
    ++source_index_;
  }
}

Status BatchProducer::Deliver(RecordBatch&& batch) {
  if (options_.validate_utf8) {
    for (size_t i = 0; i < batch.num_columns(); ++i) {
      Status valid = ValidateUtf8(batch.column(i), batch.schema()->field(i).name);
      if (!valid.ok()) return Status::Corrupt(segment_name_, ": ", valid.message());
    }
  }
  if (options_.skip_failed_sources) {
    unit_batches_.push_back(std::move(batch));
    return Status::OK();
  }
  return Emit(std::move(batch));
}

Status BatchProducer::Emit(RecordBatch&& batch) {
  if (coalescer_.has_value()) return coalescer_->Add(std::move(batch), &ready_);
  ready_.push_back(std::move(batch));
  return Status::OK();
}

Status BatchProducer::FinishStream() {
  finished_ = true;
  if (coalescer_.has_value()) return coalescer_->Flush(&ready_);
  return Status::OK();
}

PartitionReaderMetrics BatchProducer::metrics() const {
  const SegmentDecoderMetrics& decoded = decoder_.metrics();
  PartitionReaderMetrics metrics;
  metrics.sources = units_started_;
  metrics.failed_sources = static_cast<int64_t>(failures_.size());
  metrics.bytes_read = file_counters_.bytes_read;
  metrics.file_reads = file_counters_.file_reads;
  metrics.read_nanos = file_counters_.read_nanos;
  metrics.read_buffers = pool_->buffers_made();
  metrics.segments = decoded.segments;
  metrics.blocks = decoded.blocks;
  metrics.schemas_parsed = decoded.schemas_parsed;
  metrics.decompressed_bytes = decoded.decompressed_bytes;
  metrics.decompress_nanos = decoded.decompress_nanos;
  metrics.checksum_nanos = checksum_nanos_;
  metrics.pooled_bytes = pool_->pooled_bytes() + decoder_.pooled_arena_bytes();
  if (coalescer_.has_value()) {
    metrics.coalesced_batches = coalescer_->counters().coalesced_batches;
    metrics.coalesced_inputs = coalescer_->counters().coalesced_inputs;
    metrics.coalesce_nanos = coalescer_->counters().coalesce_nanos;
  }
  return metrics;
}

}  // namespace sluice::internal
