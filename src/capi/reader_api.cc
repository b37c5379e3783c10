// The C API of the reduce-side reader: map outputs by path, or blocks a host pushes, out as an
// Arrow C stream.
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "api_status_internal.h"
#include "sluice/base/aligned_buffer.h"
#include "sluice/format/c_data.h"
#include "sluice/io/spark_shuffle_files.h"
#include "sluice/read/partition_reader.h"
#include "sluice/read/partition_reader_report_json.h"
#include "sluice/read/partition_reader_settings.h"
#include "sluice/read/pushed_block_queue.h"
#include "sluice/sluice.h"

struct SluiceReaderOptions {
  // Applied in order when a reader opens; each was checked when it was set.
  std::vector<std::pair<std::string, std::string>> settings;
  // The schema to return when no map output has rows (sluice_reader_options_set_schema).
  sluice::SchemaPtr schema;
};

namespace sluice::capi {

// What a report handle shows: the reader's metrics and failures as of its last batch. Shared by
// the handle and the stream, so either may go first.
struct ReadReportState {
  std::mutex mutex;
  PartitionReaderMetrics metrics;
  std::vector<SourceFailure> failures;
};

}  // namespace sluice::capi

struct SluiceReadReport {
  std::shared_ptr<sluice::capi::ReadReportState> state =
      std::make_shared<sluice::capi::ReadReportState>();
  std::string json;  // what sluice_read_report_json returned last
};

struct SluiceBlockQueue {
  std::shared_ptr<sluice::PushedBlockQueue> queue = sluice::PushedBlockQueue::Make();
};

namespace sluice::capi {
namespace {

// A PartitionReader that publishes its metrics and failures to a report after every batch.
class ReportingReader final : public RecordBatchReader {
 public:
  ReportingReader(std::unique_ptr<PartitionReader> reader, std::shared_ptr<ReadReportState> report)
      : reader_(std::move(reader)), report_(std::move(report)) {
    Publish();
  }

  const SchemaPtr& schema() const override { return reader_->schema(); }

  Result<std::optional<RecordBatch>> Next() override {
    auto next = reader_->Next();
    Publish();
    return next;
  }

 private:
  void Publish() {
    PartitionReaderMetrics metrics = reader_->metrics();
    std::lock_guard<std::mutex> lock(report_->mutex);
    if (static_cast<int64_t>(report_->failures.size()) != metrics.failed_sources) {
      report_->failures = reader_->failed_sources();
    }
    report_->metrics = metrics;
  }

  std::unique_ptr<PartitionReader> reader_;
  std::shared_ptr<ReadReportState> report_;
};

Result<PartitionReaderSettings> SettingsFrom(const SluiceReaderOptions* options) {
  PartitionReaderSettings settings;
  if (options != nullptr) {
    for (const auto& [key, value] : options->settings) {
      SLUICE_RETURN_NOT_OK(ApplyPartitionReaderSetting(&settings, key, value));
    }
    settings.options.schema = options->schema;
  }
  return settings;
}

Status Export(std::vector<SegmentSource> sources, const PartitionReaderOptions& options,
              SluiceReadReport* report, ArrowArrayStream* out) {
  SLUICE_ASSIGN_OR_RAISE(std::unique_ptr<PartitionReader> reader,
                         PartitionReader::Open(std::move(sources), options));
  if (report == nullptr) return ExportRecordBatchReader(std::move(reader), out);
  return ExportRecordBatchReader(
      std::make_unique<ReportingReader>(std::move(reader), report->state), out);
}

Status OpenFiles(const char* const* data_paths, const char* const* index_paths, int64_t count,
                 int32_t start_partition, int32_t end_partition, const SluiceReaderOptions* options,
                 SluiceReadReport* report, ArrowArrayStream* out) {
  if (out == nullptr || count < 0 || (count > 0 && data_paths == nullptr)) {
    return Status::Invalid(
        "sluice_reader_open_files: out is required, and data_paths when count > 0");
  }
  SLUICE_ASSIGN_OR_RAISE(PartitionReaderSettings settings, SettingsFrom(options));
  std::vector<SegmentSource> sources;
  sources.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    if (data_paths[i] == nullptr) {
      return Status::Invalid("sluice_reader_open_files: data_paths[", i, "] is NULL");
    }
    MapOutputFile file = MapOutputFile::Spark(data_paths[i], start_partition, end_partition,
                                              settings.verify_checksum);
    if (index_paths != nullptr && index_paths[i] != nullptr) file.index_path = index_paths[i];
    sources.push_back(std::move(file));
  }
  return Export(std::move(sources), settings.options, report, out);
}

Status OpenQueue(SluiceBlockQueue* queue, ArrowSchema* schema, const SluiceReaderOptions* options,
                 SluiceReadReport* report, ArrowArrayStream* out) {
  SchemaPtr imported;
  if (schema != nullptr) {
    SLUICE_ASSIGN_OR_RAISE(imported, ImportSchema(schema));  // consumes it, also on failure
  }
  if (queue == nullptr || out == nullptr) {
    return Status::Invalid("sluice_reader_open_queue: queue and out are required");
  }
  SLUICE_ASSIGN_OR_RAISE(PartitionReaderSettings settings, SettingsFrom(options));
  if (imported != nullptr) settings.options.schema = std::move(imported);
  return Export({queue->queue}, settings.options, report, out);
}

// Keeps a host's bytes alive until Sluice is done with them, then hands them back.
class HostBytes {
 public:
  HostBytes(void (*release)(void*), void* release_data)
      : release_(release), release_data_(release_data) {}
  ~HostBytes() { release_(release_data_); }
  HostBytes(const HostBytes&) = delete;
  HostBytes& operator=(const HostBytes&) = delete;

