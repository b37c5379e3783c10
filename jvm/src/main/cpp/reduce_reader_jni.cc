// JNI entry points of the reduce side: fetched Sluice blocks in, UnsafeRows in native memory or
// Arrow batches out.
//
// Spark's ShuffleBlockFetcherIterator hands the reader one block per map output: that output's
// bytes for the requested partitions, which are Arrow IPC streams back to back (one per
// non-empty partition). The JVM copies each block once, into a native buffer this reader lends
// it, and pushes it to the engine's PartitionReader (through a PushedBlockQueue): the same
// decoder, schema cache and decompression contexts as every other reader of Sluice. Each batch
// is converted straight into UnsafeRows (ColumnarToRowConverter) in a buffer the
// reader reuses. The JVM points one UnsafeRow at each row in turn, reading the offsets and sizes
// arrays in place: one JNI call per batch, none per row, no Arrow data crossing into the JVM.
//
// A reader made for batches (the columnar path) converts nothing: the engine's reader coalesces
// the decoded batches, and each is exported as an Arrow C Data array that the JVM's column
// vectors read in place until the next call.
#include <jni.h>

#include <memory>
#include <string>
#include <vector>

#include "jni_bridge.h"
#include "native_slots.h"
#include "sluice/base/aligned_buffer.h"
#include "sluice/format/c_data.h"
#include "sluice/read/partition_reader.h"
#include "sluice/read/pushed_block_queue.h"
#include "sluice/row/columnar_to_row_converter.h"
#include "sluice/row/spark_type.h"
#include "sluice/row/unsafe_row_batch.h"

namespace sluice::jni {
namespace {

/// The reduce side of one task: the queue of pushed blocks, the engine's reader over it, the
/// block the JVM is copying in, and the rows (or the exported array) of the last batch.
class ReduceReader {
 public:
  /// A reader of rows, or of Arrow batches when `batches`.
  static Result<std::unique_ptr<ReduceReader>> Make(const std::string& schema_text, bool batches) {
    SLUICE_ASSIGN_OR_RAISE(SchemaPtr schema, SchemaFromSparkCatalogString(schema_text));
    std::unique_ptr<ColumnarToRowConverter> converter;
    if (!batches) {
      SLUICE_ASSIGN_OR_RAISE(converter, ColumnarToRowConverter::Make(schema));
    }
    std::shared_ptr<PushedBlockQueue> queue = PushedBlockQueue::Make();
    PartitionReaderOptions options;
    // Spark knows the schema, so Open() reads nothing; compact segments may be compressed
    // against its Schema message.
    options.schema = std::move(schema);
    // Batches go straight to the row converter, which takes any size: joining them first would
    // copy every column once more for nothing (measured in DEVELOPING.md, "The Spark reduce
    // side on PartitionReader"). Batches handed to Spark are joined to the reader's target
    // size: a reduce task of 8,000 map outputs would otherwise see 8,000 small batches.
    options.coalesce = batches;
    SLUICE_ASSIGN_OR_RAISE(auto reader, PartitionReader::Open({queue}, std::move(options)));
    return std::unique_ptr<ReduceReader>(
        new ReduceReader(std::move(queue), std::move(reader), std::move(converter)));
  }

  ~ReduceReader() {
    ReleaseExported();
    queue_->Close();
  }

  /// Grows the buffer of the block being copied in to `capacity` bytes, keeping its first
  /// `kept` bytes (the part copied so far); returns where the JVM copies the block.
  Result<uint8_t*> ReserveBlock(int64_t kept, int64_t capacity) {
    if (filling_ == nullptr) filling_ = TakeFreeBuffer();
    if (kept < 0 || kept > filling_->capacity() || capacity < kept) {
      return Status::Invalid("ReserveBlock: keep ", kept, " of ", filling_->capacity(),
                             " bytes, grow to ", capacity);
    }
    filling_->Resize(kept);
    filling_->Reserve(capacity);
    return filling_->data();
  }

  /// Hands the first `size` bytes of the block buffer to the reader. `name` names the block in
  /// errors.
  Status PushBlock(int64_t size, std::string name) {
    const int64_t capacity = filling_ == nullptr ? 0 : filling_->capacity();
    if (size < 0 || size > capacity) {
      return Status::Invalid("PushBlock: ", size, " bytes, but the block buffer holds ", capacity);
    }
    if (size == 0) return Status::OK();
    filling_->Resize(size);
    SegmentBlock block;
    block.data = filling_->data();
    block.size = size;
    block.owner = filling_;  // decoded batches may view these bytes: they keep the buffer
    block.name = std::move(name);
    recycled_.push_back(std::move(filling_));
    return queue_->Push(std::move(block));
  }

