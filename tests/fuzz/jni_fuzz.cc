// Fuzzes the JNI entry points of the Spark plugin as the JVM calls them, through a JNIEnv of this
// harness's own (strings, long[] and String[] are plain C++ objects behind the handles): schema
// checks, a map task (pages filled with rows, packed pointers, spills, finish, close), in the
// columnar mode a map task of column batches (buffers reserved and filled, arrays of lengths and
// null counts from the input, which the writer must check), and a reduce task (blocks copied into
// the reserved buffer, decoded into rows, which the harness reads as the JVM's UnsafeRow would, or
// exported as Arrow batches, which the harness imports and validates). Arguments come from the
// input, right or wrong. Every call must return or throw a SluiceException (here: a recorded
// pending exception), never crash, leak or read out of bounds; rows handed back must lie inside
// the reader's buffers.
//
// Input layout: byte 0 picks a schema (value % (kSchemas + 1): one of kSchemas, or, at kSchemas,
// a catalog string taken from the input) and the mode (value / (kSchemas + 1) odd: columnar),
// byte 1 the partition count - 1; then operations, each an opcode byte and its operands (see
// below); the reduce side's blocks are the input's remaining bytes.
#include <jni.h>
#include <org_apache_spark_shuffle_sluice_SluiceNative.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "sluice/format/array_validate.h"
#include "sluice/format/c_data.h"
#include "sluice/row/spark_type.h"

