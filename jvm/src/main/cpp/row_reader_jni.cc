// JNI entry points of the reduce side: fetched Sluice blocks in, UnsafeRows in native memory out.
//
// Spark's ShuffleBlockFetcherIterator hands the reader one block per map output: that output's
// bytes for the requested partitions, which are Arrow IPC streams back to back (one per
// non-empty partition). The JVM loads each block once; the reader decodes it with one
// SegmentDecoder (schema cached, decompression contexts reused) and converts each batch straight
// into UnsafeRows (ColumnarToRowConverter) in a buffer it reuses. The JVM points one UnsafeRow at
// each row in turn, reading the offsets and sizes arrays in place: one JNI call per batch, none
// per row, no Arrow data crossing into the JVM.
#include <jni.h>

#include <memory>
#include <optional>
#include <string>

#include "jni_bridge.h"
#include "native_slots.h"
#include "sluice/base/aligned_buffer.h"
#include "sluice/ipc/segment_decoder.h"
#include "sluice/row/columnar_to_row_converter.h"
#include "sluice/row/spark_type.h"
#include "sluice/row/unsafe_row_batch.h"

namespace sluice::jni {
namespace {

/// The reduce side of one task: the current block, its decoder position and the rows of the
/// last batch.
class RowReader {
 public:
  static Result<std::unique_ptr<RowReader>> Make(const std::string& schema_text) {
    SLUICE_ASSIGN_OR_RAISE(SchemaPtr schema, SchemaFromSparkCatalogString(schema_text));
    SLUICE_ASSIGN_OR_RAISE(auto converter, ColumnarToRowConverter::Make(schema));
    auto reader = std::unique_ptr<RowReader>(new RowReader(std::move(converter)));
    // Compact segments may be compressed against this schema's Schema message (encoded only if
    // one is).
    SLUICE_RETURN_NOT_OK(reader->decoder_.AddSchema(std::move(schema)));
    return reader;
  }

  /// Grows the block buffer to `capacity` bytes, keeping its first `kept` bytes (the part of a
  /// block copied in so far); returns where the JVM copies a block.
  Result<uint8_t*> ReserveBlock(int64_t kept, int64_t capacity) {
    if (kept < 0 || kept > block_.capacity() || capacity < kept) {
      return Status::Invalid("ReserveBlock: keep ", kept, " of ", block_.capacity(),
                             " bytes, grow to ", capacity);
    }
    block_.Resize(kept);
    block_.Reserve(capacity);
    return block_.data();
  }

  /// Starts decoding the first `size` bytes of the block buffer. `name` names it in errors.
  Status BeginBlock(int64_t size, std::string name) {
    if (size < 0 || size > block_.capacity()) {
      return Status::Invalid("BeginBlock: ", size, " bytes, but the block buffer holds ",
                             block_.capacity());
    }
    block_.Resize(size);
    block_name_ = std::move(name);
    position_ = 0;
    stream_index_ = 0;
    in_stream_ = false;
    return Status::OK();
  }

  /// Decodes the next batch of the block into rows; returns its row count, 0 at the block's end.
  Result<int64_t> NextRows() {
    rows_.Clear();
    while (true) {
      if (!in_stream_) {
        if (position_ >= block_.size()) return int64_t{0};
        SLUICE_RETURN_NOT_OK(
            decoder_.Begin(block_.data() + position_, block_.size() - position_, nullptr,
                           block_name_ + " stream " + std::to_string(stream_index_), position_));
        in_stream_ = true;
      }
      SLUICE_ASSIGN_OR_RAISE(std::optional<RecordBatch> batch, decoder_.Next());
      if (!batch.has_value()) {
        const int64_t consumed = decoder_.position();
        if (consumed <= 0) {
          return Status::Corrupt(block_name_, ": stream ", stream_index_, " at byte offset ",
                                 position_, " ends without consuming bytes");
        }
        position_ += consumed;
        ++stream_index_;
        in_stream_ = false;
        continue;
      }
      if (batch->num_rows() == 0) continue;
      SLUICE_RETURN_NOT_OK(converter_->Convert(*batch, 0, batch->num_rows(), &rows_));
      return rows_.num_rows();
    }
  }

  const UnsafeRowBatch& rows() const { return rows_; }
  const SegmentDecoderMetrics& decoder_metrics() const { return decoder_.metrics(); }

 private:
  static SegmentDecoderOptions DecoderOptions() {
    SegmentDecoderOptions options;
    options.allow_trailing_bytes = true;  // a block holds several partitions' streams
    return options;
  }

