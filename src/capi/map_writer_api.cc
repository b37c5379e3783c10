// The C API of the map-side writer.
#include <string>
#include <utility>
#include <vector>

#include "api_status_internal.h"
#include "map_output_handles_internal.h"
#include "sluice/format/c_data.h"
#include "sluice/row/row_map_writer.h"
#include "sluice/sluice.h"
#include "sluice/write/map_writer.h"
#include "sluice/write/map_writer_metrics_json.h"
#include "sluice/write/map_writer_settings.h"

struct SluiceMapWriter {
  std::unique_ptr<sluice::MapWriter> writer;
  // Remembers which input fields are dictionary-encoded, so batches unpack on import.
  sluice::SchemaPtr schema;
};

namespace sluice::capi {

namespace {

Status OpenWriter(const SluiceMapWriterOptions* settings, ArrowSchema* c_schema,
                  SluiceMapWriter** out) {
  if (settings == nullptr || c_schema == nullptr || out == nullptr) {
    return Status::Invalid("sluice_map_writer_open: options, schema and out are required");
  }
  SLUICE_ASSIGN_OR_RAISE(SchemaPtr imported, ImportSchema(c_schema));
  MapWriterOptions options;
  options.schema = imported;
  for (const auto& [key, value] : settings->settings) {
    SLUICE_RETURN_NOT_OK(ApplyMapWriterSetting(&options, key, value));
  }
  if (settings->has_range_bounds) options.partitioning.range_bounds = settings->range_bounds;
  auto handle = std::make_unique<SluiceMapWriter>();
  handle->schema = std::move(imported);
  SLUICE_ASSIGN_OR_RAISE(handle->writer, MapWriter::Make(std::move(options)));
  *out = handle.release();
  return Status::OK();
}

Status WriteBatch(SluiceMapWriter* handle, ArrowSchema* c_schema, ArrowArray* c_array) {
  if (handle == nullptr || c_schema == nullptr || c_array == nullptr) {
    if (c_schema != nullptr && c_schema->release != nullptr) c_schema->release(c_schema);
    if (c_array != nullptr && c_array->release != nullptr) c_array->release(c_array);
    return Status::Invalid("sluice_map_writer_write: writer, schema and batch are required");
  }
  auto imported = ImportSchema(c_schema);
  if (!imported.ok()) {
    if (c_array->release != nullptr) c_array->release(c_array);
    return imported.status();
  }
  Status same = CheckSameFields(*handle->schema, **imported, "the writer's schema", "the batch");
  if (!same.ok()) {
    if (c_array->release != nullptr) c_array->release(c_array);
    return same;
  }
  SLUICE_ASSIGN_OR_RAISE(RecordBatch batch, ImportRecordBatch(c_array, *imported));
  return handle->writer->Write(batch);
}

Status Finish(SluiceMapWriter* handle, SluiceMapOutput** out) {
  if (handle == nullptr || out == nullptr) {
    return Status::Invalid("sluice_map_writer_finish: writer and out are required");
  }
  return FinishIntoHandle([&] { return handle->writer->Finish(); }, out);
}

}  // namespace
}  // namespace sluice::capi

using sluice::Status;
using sluice::capi::Report;

extern "C" {

SluiceMapWriterOptions* sluice_map_writer_options_new(void) {
  return new (std::nothrow) SluiceMapWriterOptions();
}

void sluice_map_writer_options_free(SluiceMapWriterOptions* options) {
  delete options;
}

int sluice_map_writer_options_set(SluiceMapWriterOptions* options, const char* key,
                                  const char* value) {
  return sluice::capi::ReportGuarded("sluice_map_writer_options_set", [&] {
    if (options == nullptr || key == nullptr || value == nullptr) {
      return Status::Invalid("sluice_map_writer_options_set: arguments are required");
    }
    // Check the setting now (against a schema-less options struct) so errors surface early. The
    // row writer's keys are a superset; the map writer rejects its extra keys when it opens.
    sluice::RowMapWriterOptions probe;
    const std::string key_text(key);
    if (key_text != "keys") {
      SLUICE_RETURN_NOT_OK(sluice::ApplyRowMapWriterSetting(&probe, key_text, value));
    }
    options->settings.emplace_back(key_text, value);
    return Status::OK();
  });
}

int sluice_map_writer_options_set_range_bounds(SluiceMapWriterOptions* options,
                                               struct ArrowSchema* schema,
                                               struct ArrowArray* bounds) {
  return sluice::capi::ReportGuarded("sluice_map_writer_options_set_range_bounds", [&] {
    if (options == nullptr) return Status::Invalid("options are required");
    SLUICE_ASSIGN_OR_RAISE(options->range_bounds, sluice::ImportRecordBatch(bounds, schema));
    options->has_range_bounds = true;
    return Status::OK();
  });
}

int sluice_map_writer_open(const SluiceMapWriterOptions* options, struct ArrowSchema* schema,
                           SluiceMapWriter** out) {
  return sluice::capi::ReportGuarded(
      "sluice_map_writer_open", [&] { return sluice::capi::OpenWriter(options, schema, out); });
}

int sluice_map_writer_write(SluiceMapWriter* writer, struct ArrowSchema* schema,
                            struct ArrowArray* batch) {
  return sluice::capi::ReportGuarded(
      "sluice_map_writer_write", [&] { return sluice::capi::WriteBatch(writer, schema, batch); });
}

int sluice_map_writer_spill(SluiceMapWriter* writer) {
  return sluice::capi::ReportGuarded("sluice_map_writer_spill", [&] {
    if (writer == nullptr) return Status::Invalid("writer is required");
    return writer->writer->Spill();
  });
}

int sluice_map_writer_finish(SluiceMapWriter* writer, SluiceMapOutput** out) {
  return sluice::capi::ReportGuarded("sluice_map_writer_finish",
                                     [&] { return sluice::capi::Finish(writer, out); });
}

void sluice_map_writer_abort(SluiceMapWriter* writer) {
  if (writer != nullptr) writer->writer->Abort();
}

void sluice_map_writer_free(SluiceMapWriter* writer) {
  delete writer;
}

int64_t sluice_map_writer_held_bytes(const SluiceMapWriter* writer) {
  return writer != nullptr ? writer->writer->held_bytes() : 0;
}

int32_t sluice_map_output_partition_count(const SluiceMapOutput* output) {
  return static_cast<int32_t>(output->output.lengths.size());
}

const int64_t* sluice_map_output_offsets(const SluiceMapOutput* output) {
  return output->output.offsets.data();
}

const int64_t* sluice_map_output_lengths(const SluiceMapOutput* output) {
  return output->output.lengths.data();
}

const uint32_t* sluice_map_output_checksums(const SluiceMapOutput* output) {
  return output->output.checksums.empty() ? nullptr : output->output.checksums.data();
}

const char* sluice_map_output_metrics_json(const SluiceMapOutput* output) {
  if (output->metrics_json.empty()) {
    try {
      output->metrics_json = sluice::MapWriterMetricsToJson(output->output.metrics);
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
  }
  return output->metrics_json.c_str();
}

void sluice_map_output_free(SluiceMapOutput* output) {
  delete output;
}

}  // extern "C"