  /// Tells the reader that every block has been pushed.
  void EndBlocks() { queue_->Close(); }

  /// Converts the next batch into rows. Returns its row count; kNeedsBlock when the next batch
  /// needs a block not pushed yet; kEnd after the last row of the last block.
  Result<int64_t> NextRows() {
    rows_.Clear();
    SLUICE_ASSIGN_OR_RAISE(const PartitionReader::Poll poll, reader_->TryNext(&batch_));
    switch (poll) {
      case PartitionReader::Poll::kNotReady:
        return kNeedsBlock;
      case PartitionReader::Poll::kEnd:
        return kEnd;
      case PartitionReader::Poll::kBatch:
        break;
    }
    SLUICE_RETURN_NOT_OK(converter_->Convert(batch_, 0, batch_.num_rows(), &rows_));
    return rows_.num_rows();
  }

  /// Exports the next batch as an Arrow C Data array (exported()), releasing the previous one.
  /// Returns its row count, kNeedsBlock or kEnd as NextRows does.
  Result<int64_t> NextBatch() {
    ReleaseExported();
    SLUICE_ASSIGN_OR_RAISE(const PartitionReader::Poll poll, reader_->TryNext(&batch_));
    switch (poll) {
      case PartitionReader::Poll::kNotReady:
        return kNeedsBlock;
      case PartitionReader::Poll::kEnd:
        return kEnd;
      case PartitionReader::Poll::kBatch:
        break;
    }
    SLUICE_RETURN_NOT_OK(ExportRecordBatch(batch_, &exported_));
    return batch_.num_rows();
  }

  /// The last batch NextBatch exported, valid until the next call.
  const ArrowArray* exported() const { return &exported_; }

  static constexpr int64_t kNeedsBlock = kReaderNeedsBlock;
  static constexpr int64_t kEnd = kReaderEnd;

  const UnsafeRowBatch& rows() const { return rows_; }
  PartitionReaderMetrics metrics() const { return reader_->metrics(); }

  /// Returns the native memory the reader holds: the engine reader's pools, the block buffers
  /// and the rows' buffers.
  int64_t held_bytes() const {
    int64_t held = reader_->metrics().pooled_bytes;
    if (filling_ != nullptr) held += filling_->capacity();
    for (const auto& buffer : recycled_) held += buffer->capacity();
    held += rows_.bytes.capacity();
    held += static_cast<int64_t>(rows_.offsets.capacity() * sizeof(int64_t) +
                                 rows_.sizes.capacity() * sizeof(int32_t));
    return held;
  }

 private:
  ReduceReader(std::shared_ptr<PushedBlockQueue> queue, std::unique_ptr<PartitionReader> reader,
               std::unique_ptr<ColumnarToRowConverter> converter)
      : queue_(std::move(queue)), reader_(std::move(reader)), converter_(std::move(converter)) {}

  /// Returns a block buffer no batch views any more (the largest such), or a new one. A task
  /// reads one block after another, so a few buffers, grown to its largest blocks, serve it.
  std::shared_ptr<AlignedBuffer> TakeFreeBuffer() {
    size_t best = recycled_.size();
    for (size_t i = 0; i < recycled_.size(); ++i) {
      if (recycled_[i].use_count() == 1 &&
          (best == recycled_.size() || recycled_[i]->capacity() > recycled_[best]->capacity())) {
        best = i;
      }
    }
    if (best == recycled_.size()) {
      // None free: forget those still viewed beyond a few (their last batch frees them).
      if (recycled_.size() >= kRecycledBuffers) recycled_.erase(recycled_.begin());
      return std::make_shared<AlignedBuffer>();
    }
    std::shared_ptr<AlignedBuffer> buffer = std::move(recycled_[best]);
    recycled_.erase(recycled_.begin() + static_cast<std::ptrdiff_t>(best));
    return buffer;
  }

  void ReleaseExported() {
    if (exported_.release != nullptr) exported_.release(&exported_);
  }

  static constexpr size_t kRecycledBuffers = 4;

  std::shared_ptr<PushedBlockQueue> queue_;
  std::unique_ptr<PartitionReader> reader_;
  std::unique_ptr<ColumnarToRowConverter> converter_;
  std::shared_ptr<AlignedBuffer> filling_;                // the block the JVM is copying in
  std::vector<std::shared_ptr<AlignedBuffer>> recycled_;  // pushed blocks' buffers, for reuse
  RecordBatch batch_;  // the last batch, handed back to the reader by the next TryNext
  UnsafeRowBatch rows_;
  ArrowArray exported_{};  // the last batch NextBatch exported (release null when none)
};

}  // namespace
}  // namespace sluice::jni

