// JNI entry points of the map side: a RowMapWriter per map task.
//
// The JVM copies each UnsafeRow into a native page itself (Platform.copyMemory after an 8-byte
// size) and hands over the packed pointers of a page in one call, so a row never crosses the
// boundary on its own. Every call that may allocate returns the bytes the writer holds, so the
// JVM can charge exactly that to Spark's TaskMemoryManager.
#include <jni.h>

#include <memory>
#include <string>
#include <vector>

#include "jni_bridge.h"
#include "map_output_results.h"
#include "native_slots.h"
#include "sluice/row/row_map_writer.h"
#include "sluice/row/spark_type.h"

namespace sluice::jni {
namespace {

Result<std::unique_ptr<RowMapWriter>> MakeWriter(const std::string& schema_text,
                                                 int32_t partition_count,
                                                 const std::vector<std::string>& keys,
                                                 const std::vector<std::string>& values,
                                                 const std::string& data_path) {
  RowMapWriterOptions options;
  SLUICE_ASSIGN_OR_RAISE(options.writer.schema, SchemaFromSparkCatalogString(schema_text));
  options.writer.partitioning.partition_count = partition_count;
  // Spark's TaskMemoryManager is the budget: the JVM acquires memory before each page and
  // calls Spill() when it must give memory back, so the writer's own budget never limits.
  options.writer.memory_limit = -1;
  if (keys.size() != values.size()) return Status::Invalid("settings: keys and values differ");
  for (size_t i = 0; i < keys.size(); ++i) {
    SLUICE_RETURN_NOT_OK(ApplyRowMapWriterSetting(&options, keys[i], values[i]));
  }
  options.writer.data_path = data_path;
  // Spark's IndexShuffleBlockResolver writes the index and checksum files and renames the
  // temporary data file it named into place: the writer writes that file itself.
  options.writer.write_spark_files = false;
  options.writer.write_in_place = true;
  return RowMapWriter::Make(std::move(options));
}

}  // namespace
}  // namespace sluice::jni

using sluice::RowMapWriter;
using sluice::jni::FromHandle;

extern "C" {

JNIEXPORT jlong JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_writerCreate(
    JNIEnv* env, jclass, jstring schema, jint partition_count, jobjectArray keys,
    jobjectArray values, jstring data_path) {
  jlong handle = 0;
  sluice::jni::Run(env, "writerCreate", [&] {
    SLUICE_ASSIGN_OR_RAISE(
        auto writer, sluice::jni::MakeWriter(sluice::jni::ToString(env, schema), partition_count,
                                             sluice::jni::ToStrings(env, keys),
                                             sluice::jni::ToStrings(env, values),
                                             sluice::jni::ToString(env, data_path)));
    handle = sluice::jni::ToHandle(writer.release());
    return sluice::Status::OK();
  });
  return handle;
}

/// Returns the size of the next page for a row of `min_bytes` (see RowMapWriter::NextPageBytes).
JNIEXPORT jlong JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_writerNextPageBytes(
    JNIEnv*, jclass, jlong handle, jlong min_bytes) {
  return FromHandle<RowMapWriter>(handle)->NextPageBytes(min_bytes);
}

/// Returns a new page in page_out (the PAGE_* slots) and the bytes held after it.
JNIEXPORT jlong JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_writerNewPage(
    JNIEnv* env, jclass, jlong handle, jlong min_bytes, jlongArray page_out) {
  auto* writer = FromHandle<RowMapWriter>(handle);
  jlong held = -1;
  sluice::jni::Run(env, "writerNewPage", [&] {
    SLUICE_ASSIGN_OR_RAISE(RowMapWriter::Page page, writer->NewPage(min_bytes));
    jlong fields[sluice::jni::kPageSlots] = {};
    fields[sluice::jni::kPageNumber] = static_cast<jlong>(page.number);
    fields[sluice::jni::kPageAddress] = static_cast<jlong>(reinterpret_cast<intptr_t>(page.data));
    fields[sluice::jni::kPageCapacity] = static_cast<jlong>(page.capacity);
    env->SetLongArrayRegion(page_out, 0, sluice::jni::kPageSlots, fields);
    held = writer->held_bytes();
    return sluice::Status::OK();
  });
  return held;
}

/// Records `count` packed pointers of `pointers`; returns the bytes held after.
JNIEXPORT jlong JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_writerAddPointers(
    JNIEnv* env, jclass, jlong handle, jlongArray pointers, jint count) {
  auto* writer = FromHandle<RowMapWriter>(handle);
  if (count < 0 || count > env->GetArrayLength(pointers)) {
    sluice::jni::ThrowStatus(
        env, sluice::Status::Invalid("AddPointers: count ", count, " outside the pointer array"));
    return -1;
  }
  // Critical access: no copy of the array; the writer only reads it and calls no JNI.
  void* elements = env->GetPrimitiveArrayCritical(pointers, nullptr);
  if (elements == nullptr) return -1;  // OutOfMemoryError is pending
  const sluice::Status status = sluice::GuardFailures("writerAddPointers", [&] {
    return writer->AddPointers(static_cast<const uint64_t*>(elements), static_cast<int64_t>(count));
  });
  env->ReleasePrimitiveArrayCritical(pointers, elements, JNI_ABORT);
  if (!status.ok()) {
    sluice::jni::ThrowStatus(env, status);
    return -1;
  }
  return writer->held_bytes();
}

/// Spills every row held; returns the bytes released.
JNIEXPORT jlong JNICALL
Java_org_apache_spark_shuffle_sluice_SluiceNative_writerSpill(JNIEnv* env, jclass, jlong handle) {
  jlong released = -1;
  sluice::jni::Run(env, "writerSpill", [&] {
    SLUICE_ASSIGN_OR_RAISE(released, FromHandle<RowMapWriter>(handle)->Spill());
    return sluice::Status::OK();
  });
  return released;
}

JNIEXPORT jlong JNICALL
Java_org_apache_spark_shuffle_sluice_SluiceNative_writerHeldBytes(JNIEnv*, jclass, jlong handle) {
  return FromHandle<RowMapWriter>(handle)->held_bytes();
}

/// Writes and commits the data file. Fills lengths (P), checksums (P, or untouched without a
/// checksum) and metrics (the WRITE_* slots).
JNIEXPORT void JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_writerFinish(
    JNIEnv* env, jclass, jlong handle, jlongArray lengths, jlongArray checksums,
    jlongArray metrics) {
  auto* writer = FromHandle<RowMapWriter>(handle);
  sluice::jni::Run(env, "writerFinish", [&] {
    SLUICE_ASSIGN_OR_RAISE(sluice::MapOutput output, writer->Finish());
    return sluice::jni::ReturnMapOutput(env, output, lengths, checksums, metrics);
  });
}

/// Aborts (unless finished: a committed file stays) and frees the writer. Called once.
JNIEXPORT void JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_writerClose(JNIEnv*,
                                                                                     jclass,
                                                                                     jlong handle) {
  auto* writer = FromHandle<RowMapWriter>(handle);
  writer->Abort();
  delete writer;
}

}  // extern "C"