namespace {

// --- a JNIEnv of plain objects ----------------------------------------------------------------

struct FakeObject {
  virtual ~FakeObject() = default;
};
struct FakeString : FakeObject {
  std::string text;
};
struct FakeLongArray : FakeObject {
  std::vector<jlong> values;
};
struct FakeIntArray : FakeObject {
  std::vector<jint> values;
};
struct FakeObjectArray : FakeObject {
  std::vector<jobject> elements;
};

FakeObject* Unwrap(jobject object) {
  return reinterpret_cast<FakeObject*>(object);
}
template <typename T>
T* As(jobject object) {
  return dynamic_cast<T*>(Unwrap(object));
}

std::string pending_exception;  // the message of the exception thrown, "" when none
std::vector<std::unique_ptr<FakeObject>> created;  // objects the library made (NewStringUTF)

jclass JNICALL FindClass(JNIEnv*, const char*) {
  static FakeObject exception_class;
  return reinterpret_cast<jclass>(&exception_class);
}
jint JNICALL ThrowNew(JNIEnv*, jclass, const char* message) {
  pending_exception = message != nullptr && *message != '\0' ? message : "(empty)";
  // JNI_FUZZ_PRINT=1 prints each exception: which step of a seed failed.
  if (std::getenv("JNI_FUZZ_PRINT") != nullptr) std::fprintf(stderr, "exception: %s\n", message);
  return 0;
}
jboolean JNICALL ExceptionCheck(JNIEnv*) {
  return pending_exception.empty() ? JNI_FALSE : JNI_TRUE;
}
void JNICALL DeleteLocalRef(JNIEnv*, jobject) {}
jstring JNICALL NewStringUTF(JNIEnv*, const char* text) {
  auto string = std::make_unique<FakeString>();
  string->text = text;
  created.push_back(std::move(string));
  return reinterpret_cast<jstring>(created.back().get());
}
const char* JNICALL GetStringUTFChars(JNIEnv*, jstring text, jboolean* copy) {
  if (copy != nullptr) *copy = JNI_FALSE;
  return As<FakeString>(text)->text.c_str();
}
void JNICALL ReleaseStringUTFChars(JNIEnv*, jstring, const char*) {}
jsize JNICALL GetArrayLength(JNIEnv*, jarray array) {
  if (auto* longs = As<FakeLongArray>(array)) return static_cast<jsize>(longs->values.size());
  if (auto* ints = As<FakeIntArray>(array)) return static_cast<jsize>(ints->values.size());
  return static_cast<jsize>(As<FakeObjectArray>(array)->elements.size());
}
jobject JNICALL GetObjectArrayElement(JNIEnv*, jobjectArray array, jsize index) {
  return As<FakeObjectArray>(array)->elements.at(static_cast<size_t>(index));
}
void JNICALL SetLongArrayRegion(JNIEnv*, jlongArray array, jsize start, jsize length,
                                const jlong* values) {
  auto& target = As<FakeLongArray>(array)->values;
  if (start < 0 || length < 0 || static_cast<size_t>(start) + length > target.size()) {
    std::abort();  // the JVM would throw ArrayIndexOutOfBoundsException: a library bug
  }
  if (length > 0) {  // an empty region may come with a null pointer, which memcpy must not see
    std::memcpy(target.data() + start, values, static_cast<size_t>(length) * sizeof(jlong));
  }
}
void JNICALL GetLongArrayRegion(JNIEnv*, jlongArray array, jsize start, jsize length,
                                jlong* values) {
  const auto& source = As<FakeLongArray>(array)->values;
  if (start < 0 || length < 0 || static_cast<size_t>(start) + length > source.size()) {
    std::abort();  // the JVM would throw ArrayIndexOutOfBoundsException: a library bug
  }
  if (length > 0) {
    std::memcpy(values, source.data() + start, static_cast<size_t>(length) * sizeof(jlong));
  }
}
void JNICALL GetIntArrayRegion(JNIEnv*, jintArray array, jsize start, jsize length, jint* values) {
  const auto& source = As<FakeIntArray>(array)->values;
  if (start < 0 || length < 0 || static_cast<size_t>(start) + length > source.size()) {
    std::abort();  // the JVM would throw ArrayIndexOutOfBoundsException: a library bug
  }
  if (length > 0) {
    std::memcpy(values, source.data() + start, static_cast<size_t>(length) * sizeof(jint));
  }
}
void* JNICALL GetPrimitiveArrayCritical(JNIEnv*, jarray array, jboolean* copy) {
  if (copy != nullptr) *copy = JNI_FALSE;
  return As<FakeLongArray>(array)->values.data();
}
void JNICALL ReleasePrimitiveArrayCritical(JNIEnv*, jarray, void*, jint) {}

JNIEnv* Environment() {
  static JNINativeInterface_ functions = [] {
    JNINativeInterface_ table;
    std::memset(&table, 0, sizeof(table));
    table.FindClass = FindClass;
    table.ThrowNew = ThrowNew;
    table.ExceptionCheck = ExceptionCheck;
    table.DeleteLocalRef = DeleteLocalRef;
    table.NewStringUTF = NewStringUTF;
    table.GetStringUTFChars = GetStringUTFChars;
    table.ReleaseStringUTFChars = ReleaseStringUTFChars;
    table.GetArrayLength = GetArrayLength;
    table.GetObjectArrayElement = GetObjectArrayElement;
    table.SetLongArrayRegion = SetLongArrayRegion;
    table.GetIntArrayRegion = GetIntArrayRegion;
    table.GetLongArrayRegion = GetLongArrayRegion;
    table.GetPrimitiveArrayCritical = GetPrimitiveArrayCritical;
    table.ReleasePrimitiveArrayCritical = ReleasePrimitiveArrayCritical;
    return table;
  }();
  static JNIEnv env{&functions};
  return &env;
}

jstring String(std::vector<std::unique_ptr<FakeObject>>& owned, std::string text) {
  auto string = std::make_unique<FakeString>();
  string->text = std::move(text);
  owned.push_back(std::move(string));
  return reinterpret_cast<jstring>(owned.back().get());
}

jlongArray Longs(std::vector<std::unique_ptr<FakeObject>>& owned, size_t count) {
  auto array = std::make_unique<FakeLongArray>();
  array->values.assign(count, 0);
  owned.push_back(std::move(array));
  return reinterpret_cast<jlongArray>(owned.back().get());
}

jobjectArray Strings(std::vector<std::unique_ptr<FakeObject>>& owned,
                     const std::vector<std::string>& texts) {
  auto array = std::make_unique<FakeObjectArray>();
  for (const std::string& text : texts) array->elements.push_back(String(owned, text));
  owned.push_back(std::move(array));
  return reinterpret_cast<jobjectArray>(owned.back().get());
}

const char* const kSchemas[] = {
    "struct<c0:bigint,c1:string>",
    "struct<c0:int,c1:double,c2:decimal(15,2),c3:date,c4:timestamp,c5:binary>",
    "struct<c0:array<string>,c1:map<int,struct<a:bigint,b:string>>>",
    "struct<>",
    "struct<c0:interval year to month,c1:array<interval day to second>,c2:time(6)>",
};
constexpr size_t kSchemaCount = sizeof(kSchemas) / sizeof(kSchemas[0]);

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return position_ < size_ ? data_[position_++] : 0; }
  uint32_t Word() { return Byte() | (Byte() << 8) | (Byte() << 16) | (uint32_t{Byte()} << 24); }
  const uint8_t* Take(size_t* count) {
    *count = std::min(*count, size_ - position_);
    const uint8_t* at = data_ + position_;
    position_ += *count;
    return at;
  }
  bool done() const { return position_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

const std::string& Directory() {
  static const std::string* directory = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "jni-fuzz-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    return new std::string(pattern);
  }();
  static const int registered = std::atexit([] {
    std::error_code ignored;
    std::filesystem::remove_all(*directory, ignored);
  });
  (void)registered;
  return *directory;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  JNIEnv* env = Environment();
  std::vector<std::unique_ptr<FakeObject>> owned;
  Input input(data, size);
  pending_exception.clear();
  created.clear();

  // The schema: one of the table's, or text from the input.
  const uint8_t schema_choice = input.Byte();
  std::string schema_text;
  if (schema_choice % (kSchemaCount + 1) < kSchemaCount) {
    schema_text = kSchemas[schema_choice % (kSchemaCount + 1)];
  } else {
    size_t length = input.Byte();
    const uint8_t* text = input.Take(&length);
    schema_text.assign(reinterpret_cast<const char*>(text), length);
    schema_text = schema_text.c_str();  // a Java string has no NUL inside its UTF-8 form here
  }
  const bool columnar = (schema_choice / (kSchemaCount + 1)) % 2 == 1;
  const jint partitions = 1 + input.Byte();
  const jstring schema = String(owned, schema_text);
  Java_org_apache_spark_shuffle_sluice_SluiceNative_checkSchema(env, nullptr, schema);
  pending_exception.clear();

  // A map task.
  const std::string data_path = Directory() + "/map.data";
  const jlong writer = Java_org_apache_spark_shuffle_sluice_SluiceNative_writerCreate(
      env, nullptr, schema, partitions,
      Strings(owned, {"codec", "page-bytes", "block-rows", "checksum"}),
      Strings(owned, {"lz4", "8KiB", "16", "adler32"}), String(owned, data_path));
  if (writer != 0) {
    const jlongArray page = Longs(owned, 3);
    auto& page_values = As<FakeLongArray>(reinterpret_cast<jobject>(page))->values;
    const jlongArray pointers = Longs(owned, 64);
    auto& pointer_values = As<FakeLongArray>(reinterpret_cast<jobject>(pointers))->values;
    int64_t page_number = -1;
    uint8_t* page_base = nullptr;
    int64_t page_capacity = 0;
    int64_t cursor = 0;
    size_t count = 0;
    bool finished = false;
    // As in the JVM, an exception ends the task: the writer is only closed after it (a failed
    // writer has freed its pages, which the task must not touch again).
    for (int step = 0; step < 64 && !input.done() && !finished && pending_exception.empty();
         ++step) {
      switch (input.Byte() % 6) {
        case 0: {  // a page of at least N bytes
          const jlong wanted = input.Word() % (1 << 16);
          Java_org_apache_spark_shuffle_sluice_SluiceNative_writerNextPageBytes(env, nullptr,
                                                                                writer, wanted);
          if (Java_org_apache_spark_shuffle_sluice_SluiceNative_writerNewPage(env, nullptr, writer,
                                                                              wanted, page) >= 0 &&
              pending_exception.empty()) {
            page_number = page_values[0];
            page_base = reinterpret_cast<uint8_t*>(static_cast<intptr_t>(page_values[1]));
            page_capacity = page_values[2];
            cursor = 0;
          }
          break;
        }
        case 1: {  // a row copied into the page, as the JVM does: size, then the bytes
          size_t row_bytes = (input.Byte() % 16) * 8;
          const uint8_t* row = input.Take(&row_bytes);
          row_bytes &= ~size_t{7};
          if (page_base == nullptr ||
              cursor + 8 + static_cast<int64_t>(row_bytes) > page_capacity ||
              count == pointer_values.size()) {
            break;
          }
          const int64_t prefix = static_cast<int64_t>(row_bytes);
          std::memcpy(page_base + cursor, &prefix, 8);
          std::memcpy(page_base + cursor + 8, row, row_bytes);
          const uint64_t partition = input.Byte() % (partitions + 1);  // sometimes out of range
          pointer_values[count++] =
              static_cast<jlong>((partition << 40) | (static_cast<uint64_t>(page_number) << 27) |
                                 static_cast<uint64_t>(cursor));
          cursor += 8 + prefix;
          break;
        }
        case 2: {  // a pointer from the input
          if (count < pointer_values.size()) pointer_values[count++] = input.Word() * 7919LL;
          break;
        }
        case 3: {  // hand the pointers over (a wrong count now and then)
          const jint handed =
              (input.Byte() & 0x80) ? static_cast<jint>(count) + 1 : static_cast<jint>(count);
          Java_org_apache_spark_shuffle_sluice_SluiceNative_writerAddPointers(env, nullptr, writer,
                                                                              pointers, handed);
          count = 0;
          break;
        }
        case 4:
          Java_org_apache_spark_shuffle_sluice_SluiceNative_writerSpill(env, nullptr, writer);
          Java_org_apache_spark_shuffle_sluice_SluiceNative_writerHeldBytes(env, nullptr, writer);
          page_base = nullptr;  // every page is gone
          break;
        default: {
          const size_t lengths = (input.Byte() & 1) ? static_cast<size_t>(partitions)
                                                    : static_cast<size_t>(partitions) + 1;
          Java_org_apache_spark_shuffle_sluice_SluiceNative_writerFinish(
              env, nullptr, writer, Longs(owned, lengths), Longs(owned, partitions),
              Longs(owned, 7));
          finished = true;
          break;
        }
      }
    }
    Java_org_apache_spark_shuffle_sluice_SluiceNative_writerClose(env, nullptr, writer);
    std::error_code ignored;
    std::filesystem::remove(data_path, ignored);
  }
  pending_exception.clear();

  // A map task of the columnar path: batches whose buffers and arrays come from the input.
  if (columnar) {
    // Mode 0: hash partitioning; 1 to 6: range partitioning on column 0 with that many words of
    // bounds (packed UnsafeRows) from the input, right or wrong; 7: partition ids given with
    // each batch, as Spark computes them for expression keys, right or wrong; 8: round-robin
    // after Spark's sort (rows ranked by their UnsafeRows' hash), the map id from the input.
    const uint8_t mode = input.Byte() % 9;
    const bool given = mode == 7;
    const bool sorted_round_robin = mode == 8;
    const uint8_t bounds_words = given || sorted_round_robin ? 0 : mode;
    const jlongArray bounds = Longs(owned, bounds_words);
    for (auto& word : As<FakeLongArray>(reinterpret_cast<jobject>(bounds))->values) {
      word = static_cast<jlong>(input.Word()) - 8;
    }
    const bool range = bounds_words > 0;
    const auto& bound_values = As<FakeLongArray>(reinterpret_cast<jobject>(bounds))->values;
    // Range: one partition more than the bounds claim (a writer with another count refuses).
    const jlong writer_partitions =
        range ? 1 + std::clamp<jlong>(bound_values[0], 0, 1 << 16) : partitions;
    std::vector<std::string> keys = {"codec", "block-rows", "partitioning", "partitions"};
    std::vector<std::string> values = {"lz4", "16",
                                       given                ? "given"
                                       : range              ? "range"
                                       : sorted_round_robin ? "round-robin"
                                                            : "hash",
                                       std::to_string(writer_partitions)};
    if (sorted_round_robin) {
      keys.insert(keys.end(), {"round-robin-mode", "map-id"});
      values.insert(values.end(), {"spark-sorted", std::to_string(input.Byte())});
    } else if (!given) {
      keys.insert(keys.end(), {"keys", "sort-orders"});
      values.insert(values.end(), {"0", "desc nulls last"});
    }
    const jlong batch_writer = Java_org_apache_spark_shuffle_sluice_SluiceNative_batchWriterCreate(
        env, nullptr, schema, Strings(owned, keys), Strings(owned, values),
        String(owned, data_path), bounds);
    if (batch_writer != 0) {
      for (int batch = 0; batch < 4 && !input.done() && pending_exception.empty(); ++batch) {
        const uint8_t buffers_byte = input.Byte();
        if (buffers_byte == 0xFF) break;  // no more batches
        const size_t buffer_count = buffers_byte % 12;
        const jlongArray sizes = Longs(owned, buffer_count);
        auto& size_values = As<FakeLongArray>(reinterpret_cast<jobject>(sizes))->values;
        for (auto& size : size_values) size = input.Word() % 2048;
        const jlongArray addresses = Longs(owned, buffer_count);
        Java_org_apache_spark_shuffle_sluice_SluiceNative_batchWriterReserve(
            env, nullptr, batch_writer, sizes, addresses);
        if (!pending_exception.empty()) break;
        // The buffers filled with the input's bytes, as the JVM's copy would fill them.
        for (size_t i = 0; i < buffer_count; ++i) {
          size_t length = static_cast<size_t>(size_values[i]);
          const uint8_t* bytes = input.Take(&length);
          auto* target = reinterpret_cast<uint8_t*>(static_cast<intptr_t>(
              As<FakeLongArray>(reinterpret_cast<jobject>(addresses))->values[i]));
          if (target != nullptr) std::memcpy(target, bytes, length);
        }
        const size_t node_count = input.Byte() % 8;
        const jlongArray nodes = Longs(owned, 2 * node_count);
        for (auto& value : As<FakeLongArray>(reinterpret_cast<jobject>(nodes))->values) {
          value = static_cast<jlong>(input.Word() % 512) - 4;  // now and then negative
        }
        const jint rows = static_cast<jint>(input.Word() % 512);
        jintArray ids = nullptr;
        if (given) {  // as many ids as the rows or not, each a partition or one past the last
          auto array = std::make_unique<FakeIntArray>();
          array->values.resize(input.Byte() % 2 == 0 ? static_cast<size_t>(rows) : input.Byte());
          for (auto& id : array->values) id = input.Byte() % static_cast<jint>(partitions + 1);
          owned.push_back(std::move(array));
          ids = reinterpret_cast<jintArray>(owned.back().get());
        }
        Java_org_apache_spark_shuffle_sluice_SluiceNative_batchWriterWrite(
            env, nullptr, batch_writer, rows, nodes, ids);
      }
      if (pending_exception.empty()) {
        Java_org_apache_spark_shuffle_sluice_SluiceNative_batchWriterSpill(env, nullptr,
                                                                           batch_writer);
      }
      if (pending_exception.empty()) {
        Java_org_apache_spark_shuffle_sluice_SluiceNative_batchWriterFinish(
            env, nullptr, batch_writer, Longs(owned, static_cast<size_t>(writer_partitions)),
            Longs(owned, static_cast<size_t>(writer_partitions)), Longs(owned, 7));
      }
      Java_org_apache_spark_shuffle_sluice_SluiceNative_batchWriterClose(env, nullptr,
                                                                         batch_writer);
      std::error_code ignored;
      std::filesystem::remove(data_path, ignored);
    }
    pending_exception.clear();
  }

  // A reduce task over blocks made of the rest of the input.
  const jlong reader = Java_org_apache_spark_shuffle_sluice_SluiceNative_readerCreate(
      env, nullptr, schema, columnar ? JNI_TRUE : JNI_FALSE);
  if (reader != 0) {
    const jlongArray addresses = Longs(owned, 4);
    auto& address_values = As<FakeLongArray>(reinterpret_cast<jobject>(addresses))->values;
    // Reads the rows the reader has ready, as the JVM's UnsafeRow would (each row's first and
    // last byte); stops when it needs a block, at the end, or at an exception.
    // Columnar: imports each exported batch, as a consumer other than the JVM would, and checks
    // every column (reading every buffer within its bounds).
    auto read_batches = [&] {
      auto parsed = sluice::SchemaFromSparkCatalogString(schema_text);
      if (!parsed.ok()) std::abort();  // the reader was made from it
      for (int batch = 0; batch < 64; ++batch) {
        const jint rows = Java_org_apache_spark_shuffle_sluice_SluiceNative_readerNextBatch(
            env, nullptr, reader, addresses);
        if (rows <= 0 || !pending_exception.empty()) return;
        auto* array = reinterpret_cast<ArrowArray*>(static_cast<intptr_t>(address_values[0]));
        auto imported = sluice::ImportRecordBatch(array, *parsed);
        if (!imported.ok() || imported->num_rows() != rows) std::abort();
        for (size_t i = 0; i < imported->num_columns(); ++i) {
          if (!sluice::ValidateArray(imported->column(i), "column").ok()) std::abort();
        }
      }
    };
    auto read_rows = [&] {
      if (columnar) return read_batches();
      for (int batch = 0; batch < 64; ++batch) {
        const jint rows = Java_org_apache_spark_shuffle_sluice_SluiceNative_readerNextRows(
            env, nullptr, reader, addresses);
        if (rows <= 0 || !pending_exception.empty()) return;
        if (address_values[3] <= 0) std::abort();  // the rows at least are held
        const auto* base =
            reinterpret_cast<const uint8_t*>(static_cast<intptr_t>(address_values[0]));
        const auto* offsets =
            reinterpret_cast<const int64_t*>(static_cast<intptr_t>(address_values[1]));
        const auto* sizes =
            reinterpret_cast<const int32_t*>(static_cast<intptr_t>(address_values[2]));
        volatile uint8_t sink = 0;
        for (jint r = 0; r < rows; ++r) {
          if (sizes[r] < 0) std::abort();
          if (sizes[r] > 0) sink = sink ^ base[offsets[r]] ^ base[offsets[r] + sizes[r] - 1];
        }
      }
    };
    for (int block = 0; block < 4 && !input.done() && pending_exception.empty(); ++block) {
      // Now and then the JVM side gets a length wrong: kept beyond what was reserved, a
      // capacity below what is kept, a negative length, a push longer than the buffer. Each
      // must come back as an exception, the reader still usable for closing.
      const uint8_t wrong = input.Byte();
      if (wrong < 8) {
        const jlong lengths[] = {-1, 1 << 20, -(1LL << 40), 3};
        const jlong kept = lengths[wrong % 4];
        Java_org_apache_spark_shuffle_sluice_SluiceNative_readerReserveBlock(
            env, nullptr, reader, kept, wrong < 4 ? kept - 1 : 2);
        if (pending_exception.empty()) std::abort();  // every one of these is refused
        break;
      }
      if (wrong < 12) {
        // A push longer than any buffer this harness reserves (the buffer of an empty block is
        // kept for the next one, so a short push may be a legal one).
        const jlong lengths[] = {-1, 1LL << 40, 1LL << 31, std::numeric_limits<jlong>::max()};
        Java_org_apache_spark_shuffle_sluice_SluiceNative_readerPushBlock(
            env, nullptr, reader, lengths[wrong % 4], String(owned, "block"));
        if (pending_exception.empty()) std::abort();
        break;
      }
      size_t length = input.Word() % (1 << 16);
      const uint8_t* bytes = input.Take(&length);
      // Copied in two pieces, the buffer grown between them, as the JVM copies through a chunk.
      const size_t first = length / 2;
      jlong address = Java_org_apache_spark_shuffle_sluice_SluiceNative_readerReserveBlock(
          env, nullptr, reader, 0, static_cast<jlong>(first) + 1);
      if (!pending_exception.empty()) break;
      std::memcpy(reinterpret_cast<uint8_t*>(static_cast<intptr_t>(address)), bytes, first);
      address = Java_org_apache_spark_shuffle_sluice_SluiceNative_readerReserveBlock(
          env, nullptr, reader, static_cast<jlong>(first), static_cast<jlong>(length) + 8);
      if (!pending_exception.empty()) break;
      std::memcpy(reinterpret_cast<uint8_t*>(static_cast<intptr_t>(address)) + first, bytes + first,
                  length - first);
      Java_org_apache_spark_shuffle_sluice_SluiceNative_readerPushBlock(
          env, nullptr, reader, static_cast<jlong>(length), String(owned, "block"));
      if (!pending_exception.empty()) break;
      read_rows();
    }
    if (pending_exception.empty()) {
      Java_org_apache_spark_shuffle_sluice_SluiceNative_readerEndBlocks(env, nullptr, reader);
      read_rows();
    }
    Java_org_apache_spark_shuffle_sluice_SluiceNative_readerMetrics(env, nullptr, reader,
                                                                    Longs(owned, 5));
    Java_org_apache_spark_shuffle_sluice_SluiceNative_readerClose(env, nullptr, reader);
  }
  return 0;
}
