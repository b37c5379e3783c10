// Fuzzes the row path as hosts drive it: UnsafeRows in Spark's serializer framing (big-endian
// int32 size, then the row) split by the C API (sluice_row_writer_append_framed) and written by
// RowMapWriter (sort or scatter, a budget that forces spills) into a map output that is read
// back. The rows start out valid (a random batch of one of several Spark schemas, converted) and
// are then corrupted, so mutations reach nested values; the framing is corrupted too. Every
// outcome must be a committed output holding every row accepted, or an error with no file left,
// never a crash, a leak or a read out of bounds.
//
// Input layout:
//   byte 0     schema (value % 4: three fixed ones, or a random Spark schema, as unsafe_row_fuzz)
//   bytes 1-2  row count (1..512)
//   bytes 3-10 seed of the random batch
//   byte 11    partitions - 1 (1..64); bit 7 of byte 12: scatter instead of sort, bit 6: lz4
//   then       5-byte mutations of the framed bytes: a 24-bit position, an operation (xor a
//              byte, write a small word, write a huge word), an operand.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "row/spark_random_schema.h"
#include "sluice/base/bit_ops.h"
#include "sluice/base/check.h"
#include "sluice/format/array_validate.h"
#include "sluice/format/c_data.h"
#include "sluice/read/partition_reader.h"
#include "sluice/row/columnar_to_row_converter.h"
#include "sluice/sluice.h"
#include "support/random_batch.h"

