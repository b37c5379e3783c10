// The C API of the row-based map writer, and of turning Arrow batches into Spark rows.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "api_status_internal.h"
#include "map_output_handles_internal.h"
#include "sluice/format/c_data.h"
#include "sluice/row/columnar_to_row_converter.h"
#include "sluice/row/row_map_writer.h"
#include "sluice/row/unsafe_row_batch.h"
#include "sluice/sluice.h"

struct SluiceRowWriter {
  std::unique_ptr<sluice::RowMapWriter> writer;
  std::vector<const uint8_t*> rows;  // scratch for framed input
  std::vector<int32_t> sizes;
};

namespace sluice::capi {
namespace {

Status OpenRowWriter(const SluiceMapWriterOptions* settings, ArrowSchema* c_schema,
                     SluiceRowWriter** out) {
  if (settings == nullptr || c_schema == nullptr || out == nullptr) {
    return Status::Invalid("sluice_row_writer_open: options, schema and out are required");
  }
  SLUICE_ASSIGN_OR_RAISE(SchemaPtr schema, ImportSchema(c_schema));
  RowMapWriterOptions options;
  options.writer.schema = schema;
  for (const auto& [key, value] : settings->settings) {
    SLUICE_RETURN_NOT_OK(ApplyRowMapWriterSetting(&options, key, value));
  }
  auto handle = std::make_unique<SluiceRowWriter>();
  SLUICE_ASSIGN_OR_RAISE(handle->writer, RowMapWriter::Make(std::move(options)));
  *out = handle.release();
  return Status::OK();
}

Status Append(SluiceRowWriter* handle, const uint32_t* partitions, const uint8_t* const* rows,
              const int32_t* sizes, int64_t count) {
  if (handle == nullptr ||
      (count > 0 && (partitions == nullptr || rows == nullptr || sizes == nullptr))) {
    return Status::Invalid("sluice_row_writer_append: bad arguments");
  }
  for (int64_t i = 0; i < count; ++i) {
    SLUICE_RETURN_NOT_OK(handle->writer->AppendRow(partitions[i], rows[i], sizes[i]));
  }
  return Status::OK();
}

Status AppendFramed(SluiceRowWriter* handle, const uint32_t* partitions, int64_t count,
                    const uint8_t* data, int64_t size) {
  if (handle == nullptr) return Status::Invalid("sluice_row_writer_append_framed: no writer");
  handle->rows.clear();
  handle->sizes.clear();
  SLUICE_RETURN_NOT_OK(SplitFramedRows(data, size, &handle->rows, &handle->sizes));
  if (static_cast<int64_t>(handle->rows.size()) != count) {
    return Status::Invalid("sluice_row_writer_append_framed: the stream holds ",
                           handle->rows.size(), " rows but ", count, " partition ids were given");
  }
  return Append(handle, partitions, handle->rows.data(), handle->sizes.data(), count);
}

Status RowsFromArrow(ArrowArray* c_array, ArrowSchema* c_schema, uint8_t** out_data,
                     int64_t* out_size) {
  if (out_data == nullptr || out_size == nullptr) {
    return Status::Invalid("sluice_rows_from_arrow: out_data and out_size are required");
  }
  SLUICE_ASSIGN_OR_RAISE(RecordBatch batch, ImportRecordBatch(c_array, c_schema));
  ColumnarToRowOptions options;
  options.framing = RowFraming::kSizePrefixed;
  SLUICE_ASSIGN_OR_RAISE(auto converter, ColumnarToRowConverter::Make(batch.schema(), options));
  UnsafeRowBatch rows;
  SLUICE_RETURN_NOT_OK(converter->Convert(batch, 0, batch.num_rows(), &rows));
  auto* copy = static_cast<uint8_t*>(std::malloc(static_cast<size_t>(rows.bytes.size()) + 1));
  if (copy == nullptr) return Status::OutOfMemory("cannot allocate ", rows.bytes.size(), " bytes");
  if (rows.bytes.size() > 0) {
    std::memcpy(copy, rows.bytes.data(), static_cast<size_t>(rows.bytes.size()));
  }
  *out_data = copy;
  *out_size = rows.bytes.size();
  return Status::OK();
}

}  // namespace
}  // namespace sluice::capi

using sluice::Status;
using sluice::capi::Report;

extern "C" {

int sluice_row_writer_open(const SluiceMapWriterOptions* options, struct ArrowSchema* schema,
                           SluiceRowWriter** out) {
  return sluice::capi::ReportGuarded(
      "sluice_row_writer_open", [&] { return sluice::capi::OpenRowWriter(options, schema, out); });
}

int sluice_row_writer_append(SluiceRowWriter* writer, const uint32_t* partitions,
                             const uint8_t* const* rows, const int32_t* sizes, int64_t count) {
  return sluice::capi::ReportGuarded("sluice_row_writer_append", [&] {
    return sluice::capi::Append(writer, partitions, rows, sizes, count);
  });
}

int sluice_row_writer_append_framed(SluiceRowWriter* writer, const uint32_t* partitions,
                                    int64_t count, const uint8_t* data, int64_t size) {
  return sluice::capi::ReportGuarded("sluice_row_writer_append_framed", [&] {
    return sluice::capi::AppendFramed(writer, partitions, count, data, size);
  });
}

int sluice_row_writer_spill(SluiceRowWriter* writer, int64_t* released) {
  return sluice::capi::ReportGuarded("sluice_row_writer_spill", [&] {
    if (writer == nullptr) return Status::Invalid("sluice_row_writer_spill: no writer");
    SLUICE_ASSIGN_OR_RAISE(const int64_t freed, writer->writer->Spill());
    if (released != nullptr) *released = freed;
    return Status::OK();
  });
}

int sluice_row_writer_finish(SluiceRowWriter* writer, SluiceMapOutput** out) {
  return sluice::capi::ReportGuarded("sluice_row_writer_finish", [&] {
    if (writer == nullptr || out == nullptr) {
      return Status::Invalid("sluice_row_writer_finish: writer and out are required");
    }
    return sluice::capi::FinishIntoHandle([&] { return writer->writer->Finish(); }, out);
  });
}

void sluice_row_writer_free(SluiceRowWriter* writer) {
  delete writer;
}

int sluice_rows_from_arrow(struct ArrowArray* batch, struct ArrowSchema* schema, uint8_t** out_data,
                           int64_t* out_size) {
  return sluice::capi::ReportGuarded("sluice_rows_from_arrow", [&] {
    return sluice::capi::RowsFromArrow(batch, schema, out_data, out_size);
  });
}

}  // extern "C"
