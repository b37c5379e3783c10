// Memory failure is an error, never an abort: a write and a read of a small table through the
// C API, once for every allocation the run makes, with that allocation failing. Every run
// returns SLUICE_OUT_OF_MEMORY naming it (or succeeds, once the count passes the last
// allocation), leaves no file behind, and leaks nothing (this program runs under ASan too).
//
// This program replaces the global operator new: every allocation of the library (its standard
// containers and strings as well as its AlignedBuffers, through the allocation_faults hook) is
// counted, and the armed one fails.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "sluice/base/allocation_faults.h"
#include "sluice/format/c_data.h"
#include "sluice/sluice.h"
#include "support/random_batch.h"
#include "support/temporary_directory.h"

namespace {

// Allocations left before the armed failure; negative when disarmed.
thread_local int64_t allocations_left = -1;
thread_local bool failed = false;

// Fails the armed allocation only: the next ones succeed, as when one large request fails.
bool CountAndDecide() {
  if (allocations_left < 0) return false;
  if (allocations_left == 0) {
    failed = true;
    allocations_left = -1;
    return true;
  }
  --allocations_left;
  return false;
}

void* Allocate(std::size_t size, std::size_t alignment) {
  if (CountAndDecide()) return nullptr;
  if (size == 0) size = 1;
  if (alignment <= alignof(std::max_align_t)) return std::malloc(size);
  return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}

}  // namespace

// GCC pairs std::free with the standard operator new it knows, not with these replacements, and
// warns where gtest's inlined code deletes what these allocate; the pairing here is malloc/free.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  if (void* pointer = Allocate(size, 0)) return pointer;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  return operator new(size);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  if (void* pointer = Allocate(size, static_cast<std::size_t>(alignment))) return pointer;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return operator new(size, alignment);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return Allocate(size, 0);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return Allocate(size, 0);
}
void operator delete(void* pointer) noexcept {
  std::free(pointer);
}
void operator delete[](void* pointer) noexcept {
  std::free(pointer);
}
void operator delete(void* pointer, std::size_t) noexcept {
  std::free(pointer);
}
void operator delete[](void* pointer, std::size_t) noexcept {
  std::free(pointer);
}
void operator delete(void* pointer, std::align_val_t) noexcept {
  std::free(pointer);
}
void operator delete[](void* pointer, std::align_val_t) noexcept {
  std::free(pointer);
}
void operator delete(void* pointer, std::size_t, std::align_val_t) noexcept {
  std::free(pointer);
}
void operator delete[](void* pointer, std::size_t, std::align_val_t) noexcept {
  std::free(pointer);
}
#pragma GCC diagnostic pop

namespace sluice {
namespace {

// A step of a scenario failed: its code and the library's message (kept in a fixed array: the
// scenario runs armed, and the test's own code must not allocate then).
struct Failure {
  int code = SLUICE_OK;
  char message[512] = {};