  explicit RowReader(std::unique_ptr<ColumnarToRowConverter> converter)
      : converter_(std::move(converter)), decoder_(DecoderOptions()) {}

  std::unique_ptr<ColumnarToRowConverter> converter_;
  SegmentDecoder decoder_;
  AlignedBuffer block_;
  std::string block_name_;
  int64_t position_ = 0;
  int64_t stream_index_ = 0;
  bool in_stream_ = false;
  UnsafeRowBatch rows_;
};

}  // namespace
}  // namespace sluice::jni

using sluice::jni::FromHandle;
using sluice::jni::RowReader;

extern "C" {

JNIEXPORT jlong JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_readerCreate(
    JNIEnv* env, jclass, jstring schema) {
  jlong handle = 0;
  sluice::jni::Run(env, "readerCreate", [&] {
    SLUICE_ASSIGN_OR_RAISE(auto reader, RowReader::Make(sluice::jni::ToString(env, schema)));
    handle = sluice::jni::ToHandle(reader.release());
    return sluice::Status::OK();
  });
  return handle;
}

/// Grows the block buffer to `capacity` bytes, keeping its first `kept`; returns its address.
JNIEXPORT jlong JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_readerReserveBlock(
    JNIEnv* env, jclass, jlong handle, jlong kept, jlong capacity) {
  auto* reader = FromHandle<RowReader>(handle);
  jlong address = 0;
  sluice::jni::Run(env, "readerReserveBlock", [&] {
    SLUICE_ASSIGN_OR_RAISE(uint8_t * data, reader->ReserveBlock(kept, capacity));
    address = static_cast<jlong>(reinterpret_cast<intptr_t>(data));
    return sluice::Status::OK();
  });
  return address;
}

/// Starts decoding the first `length` bytes of the block buffer (named `name` in errors).
JNIEXPORT void JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_readerBeginBlock(
    JNIEnv* env, jclass, jlong handle, jlong length, jstring name) {
  auto* reader = FromHandle<RowReader>(handle);
  sluice::jni::Run(env, "readerBeginBlock",
                   [&] { return reader->BeginBlock(length, sluice::jni::ToString(env, name)); });
}

/// Decodes the next batch into rows. Returns the row count (0 at the end of the block) and
/// fills out (the ROWS_* slots: the rows' base address, their int64 offsets, their int32 sizes).
JNIEXPORT jint JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_readerNextRows(
    JNIEnv* env, jclass, jlong handle, jlongArray out) {
  auto* reader = FromHandle<RowReader>(handle);
  jint rows = -1;
  sluice::jni::Run(env, "readerNextRows", [&] {
    SLUICE_ASSIGN_OR_RAISE(const int64_t count, reader->NextRows());
    if (count > 0) {
      const sluice::UnsafeRowBatch& batch = reader->rows();
      auto address = [](const void* pointer) {
        return static_cast<jlong>(reinterpret_cast<intptr_t>(pointer));
      };
      jlong addresses[sluice::jni::kRowsSlots] = {};
      addresses[sluice::jni::kRowsBase] = address(batch.bytes.data());
      addresses[sluice::jni::kRowsOffsets] = address(batch.offsets.data());
      addresses[sluice::jni::kRowsSizes] = address(batch.sizes.data());
      env->SetLongArrayRegion(out, 0, sluice::jni::kRowsSlots, addresses);
    }
    rows = static_cast<jint>(count);
    return sluice::Status::OK();
  });
  return rows;
}

/// Fills metrics (the READ_* slots).
JNIEXPORT void JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_readerMetrics(
    JNIEnv* env, jclass, jlong handle, jlongArray metrics) {
  const sluice::SegmentDecoderMetrics& m = FromHandle<RowReader>(handle)->decoder_metrics();
  jlong values[sluice::jni::kReadMetricSlots] = {};
  values[sluice::jni::kReadSegments] = m.segments;
  values[sluice::jni::kReadBlocks] = m.blocks;
  values[sluice::jni::kReadRows] = m.rows;
  values[sluice::jni::kReadDecompressedBytes] = m.decompressed_bytes;
  values[sluice::jni::kReadDecompressNanos] = m.decompress_nanos;
  env->SetLongArrayRegion(metrics, 0, sluice::jni::kReadMetricSlots, values);
}

JNIEXPORT void JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_readerClose(JNIEnv*,
                                                                                     jclass,
                                                                                     jlong handle) {
  delete FromHandle<RowReader>(handle);
}

}  // extern "C"