namespace {

constexpr size_t kHeaderSize = 13;

const std::string& Directory() {
  static const std::string* directory = [] {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "row-map-writer-fuzz-XXXXXX").string();
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

sluice::SchemaPtr SchemaFor(const uint8_t* header) {
  using sluice::DataType;
  using sluice::MakeField;
  static const sluice::SchemaPtr fixed[] = {
      std::make_shared<sluice::Schema>(std::vector<sluice::Field>{
          MakeField("a", DataType::Int32()), MakeField("b", DataType::Utf8()),
          MakeField("c", DataType::Int64())}),
      sluice::testing::AllSparkTypesSchema(),
      std::make_shared<sluice::Schema>(std::vector<sluice::Field>{
          MakeField("l", DataType::List(DataType::List(DataType::Decimal128(38, 2)))),
          MakeField("m", DataType::Map(DataType::Utf8(), DataType::Float64()))}),
  };
  if (header[0] % 4 != 3) return fixed[header[0] % 4];
  uint64_t seed = 0;
  std::memcpy(&seed, header + 3, 8);
  std::mt19937_64 rng(seed ^ header[0]);
  return sluice::testing::RandomSparkSchema(rng, 1 + (header[0] >> 2) % 8, 3);
}

bool DirectoryIsEmpty() {
  return std::filesystem::is_empty(Directory());
}

void RemoveOutputs() {
  for (const auto& entry : std::filesystem::directory_iterator(Directory())) {
    std::filesystem::remove(entry.path());
  }
}

struct Writer {
  SluiceMapWriterOptions* options = nullptr;
  SluiceRowWriter* writer = nullptr;
  ~Writer() {
    sluice_row_writer_free(writer);
    sluice_map_writer_options_free(options);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeaderSize) return 0;
  const sluice::SchemaPtr schema = SchemaFor(data);
  const int64_t row_count = 1 + (data[1] | (data[2] << 8)) % 512;
  uint64_t seed = 0;
  std::memcpy(&seed, data + 3, 8);
  const int partitions = 1 + data[11] % 64;
  const sluice::RecordBatch batch = sluice::testing::RandomBatch(schema, row_count, seed);

  // Valid framed rows, then corrupted.
  sluice::ColumnarToRowOptions framing;
  framing.framing = sluice::RowFraming::kSizePrefixed;
  auto converter = sluice::ColumnarToRowConverter::Make(schema, framing).ValueOrDie();
  sluice::UnsafeRowBatch rows;
  SLUICE_CHECK(converter->Convert(batch, 0, row_count, &rows).ok(), "valid batches convert");
  std::vector<uint8_t> bytes(rows.bytes.data(), rows.bytes.data() + rows.bytes.size());
  for (size_t at = kHeaderSize; at + 5 <= size && !bytes.empty(); at += 5) {
    const size_t position = (data[at] | (data[at + 1] << 8) | (data[at + 2] << 16)) % bytes.size();
    const uint8_t operand = data[at + 4];
    const size_t word_at = position & ~size_t{7};
    switch (data[at + 3] % 3) {
      case 0:
        bytes[position] ^= operand == 0 ? 1 : operand;
        break;
      case 1: {
        const uint64_t word = operand;
        std::memcpy(bytes.data() + word_at, &word, std::min<size_t>(8, bytes.size() - word_at));
        break;
      }
      default: {
        const uint64_t word = ~uint64_t{0} - operand;
        std::memcpy(bytes.data() + word_at, &word, std::min<size_t>(8, bytes.size() - word_at));
        break;
      }
    }
  }
  // Exactly the framed bytes, in an allocation of their size: a read past them is a report.
  auto exact = std::make_unique<uint8_t[]>(bytes.size() + 1);
  if (!bytes.empty()) std::memcpy(exact.get(), bytes.data(), bytes.size());
  std::vector<uint32_t> ids(static_cast<size_t>(row_count));
  for (int64_t i = 0; i < row_count; ++i) ids[i] = static_cast<uint32_t>((i * 7919) % partitions);

  Writer handle;
  handle.options = sluice_map_writer_options_new();
  const std::string data_path = Directory() + "/shuffle_0_0_0.data";
  const std::string partition_text = std::to_string(partitions);
  const char* settings[][2] = {{"partitions", partition_text.c_str()},
                               {"strategy", (data[12] & 0x80) ? "scatter" : "sort"},
                               {"codec", (data[12] & 0x40) ? "lz4" : "none"},
                               {"memory-budget", "64KiB"},
                               {"page-bytes", "16KiB"},
                               {"spark-files", "true"},
                               {"data-path", data_path.c_str()}};
  for (const auto& setting : settings) {
    if (sluice_map_writer_options_set(handle.options, setting[0], setting[1]) != SLUICE_OK) {
      __builtin_trap();
    }
  }
  ArrowSchema c_schema;
  if (!sluice::ExportSchema(*schema, &c_schema).ok()) __builtin_trap();
  if (sluice_row_writer_open(handle.options, &c_schema, &handle.writer) != SLUICE_OK) {
    __builtin_trap();
  }
  if (sluice_row_writer_append_framed(handle.writer, ids.data(), row_count, exact.get(),
                                      static_cast<int64_t>(bytes.size())) != SLUICE_OK) {
    sluice_row_writer_free(handle.writer);
    handle.writer = nullptr;
    if (!DirectoryIsEmpty()) __builtin_trap();
    return 0;
  }
  SluiceMapOutput* output = nullptr;
  if (sluice_row_writer_finish(handle.writer, &output) != SLUICE_OK) {
    sluice_row_writer_free(handle.writer);
    handle.writer = nullptr;
    if (!DirectoryIsEmpty()) __builtin_trap();
    return 0;
  }
  sluice_map_output_free(output);
  // What was committed reads back: every row, valid batches.
  auto reader = sluice::PartitionReader::Open({sluice::MapOutputFile::Spark(
      data_path, 0, partitions, sluice::ChecksumAlgorithm::kAdler32)});
  if (!reader.ok()) __builtin_trap();
  int64_t rows_read = 0;
  while (true) {
    auto next = (*reader)->Next();
    if (!next.ok()) __builtin_trap();
    if (!next->has_value()) break;
    for (size_t c = 0; c < (*next)->num_columns(); ++c) {
      if (!sluice::ValidateArray((*next)->column(c), "fuzz").ok()) __builtin_trap();
    }
    rows_read += (*next)->num_rows();
  }
  if (rows_read != row_count) __builtin_trap();
  reader->reset();
  sluice_row_writer_free(handle.writer);
  handle.writer = nullptr;
  RemoveOutputs();
  return 0;
}