using sluice::jni::FromHandle;
using sluice::jni::ReduceReader;

extern "C" {

JNIEXPORT jlong JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_readerCreate(
    JNIEnv* env, jclass, jstring schema, jboolean batches) {
  jlong handle = 0;
  sluice::jni::Run(env, "readerCreate", [&] {
    SLUICE_ASSIGN_OR_RAISE(
        auto reader, ReduceReader::Make(sluice::jni::ToString(env, schema), batches == JNI_TRUE));
    handle = sluice::jni::ToHandle(reader.release());
    return sluice::Status::OK();
  });
  return handle;
}

/// Grows the block buffer to `capacity` bytes, keeping its first `kept`; returns its address.
JNIEXPORT jlong JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_readerReserveBlock(
    JNIEnv* env, jclass, jlong handle, jlong kept, jlong capacity) {
  auto* reader = FromHandle<ReduceReader>(handle);
  jlong address = 0;
  sluice::jni::Run(env, "readerReserveBlock", [&] {
    SLUICE_ASSIGN_OR_RAISE(uint8_t * data, reader->ReserveBlock(kept, capacity));
    address = static_cast<jlong>(reinterpret_cast<intptr_t>(data));
    return sluice::Status::OK();
  });
  return address;
}

/// Hands the first `length` bytes of the block buffer to the reader (named `name` in errors).
JNIEXPORT void JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_readerPushBlock(
    JNIEnv* env, jclass, jlong handle, jlong length, jstring name) {
  auto* reader = FromHandle<ReduceReader>(handle);
  sluice::jni::Run(env, "readerPushBlock",
                   [&] { return reader->PushBlock(length, sluice::jni::ToString(env, name)); });
}

/// Tells the reader that every block has been pushed.
JNIEXPORT void JNICALL
Java_org_apache_spark_shuffle_sluice_SluiceNative_readerEndBlocks(JNIEnv*, jclass, jlong handle) {
  FromHandle<ReduceReader>(handle)->EndBlocks();
}

/// Converts the next batch into rows. Returns the row count and fills out (the ROWS_* slots:
/// the rows' base address, their int64 offsets, their int32 sizes); READER_NEEDS_BLOCK when the
/// next batch needs a block not pushed yet; READER_END after the last row.
JNIEXPORT jint JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_readerNextRows(
    JNIEnv* env, jclass, jlong handle, jlongArray out) {
  auto* reader = FromHandle<ReduceReader>(handle);
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
      addresses[sluice::jni::kRowsHeldBytes] = reader->held_bytes();
      env->SetLongArrayRegion(out, 0, sluice::jni::kRowsSlots, addresses);
    }
    rows = static_cast<jint>(count);
    return sluice::Status::OK();
  });
  return rows;
}

/// Exports the next batch. Returns the row count and fills out (the BATCH_* slots: the address
/// of its ArrowArray, a struct array of the columns, valid until the next call, and the native
/// memory the reader holds); READER_NEEDS_BLOCK or READER_END as readerNextRows.
JNIEXPORT jint JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_readerNextBatch(
    JNIEnv* env, jclass, jlong handle, jlongArray out) {
  auto* reader = FromHandle<ReduceReader>(handle);
  jint rows = -1;
  sluice::jni::Run(env, "readerNextBatch", [&] {
    SLUICE_ASSIGN_OR_RAISE(const int64_t count, reader->NextBatch());
    if (count > 0) {
      jlong values[sluice::jni::kBatchSlots] = {};
      values[sluice::jni::kBatchArray] =
          static_cast<jlong>(reinterpret_cast<intptr_t>(reader->exported()));
      values[sluice::jni::kBatchHeldBytes] = reader->held_bytes();
      env->SetLongArrayRegion(out, 0, sluice::jni::kBatchSlots, values);
    }
    rows = static_cast<jint>(count);
    return sluice::Status::OK();
  });
  return rows;
}

/// Fills metrics (the READ_* slots).
JNIEXPORT void JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_readerMetrics(
    JNIEnv* env, jclass, jlong handle, jlongArray metrics) {
  const sluice::PartitionReaderMetrics m = FromHandle<ReduceReader>(handle)->metrics();
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
  delete FromHandle<ReduceReader>(handle);
}

}  // extern "C"
