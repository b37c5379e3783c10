// JNI entry points of the columnar map side: a MapWriter per map task, fed Spark column batches.
//
// The JVM copies each ColumnarBatch once, straight into Arrow buffers this writer lends it: it
// asks for the buffers of a batch in one call (their sizes, in the order of the Arrow C Data
// Interface, field by field in pre-order), fills them, and hands the batch over in a second call
// with each array's length and null count. The batch is assembled over those buffers without a
// copy, checked like any imported Arrow data (ValidateArray), and written by the engine's
// MapWriter, which computes Spark's partition ids natively and keeps the batch by reference until
// it gathers partitions (range partitioning: against Spark's sampled bounds, which the JVM hands
// over as UnsafeRows; round-robin after Spark's sort: through a SortedRoundRobinWriter, which
// ranks every row of the task first). Every call that may allocate returns the bytes the writer
// holds, so the JVM can charge exactly that to Spark's TaskMemoryManager.
#include <jni.h>

#include <memory>
#include <string>
#include <vector>

#include "jni_bridge.h"
#include "map_output_results.h"
#include "sluice/base/aligned_buffer.h"
#include "sluice/format/array_validate.h"
#include "sluice/format/record_batch.h"
#include "sluice/row/row_to_columnar_converter.h"
#include "sluice/row/sorted_round_robin_writer.h"
#include "sluice/row/spark_type.h"
#include "sluice/write/map_writer.h"
#include "sluice/write/map_writer_settings.h"

