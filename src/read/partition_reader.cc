#include "sluice/read/partition_reader.h"

#include "batch_producer_internal.h"
#include "read_ahead_thread_internal.h"
#include "sluice/base/failure_guard.h"
#include "sluice/base/saturating_arithmetic.h"

namespace sluice {

using internal::BatchProducer;
using internal::ReadAheadThread;

class PartitionReader::Impl {
 public:
  Impl(SchemaPtr schema, std::unique_ptr<BatchProducer> producer, int32_t read_ahead_batches)
      : schema_(std::move(schema)) {
    if (read_ahead_batches > 0) {
      read_ahead_ = std::make_unique<ReadAheadThread>(std::move(producer), read_ahead_batches);
    } else {
      producer_ = std::move(producer);
    }
  }

  ~Impl() {
    // Stops the thread first (it interrupts the producer); without one, still detach queues.
    if (read_ahead_ == nullptr) producer_->Interrupt();
  }

  const SchemaPtr& schema() const { return schema_; }

  Result<BatchProducer::Outcome> Next(bool wait, RecordBatch* out) {
    Result<BatchProducer::Outcome> outcome = read_ahead_ != nullptr
                                                 ? read_ahead_->Next(wait, out, &wait_nanos_)
                                                 : producer_->Next(wait, out);
    if (outcome.ok() && *outcome == BatchProducer::Outcome::kBatch) {
      batches_ += 1;
      rows_ = SaturatingAdd(rows_, out->num_rows());
    }
    return outcome;
  }

  PartitionReaderMetrics metrics() const {
    PartitionReaderMetrics metrics =
        read_ahead_ != nullptr ? read_ahead_->metrics() : producer_->metrics();
    metrics.batches = batches_;
    metrics.rows = rows_;
    metrics.wait_nanos = wait_nanos_;
    return metrics;
  }

  std::vector<SourceFailure> failed_sources() const {
    return read_ahead_ != nullptr ? read_ahead_->failures() : producer_->failures();
  }

 private:
  SchemaPtr schema_;
  std::unique_ptr<BatchProducer> producer_;  // without read-ahead
  std::unique_ptr<ReadAheadThread> read_ahead_;
  int64_t batches_ = 0;
  int64_t rows_ = 0;
  int64_t wait_nanos_ = 0;
};

Result<std::unique_ptr<PartitionReader>> PartitionReader::Open(std::vector<SegmentSource> sources,
                                                               PartitionReaderOptions options) {
  return GuardFailures("PartitionReader::Open",
                       [&] { return OpenGuarded(std::move(sources), options); });
}

Result<std::unique_ptr<PartitionReader>> PartitionReader::OpenGuarded(
    std::vector<SegmentSource> sources, const PartitionReaderOptions& options) {
  SLUICE_ASSIGN_OR_RAISE(auto producer, BatchProducer::Make(std::move(sources), options));
  SLUICE_ASSIGN_OR_RAISE(BatchProducer::Outcome outcome, producer->ReadSchema(/*wait=*/true));
  // kEnd: no segment at all and no schema given; the reader yields nothing, with no fields.
  SchemaPtr schema = outcome == BatchProducer::Outcome::kEnd && producer->schema() == nullptr
                         ? std::make_shared<Schema>()
                         : producer->schema();
  auto impl =
      std::make_unique<Impl>(std::move(schema), std::move(producer), options.read_ahead_batches);
  return std::unique_ptr<PartitionReader>(new PartitionReader(std::move(impl)));
}

PartitionReader::PartitionReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PartitionReader::~PartitionReader() = default;

const SchemaPtr& PartitionReader::schema() const {
  return impl_->schema();
}

Result<std::optional<RecordBatch>> PartitionReader::Next() {
  RecordBatch batch;
  SLUICE_ASSIGN_OR_RAISE(
      BatchProducer::Outcome outcome,
      GuardFailures("PartitionReader::Next", [&] { return impl_->Next(/*wait=*/true, &batch); }));
  if (outcome == BatchProducer::Outcome::kEnd) return std::optional<RecordBatch>();
  return std::optional<RecordBatch>(std::move(batch));
}

Result<PartitionReader::Poll> PartitionReader::TryNext(RecordBatch* out) {
  SLUICE_ASSIGN_OR_RAISE(
      BatchProducer::Outcome outcome,
      GuardFailures("PartitionReader::TryNext", [&] { return impl_->Next(/*wait=*/false, out); }));
  switch (outcome) {
    case BatchProducer::Outcome::kBatch:
      return Poll::kBatch;
    case BatchProducer::Outcome::kNotReady:
      return Poll::kNotReady;
    case BatchProducer::Outcome::kEnd:
      break;
  }
  return Poll::kEnd;
}

PartitionReaderMetrics PartitionReader::metrics() const {
  return impl_->metrics();
}

std::vector<SourceFailure> PartitionReader::failed_sources() const {
  return impl_->failed_sources();
}

PartitionReader::Iterator& PartitionReader::Iterator::operator++() {
  if (current_.has_value() && !current_->ok()) {
    reader_ = nullptr;  // an error is the last element
    current_.reset();
    return *this;
  }
  auto next = reader_->Next();
  if (!next.ok()) {
    current_.emplace(std::move(next).status());
  } else if (!next->has_value()) {
    reader_ = nullptr;
    current_.reset();
  } else {
    current_.emplace(std::move(**next));
  }
  return *this;
}

}  // namespace sluice