  void Set(int failed_code, const char* text) {
    code = failed_code;
    std::strncpy(message, text != nullptr ? text : "(no message)", sizeof(message) - 1);
  }
};

// Arms the failure of the allocation after `allowed` more; disarms on destruction.
class ArmedFailure {
 public:
  explicit ArmedFailure(int64_t allowed) {
    failed = false;
    allocation_faults::SetHook(CountAndDecide);
    allocations_left = allowed;
  }
  ~ArmedFailure() {
    allocations_left = -1;
    allocation_faults::SetHook(nullptr);
  }
};

RecordBatch Table() {
  return testing::RandomBatch(testing::KeyTextValueSchema(), 300, /*seed=*/7);
}

using Settings = std::vector<std::pair<std::string, std::string>>;

Settings WriterSettings(const std::string& data_path) {
  return {{"partitions", "7"},       {"keys", "c0"},
          {"codec", "lz4"},          {"spark-files", "true"},
          {"memory-budget", "8KiB"}, {"data-path", data_path}};
}

// Writes a batch through the C API with `settings`; returns the first failure.
Failure WriteThroughCApi(const Settings& settings, ArrowSchema* schema, ArrowSchema* batch_schema,
                         ArrowArray* batch) {
  Failure failure;
  SluiceMapWriterOptions* options = sluice_map_writer_options_new();
  if (options == nullptr) {
    failure.Set(SLUICE_OUT_OF_MEMORY, "out of memory: sluice_map_writer_options_new");
    return failure;
  }
  SluiceMapWriter* writer = nullptr;
  SluiceMapOutput* output = nullptr;
  int code = SLUICE_OK;
  for (const auto& [key, value] : settings) {
    if (code == SLUICE_OK)
      code = sluice_map_writer_options_set(options, key.c_str(), value.c_str());
  }
  if (code == SLUICE_OK) code = sluice_map_writer_open(options, schema, &writer);
  if (code == SLUICE_OK) code = sluice_map_writer_write(writer, batch_schema, batch);
  if (code == SLUICE_OK) code = sluice_map_writer_finish(writer, &output);
  if (code != SLUICE_OK) failure.Set(code, sluice_last_error());
  sluice_map_output_free(output);
  sluice_map_writer_free(writer);
  sluice_map_writer_options_free(options);
  return failure;
}

// Reads every partition of `data_path` through the C API; returns the first failure and counts
// the rows read.
Failure ReadThroughCApi(const char* data_path, int64_t* rows) {
  Failure failure;
  *rows = 0;
  const char* paths[] = {data_path};
  ArrowArrayStream stream{};
  int code = sluice_reader_open_files(paths, nullptr, 1, 0, 7, nullptr, nullptr, &stream);
  if (code != SLUICE_OK) {
    failure.Set(code, sluice_last_error());
    return failure;
  }
  while (true) {
    ArrowArray array{};
    code = stream.get_next(&stream, &array);
    if (code != 0) {
      failure.Set(code, stream.get_last_error(&stream));
      break;
    }
    if (array.release == nullptr) break;
    *rows += array.length;
    array.release(&array);
  }
  stream.release(&stream);
  return failure;
}

bool NamesOutOfMemory(const char* message) {
  return std::strstr(message, "out of memory") != nullptr;
}

TEST(AllocationSweepTest, EveryFailedAllocationOfAWriteIsAnError) {
  testing::TemporaryDirectory directory;
  const RecordBatch table = Table();
  const Settings settings = WriterSettings(directory.Join("map.data"));
  int64_t runs = 0;
  for (int64_t allowed = 0;; ++allowed) {
    ASSERT_LT(allowed, 200000) << "the sweep did not end";
    ArrowSchema schema;
    ArrowSchema batch_schema;
    ArrowArray batch;
    ASSERT_TRUE(ExportSchema(*table.schema(), &schema).ok());
    ASSERT_TRUE(ExportSchema(*table.schema(), &batch_schema).ok());
    ASSERT_TRUE(ExportRecordBatch(table, &batch).ok());
    Failure failure;
    bool injected = false;
    {
      ArmedFailure armed(allowed);
      failure = WriteThroughCApi(settings, &schema, &batch_schema, &batch);
      injected = failed;
    }
    if (batch.release != nullptr) batch.release(&batch);
    if (batch_schema.release != nullptr) batch_schema.release(&batch_schema);
    if (schema.release != nullptr) schema.release(&schema);
    ++runs;
    if (!injected) {
      ASSERT_EQ(failure.code, SLUICE_OK) << failure.message;
      break;
    }
    ASSERT_EQ(failure.code, SLUICE_OUT_OF_MEMORY)
        << "allocation " << allowed << ": " << failure.message;
    ASSERT_TRUE(NamesOutOfMemory(failure.message)) << failure.message;
    ASSERT_EQ(directory.List(), std::vector<std::string>{})
        << "allocation " << allowed << " left files behind";
  }
  std::printf("the write failed cleanly at each of its %lld allocations\n",
              static_cast<long long>(runs - 1));
  EXPECT_GT(runs, 50) << "the write made suspiciously few allocations";
  EXPECT_EQ(directory.List(),
            (std::vector<std::string>{"map.checksum.ADLER32", "map.data", "map.index"}));
}

TEST(AllocationSweepTest, EveryFailedAllocationOfAReadIsAnError) {
  testing::TemporaryDirectory directory;
  const RecordBatch table = Table();
  {
    ArrowSchema schema;
    ArrowSchema batch_schema;
    ArrowArray batch;
    ASSERT_TRUE(ExportSchema(*table.schema(), &schema).ok());
    ASSERT_TRUE(ExportSchema(*table.schema(), &batch_schema).ok());
    ASSERT_TRUE(ExportRecordBatch(table, &batch).ok());
    ASSERT_EQ(
        WriteThroughCApi(WriterSettings(directory.Join("map.data")), &schema, &batch_schema, &batch)
            .code,
        SLUICE_OK);
  }
  const std::string data_path = directory.Join("map.data");
  int64_t runs = 0;
  for (int64_t allowed = 0;; ++allowed) {
    ASSERT_LT(allowed, 200000) << "the sweep did not end";
    Failure failure;
    int64_t rows = 0;
    bool injected = false;
    {
      ArmedFailure armed(allowed);
      failure = ReadThroughCApi(data_path.c_str(), &rows);
      injected = failed;
    }
    ++runs;
    if (!injected) {
      ASSERT_EQ(failure.code, SLUICE_OK) << failure.message;
      EXPECT_EQ(rows, table.num_rows());
      break;
    }
    // The stream reports errno-style codes (ENOMEM) from get_next, the C API its own.
    ASSERT_NE(failure.code, SLUICE_OK) << "allocation " << allowed << " failed unreported";
    ASSERT_TRUE(NamesOutOfMemory(failure.message))
        << "allocation " << allowed << ": " << failure.message;
  }
  std::printf("the read failed cleanly at each of its %lld allocations\n",
              static_cast<long long>(runs - 1));
  EXPECT_GT(runs, 20) << "the read made suspiciously few allocations";
}

}  // namespace
}  // namespace sluice