 private:
  void (*release_)(void*);
  void* release_data_;
};

Status Push(SluiceBlockQueue* queue, const uint8_t* data, int64_t size, int32_t start_partition,
            int32_t end_partition, const int64_t* partition_lengths, const char* name,
            void (*release)(void*), void* release_data) {
  if (queue == nullptr || size < 0 || (size > 0 && data == nullptr)) {
    if (release != nullptr) release(release_data);
    return Status::Invalid("sluice_block_queue_push: a queue and ", size, " bytes of data needed");
  }
  SegmentBlock block;
  block.start_partition = start_partition;
  block.end_partition = end_partition;
  if (name != nullptr) block.name = name;
  if (partition_lengths != nullptr && end_partition > start_partition) {
    block.partition_lengths.assign(partition_lengths,
                                   partition_lengths + (end_partition - start_partition));
  }
  if (release != nullptr) {
    block.data = data;
    block.owner = std::make_shared<HostBytes>(release, release_data);
  } else {
    auto copy = std::make_shared<AlignedBuffer>();
    copy->Append(data, size);
    block.data = copy->data();
    block.owner = std::move(copy);
  }
  block.size = size;
  return queue->queue->Push(std::move(block));
}

}  // namespace
}  // namespace sluice::capi

using sluice::Status;
using sluice::capi::Report;

extern "C" {

SluiceReaderOptions* sluice_reader_options_new(void) {
  return new (std::nothrow) SluiceReaderOptions();
}

void sluice_reader_options_free(SluiceReaderOptions* options) {
  delete options;
}

int sluice_reader_options_set(SluiceReaderOptions* options, const char* key, const char* value) {
  return sluice::capi::ReportGuarded("sluice_reader_options_set", [&] {
    if (options == nullptr || key == nullptr || value == nullptr) {
      return Status::Invalid("sluice_reader_options_set: options, key and value are required");
    }
    // Checked now, so a bad setting fails where it is made; applied again when a reader opens.
    sluice::PartitionReaderSettings scratch;
    SLUICE_RETURN_NOT_OK(sluice::ApplyPartitionReaderSetting(&scratch, key, value));
    options->settings.emplace_back(key, value);
    return Status::OK();
  });
}

int sluice_reader_options_set_schema(SluiceReaderOptions* options, struct ArrowSchema* schema) {
  return sluice::capi::ReportGuarded("sluice_reader_options_set_schema", [&] {
    if (schema == nullptr) return Status::Invalid("sluice_reader_options_set_schema: no schema");
    SLUICE_ASSIGN_OR_RAISE(sluice::SchemaPtr imported, sluice::ImportSchema(schema));
    if (options == nullptr) return Status::Invalid("sluice_reader_options_set_schema: no options");
    options->schema = std::move(imported);
    return Status::OK();
  });
}

SluiceReadReport* sluice_read_report_new(void) {
  return new (std::nothrow) SluiceReadReport();
}

const char* sluice_read_report_json(SluiceReadReport* report) {
  if (report == nullptr) return "{}";
  std::lock_guard<std::mutex> lock(report->state->mutex);
  try {
    report->json =
        sluice::PartitionReaderReportToJson(report->state->metrics, report->state->failures);
  } catch (const std::bad_alloc&) {
    return nullptr;  // documented: null when the report cannot be made
  }
  return report->json.c_str();
}

void sluice_read_report_free(SluiceReadReport* report) {
  delete report;
}

int sluice_reader_open_files(const char* const* data_paths, const char* const* index_paths,
                             int64_t count, int32_t start_partition, int32_t end_partition,
                             const SluiceReaderOptions* options, SluiceReadReport* report,
                             struct ArrowArrayStream* out) {
  return sluice::capi::ReportGuarded("sluice_reader_open_files", [&] {
    return sluice::capi::OpenFiles(data_paths, index_paths, count, start_partition, end_partition,
                                   options, report, out);
  });
}

SluiceBlockQueue* sluice_block_queue_new(void) {
  return new (std::nothrow) SluiceBlockQueue();
}

int sluice_block_queue_push(SluiceBlockQueue* queue, const uint8_t* data, int64_t size,
                            int32_t start_partition, int32_t end_partition,
                            const int64_t* partition_lengths, const char* name,
                            void (*release)(void* release_data), void* release_data) {
  return sluice::capi::ReportGuarded("sluice_block_queue_push", [&] {
    return sluice::capi::Push(queue, data, size, start_partition, end_partition, partition_lengths,
                              name, release, release_data);
  });
}

int sluice_block_queue_push_failure(SluiceBlockQueue* queue, const char* name,
                                    const char* message) {
  return sluice::capi::ReportGuarded("sluice_block_queue_push_failure", [&] {
    if (queue == nullptr) return Status::Invalid("sluice_block_queue_push_failure: no queue");
    return queue->queue->PushFailure(name != nullptr ? name : "",
                                     Status::IOError(message != nullptr ? message : ""));
  });
}

void sluice_block_queue_close(SluiceBlockQueue* queue) {
  if (queue != nullptr) queue->queue->Close();
}

int64_t sluice_block_queue_queued_bytes(const SluiceBlockQueue* queue) {
  return queue != nullptr ? queue->queue->queued_bytes() : 0;
}

void sluice_block_queue_free(SluiceBlockQueue* queue) {
  if (queue == nullptr) return;
  queue->queue->Close();  // nobody can push any more
  delete queue;
}

int sluice_reader_open_queue(SluiceBlockQueue* queue, struct ArrowSchema* schema,
                             const SluiceReaderOptions* options, SluiceReadReport* report,
                             struct ArrowArrayStream* out) {
  return sluice::capi::ReportGuarded("sluice_reader_open_queue", [&] {
    return sluice::capi::OpenQueue(queue, schema, options, report, out);
  });
}

}  // extern "C"