namespace sluice::jni {
namespace {

/// Buffers of one batch start at multiples of this, as Arrow recommends.
constexpr int64_t kBufferAlignment = 64;

int64_t AlignUp(int64_t bytes) {
  return (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

/// Walks a batch's arrays in pre-order, taking each array's (length, null count) from `nodes`
/// and its buffers, in Arrow's order, from `buffers`.
class BatchAssembly {
 public:
  BatchAssembly(const int64_t* nodes, int64_t node_count, const std::vector<BufferView>& buffers)
      : nodes_(nodes), node_count_(node_count), buffers_(buffers) {}

  Status Assemble(const DataType& type, ArrayData* out) {
    if (next_node_ >= node_count_) {
      return Status::Invalid("batchWriterWrite: ", node_count_, " arrays given, more needed");
    }
    out->type = &type;
    out->offset = 0;
    out->length = nodes_[2 * next_node_];
    out->null_count = nodes_[2 * next_node_ + 1];
    ++next_node_;
    const int count = BufferCount(type.id());
    if (count > 3) return Status::NotImplemented("batchWriterWrite: ", type.ToString());
    out->buffers = {};
    for (int i = 0; i < count; ++i) {
      if (next_buffer_ >= buffers_.size()) {
        return Status::Invalid("batchWriterWrite: ", buffers_.size(),
                               " buffers reserved, more needed for ", type.ToString());
      }
      out->buffers[static_cast<size_t>(i)] = buffers_[next_buffer_++];
    }
    out->children.resize(type.children().size());
    for (size_t i = 0; i < out->children.size(); ++i) {
      SLUICE_RETURN_NOT_OK(Assemble(type.child_type(i), &out->children[i]));
    }
    return Status::OK();
  }

  /// Fails unless every node and buffer was used.
  Status CheckAllUsed() const {
    if (next_node_ != node_count_ || next_buffer_ != buffers_.size()) {
      return Status::Invalid("batchWriterWrite: ", node_count_, " arrays and ", buffers_.size(),
                             " buffers given, the schema uses ", next_node_, " and ", next_buffer_);
    }
    return Status::OK();
  }

 private:
  const int64_t* nodes_;
  int64_t node_count_;
  const std::vector<BufferView>& buffers_;
  int64_t next_node_ = 0;
  size_t next_buffer_ = 0;
};

/// Converts Spark's range bounds, UnsafeRows of the key columns packed as [count, sizes, words],
/// into a batch of the key columns' types.
Result<RecordBatch> BoundsFromRows(const Schema& schema, const std::vector<int>& key_columns,
                                   const std::vector<int64_t>& packed) {
  if (packed.empty()) return Status::Invalid("range partitioning without bounds");
  const int64_t count = packed[0];
  if (count < 0 || count >= static_cast<int64_t>(packed.size())) {
    return Status::Invalid("range bounds: ", count, " rows in ", packed.size(), " words");
  }
  std::vector<Field> fields;
  for (int column : key_columns) {
    if (column < 0 || column >= static_cast<int>(schema.num_fields())) {
      return Status::Invalid("range bounds: no key column ", column);
    }
    fields.push_back(schema.field(static_cast<size_t>(column)));
  }
  SLUICE_ASSIGN_OR_RAISE(auto converter,
                         RowToColumnarConverter::Make(std::make_shared<Schema>(std::move(fields))));
  std::vector<const uint8_t*> rows;
  std::vector<int32_t> sizes;
  const auto* words = reinterpret_cast<const uint8_t*>(packed.data() + 1 + count);
  const int64_t word_bytes =
      static_cast<int64_t>(packed.size() - 1 - static_cast<size_t>(count)) * 8;
  int64_t at = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t size = packed[static_cast<size_t>(1 + i)];
    if (size < 8 || size % 8 != 0 || size > word_bytes - at) {
      return Status::Invalid("range bounds: row ", i, " of ", size, " bytes at byte ", at, " of ",
                             word_bytes);
    }
    rows.push_back(words + at);
    sizes.push_back(static_cast<int32_t>(size));
    at += size;
  }
  SLUICE_RETURN_NOT_OK(converter->Append(rows.data(), sizes.data(), count));
  return converter->Finish();
}

/// A map task of the columnar path: the engine's writer and the buffers of the batch the JVM is
/// filling.
class BatchWriter {
 public:
  /// `range_bounds` (range partitioning): Spark's bounds as UnsafeRows of the key columns, packed
  /// as [count, the count sizes in bytes, the rows' 8-byte words]; empty for other kinds.
  static Result<std::unique_ptr<BatchWriter>> Make(const std::string& schema_text,
                                                   const std::vector<std::string>& keys,
                                                   const std::vector<std::string>& values,
                                                   const std::string& data_path,
                                                   const std::vector<int64_t>& range_bounds) {
    MapWriterOptions options;
    SLUICE_ASSIGN_OR_RAISE(options.schema, SchemaFromSparkCatalogString(schema_text));
    // Spark's TaskMemoryManager is the budget: the JVM charges what the writer holds after each
    // batch and calls Spill() when it must give memory back.
    options.memory_limit = -1;
    if (keys.size() != values.size()) return Status::Invalid("settings: keys and values differ");
    for (size_t i = 0; i < keys.size(); ++i) {
      SLUICE_RETURN_NOT_OK(ApplyMapWriterSetting(&options, keys[i], values[i]));
    }
    if (options.partitioning.kind == PartitionKind::kRange) {
      SLUICE_ASSIGN_OR_RAISE(
          options.partitioning.range_bounds,
          BoundsFromRows(*options.schema, options.partitioning.key_columns, range_bounds));
    }
    options.data_path = data_path;
    // As for the row writer: Spark's IndexShuffleBlockResolver writes the index and checksum
    // files and renames the temporary data file it named into place.
    options.write_spark_files = false;
    options.write_in_place = true;
    SchemaPtr schema = options.schema;
    auto batch_writer = std::unique_ptr<BatchWriter>(new BatchWriter(std::move(schema)));
    if (options.partitioning.kind == PartitionKind::kRoundRobin &&
        options.partitioning.round_robin_mode == RoundRobinMode::kSparkSorted) {
      SLUICE_ASSIGN_OR_RAISE(batch_writer->sorted_,
                             SortedRoundRobinWriter::Make(std::move(options)));
    } else {
      SLUICE_ASSIGN_OR_RAISE(batch_writer->writer_, MapWriter::Make(std::move(options)));
    }
    return batch_writer;
  }

  /// Allocates the buffers of the next batch, `sizes` bytes each (0: an absent buffer), and
  /// writes their addresses (0 for absent ones) to `addresses`.
  Status Reserve(const int64_t* sizes, int64_t count, int64_t* addresses) {
    int64_t total = 0;
    for (int64_t i = 0; i < count; ++i) {
      if (sizes[i] < 0) return Status::Invalid("batchWriterReserve: buffer of ", sizes[i]);
      total += AlignUp(sizes[i]);
    }
    auto storage = std::make_shared<AlignedBuffer>();
    storage->Resize(total);
    pending_buffers_.clear();
    int64_t at = 0;
    for (int64_t i = 0; i < count; ++i) {
      BufferView view;
      if (sizes[i] > 0) view = BufferView{storage->data() + at, sizes[i]};
      pending_buffers_.push_back(view);
      addresses[i] = static_cast<int64_t>(reinterpret_cast<intptr_t>(view.data));
      at += AlignUp(sizes[i]);
    }
    pending_ = std::move(storage);
    return Status::OK();
  }

  /// Writes the batch of `num_rows` rows over the reserved buffers; `nodes` holds (length, null
  /// count) for each array in pre-order. `partition_ids` (given partitioning: Spark computed
  /// them) holds each row's partition, or is null where the writer computes them.
  Status Write(int64_t num_rows, const int64_t* nodes, int64_t node_count,
               const uint32_t* partition_ids) {
    if (pending_ == nullptr) return Status::Invalid("batchWriterWrite: no buffers reserved");
    BatchAssembly assembly(nodes, node_count, pending_buffers_);
    std::vector<ArrayData> columns(schema_->num_fields());
    for (size_t i = 0; i < columns.size(); ++i) {
      const Field& field = schema_->field(i);
      SLUICE_RETURN_NOT_OK(assembly.Assemble(*field.type, &columns[i]));
      if (columns[i].length != num_rows) {
        return Status::Invalid("batchWriterWrite: column ", field.name, " has ", columns[i].length,
                               " rows, the batch ", num_rows);
      }
      SLUICE_RETURN_NOT_OK(ValidateArray(columns[i], field.name));
    }
    SLUICE_RETURN_NOT_OK(assembly.CheckAllUsed());
    RecordBatch batch(schema_, num_rows, std::move(columns), {std::move(pending_)});
    pending_buffers_.clear();
    if (sorted_ != nullptr) {
      if (partition_ids != nullptr) {
        return Status::Invalid("batchWriterWrite: partition ids given to a sorted round-robin");
      }
      return sorted_->Write(batch);
    }
    return partition_ids == nullptr ? writer_->Write(batch) : writer_->Write(batch, partition_ids);
  }

  Status Spill() { return sorted_ != nullptr ? sorted_->Spill() : writer_->Spill(); }
  Result<MapOutput> Finish() { return sorted_ != nullptr ? sorted_->Finish() : writer_->Finish(); }
  void Abort() {
    if (sorted_ != nullptr) {
      sorted_->Abort();
    } else {
      writer_->Abort();
    }
  }

  /// The bytes held: the engine writer's and the batch being filled.
  int64_t held_bytes() const {
    return (sorted_ != nullptr ? sorted_->held_bytes() : writer_->held_bytes()) +
           (pending_ == nullptr ? 0 : pending_->capacity());
  }

 private:
  explicit BatchWriter(SchemaPtr schema) : schema_(std::move(schema)) {}

  SchemaPtr schema_;
  // One of the two: Spark's round-robin after its sort ranks every row before placing any.
  std::unique_ptr<MapWriter> writer_;
  std::unique_ptr<SortedRoundRobinWriter> sorted_;
  std::shared_ptr<AlignedBuffer> pending_;
  std::vector<BufferView> pending_buffers_;
};

}  // namespace
}  // namespace sluice::jni

using sluice::jni::BatchWriter;
using sluice::jni::FromHandle;

extern "C" {

JNIEXPORT jlong JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_batchWriterCreate(
    JNIEnv* env, jclass, jstring schema, jobjectArray keys, jobjectArray values, jstring data_path,
    jlongArray range_bounds) {
  jlong handle = 0;
  sluice::jni::Run(env, "batchWriterCreate", [&] {
    std::vector<int64_t> bounds(static_cast<size_t>(env->GetArrayLength(range_bounds)));
    env->GetLongArrayRegion(range_bounds, 0, static_cast<jsize>(bounds.size()),
                            reinterpret_cast<jlong*>(bounds.data()));
    SLUICE_ASSIGN_OR_RAISE(
        auto writer,
        BatchWriter::Make(sluice::jni::ToString(env, schema), sluice::jni::ToStrings(env, keys),
                          sluice::jni::ToStrings(env, values),
                          sluice::jni::ToString(env, data_path), bounds));
    handle = sluice::jni::ToHandle(writer.release());
    return sluice::Status::OK();
  });
  return handle;
}

/// Allocates the next batch's buffers (sizes in `buffer_bytes`), fills `addresses`; returns the
/// bytes held after.
JNIEXPORT jlong JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_batchWriterReserve(
    JNIEnv* env, jclass, jlong handle, jlongArray buffer_bytes, jlongArray addresses) {
  auto* writer = FromHandle<BatchWriter>(handle);
  jlong held = -1;
  sluice::jni::Run(env, "batchWriterReserve", [&] {
    const jsize count = env->GetArrayLength(buffer_bytes);
    if (env->GetArrayLength(addresses) < count) {
      return sluice::Status::Invalid("batchWriterReserve: ", count, " buffers, ",
                                     env->GetArrayLength(addresses), " address slots");
    }
    std::vector<jlong> sizes(static_cast<size_t>(count));
    std::vector<jlong> out(static_cast<size_t>(count));
    env->GetLongArrayRegion(buffer_bytes, 0, count, sizes.data());
    SLUICE_RETURN_NOT_OK(writer->Reserve(reinterpret_cast<const int64_t*>(sizes.data()), count,
                                         reinterpret_cast<int64_t*>(out.data())));
    env->SetLongArrayRegion(addresses, 0, count, out.data());
    held = writer->held_bytes();
    return sluice::Status::OK();
  });
  return held;
}

/// Writes the batch the JVM filled; `nodes` holds (length, null count) per array in pre-order;
/// `partition_ids`, null unless the partitioning is given, each row's partition from Spark.
/// Returns the bytes held after.
JNIEXPORT jlong JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_batchWriterWrite(
    JNIEnv* env, jclass, jlong handle, jint rows, jlongArray nodes, jintArray partition_ids) {
  auto* writer = FromHandle<BatchWriter>(handle);
  jlong held = -1;
  sluice::jni::Run(env, "batchWriterWrite", [&] {
    const jsize values = env->GetArrayLength(nodes);
    std::vector<jlong> node_values(static_cast<size_t>(values));
    env->GetLongArrayRegion(nodes, 0, values, node_values.data());
    std::vector<uint32_t> ids;
    if (partition_ids != nullptr) {
      const jsize length = env->GetArrayLength(partition_ids);
      if (rows < 0 || length < rows) {
        return sluice::Status::Invalid("batchWriterWrite: ", length, " partition ids for ", rows,
                                       " rows");
      }
      ids.resize(static_cast<size_t>(rows));
      if (rows > 0) {
        env->GetIntArrayRegion(partition_ids, 0, rows, reinterpret_cast<jint*>(ids.data()));
      }
    }
    SLUICE_RETURN_NOT_OK(writer->Write(rows, reinterpret_cast<const int64_t*>(node_values.data()),
                                       values / 2,
                                       partition_ids == nullptr ? nullptr : ids.data()));
    held = writer->held_bytes();
    return sluice::Status::OK();
  });
  return held;
}

/// Spills every batch held; returns the bytes held after.
JNIEXPORT jlong JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_batchWriterSpill(
    JNIEnv* env, jclass, jlong handle) {
  auto* writer = FromHandle<BatchWriter>(handle);
  jlong held = -1;
  sluice::jni::Run(env, "batchWriterSpill", [&] {
    SLUICE_RETURN_NOT_OK(writer->Spill());
    held = writer->held_bytes();
    return sluice::Status::OK();
  });
  return held;
}

JNIEXPORT jlong JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_batchWriterHeldBytes(
    JNIEnv*, jclass, jlong handle) {
  return FromHandle<BatchWriter>(handle)->held_bytes();
}

/// Writes and commits the data file; fills lengths, checksums and metrics as writerFinish does.
JNIEXPORT void JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_batchWriterFinish(
    JNIEnv* env, jclass, jlong handle, jlongArray lengths, jlongArray checksums,
    jlongArray metrics) {
  auto* writer = FromHandle<BatchWriter>(handle);
  sluice::jni::Run(env, "batchWriterFinish", [&] {
    SLUICE_ASSIGN_OR_RAISE(sluice::MapOutput output, writer->Finish());
    return sluice::jni::ReturnMapOutput(env, output, lengths, checksums, metrics);
  });
}

/// Aborts (unless finished: a committed file stays) and frees the writer. Called once.
JNIEXPORT void JNICALL
Java_org_apache_spark_shuffle_sluice_SluiceNative_batchWriterClose(JNIEnv*, jclass, jlong handle) {
  auto* writer = FromHandle<BatchWriter>(handle);
  writer->Abort();
  delete writer;
}

}  // extern "C"
