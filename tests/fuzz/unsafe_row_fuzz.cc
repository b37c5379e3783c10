// Fuzzes RowToColumnarConverter with corrupted UnsafeRows that start out valid, so mutations reach
// deep into nested structs, arrays and maps instead of failing at the first size check.
//
// Input layout: byte 0 picks a schema (value % 4: three fixed ones, or, for 3, a random Spark
// schema of 1..8 columns nested up to 3 deep, drawn from bytes 0..10) and bytes 1..2 a row count
// (1..1024); bytes 3..10 seed the random batch whose rows ColumnarToRowConverter writes; every
// following 5 bytes are one mutation: a 24-bit position in the rows' bytes (modulo their total
// size), an operation byte (value % 4: xor a byte, write a small word, write a huge word, shorten
// the row holding the position to end there), and an operand byte. Inputs up to 1 MiB (make fuzz
// passes -max_len) carry 200,000 mutations. Each row is then copied into its own allocation of
// exactly its size, so a sanitizer sees any read past it. Whatever the converter accepts must
// convert to rows that read back and convert to the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "row/spark_random_schema.h"
#include "sluice/base/check.h"
#include "sluice/row/columnar_to_row_converter.h"
#include "sluice/row/row_to_columnar_converter.h"
#include "support/random_batch.h"

namespace {

constexpr size_t kHeaderSize = 11;

sluice::SchemaPtr FixedSchema(uint8_t choice) {
  using sluice::DataType;
  using sluice::MakeField;
  static const sluice::SchemaPtr schemas[] = {
      std::make_shared<sluice::Schema>(std::vector<sluice::Field>{
          MakeField("a", DataType::Int32()), MakeField("b", DataType::Utf8()),
          MakeField("c", DataType::Int64())}),
      sluice::testing::AllSparkTypesSchema(),
      std::make_shared<sluice::Schema>(std::vector<sluice::Field>{
          MakeField("l", DataType::List(DataType::List(DataType::Decimal128(38, 2)))),
          MakeField("m", DataType::Map(DataType::Utf8(),
                                       DataType::Struct({MakeField("x", DataType::Binary()),
                                                         MakeField("y", DataType::Float64())})))}),
  };
  return schemas[choice % 3];
}

sluice::SchemaPtr SchemaFor(const uint8_t* header) {
  const uint8_t choice = header[0];
  if (choice % 4 == 3) {
    uint64_t seed = 0;
    std::memcpy(&seed, header + 3, 8);
    std::mt19937_64 rng(seed ^ choice);
    return sluice::testing::RandomSparkSchema(rng, 1 + (choice >> 2) % 8, 3);
  }
  return FixedSchema(choice);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeaderSize) return 0;
  const sluice::SchemaPtr schema = SchemaFor(data);
  const int64_t row_count = 1 + (data[1] | (data[2] << 8)) % 1024;
  uint64_t seed = 0;
  std::memcpy(&seed, data + 3, 8);
  const sluice::RecordBatch batch = sluice::testing::RandomBatch(schema, row_count, seed);

  auto writer = sluice::ColumnarToRowConverter::Make(schema).ValueOrDie();
  sluice::UnsafeRowBatch rows;
  SLUICE_CHECK(writer->Convert(batch, 0, row_count, &rows).ok(), "valid batches convert");
  std::vector<uint8_t> bytes(rows.bytes.data(), rows.bytes.data() + rows.bytes.size());
  std::vector<int32_t> sizes = rows.sizes;
  if (bytes.empty()) return 0;

  for (size_t at = kHeaderSize; at + 5 <= size; at += 5) {
    const size_t position = (data[at] | (data[at + 1] << 8) | (data[at + 2] << 16)) % bytes.size();
    const uint8_t operand = data[at + 4];
    switch (data[at + 3] % 4) {
      case 0:
        bytes[position] ^= operand == 0 ? 1 : operand;
        break;
      case 1: {
        const uint64_t word = operand;
        std::memcpy(bytes.data() + (position & ~size_t{7}), &word,
                    std::min<size_t>(8, bytes.size() - (position & ~size_t{7})));
        break;
      }
      case 2: {
        const uint64_t word = ~uint64_t{0} - operand;
        std::memcpy(bytes.data() + (position & ~size_t{7}), &word,
                    std::min<size_t>(8, bytes.size() - (position & ~size_t{7})));
        break;
      }
      default:
        for (int64_t i = 0; i < rows.num_rows(); ++i) {
          const auto start = static_cast<size_t>(rows.offsets[i]);
          if (position >= start && position < start + static_cast<size_t>(rows.sizes[i])) {
            sizes[i] = std::min(sizes[i], static_cast<int32_t>(position - start));
          }
        }
        break;
    }
  }

  std::vector<std::unique_ptr<uint8_t[]>> copies;
  std::vector<const uint8_t*> pointers;
  for (int64_t i = 0; i < rows.num_rows(); ++i) {
    copies.push_back(std::make_unique<uint8_t[]>(static_cast<size_t>(sizes[i]) + 1));
    std::memcpy(copies.back().get(), bytes.data() + rows.offsets[i], static_cast<size_t>(sizes[i]));
    pointers.push_back(copies.back().get());
  }
  auto reader = sluice::RowToColumnarConverter::Make(schema, {.validate_utf8 = true}).ValueOrDie();
  const sluice::Status status = reader->Append(pointers.data(), sizes.data(), row_count);
  if (!status.ok()) {
    // Corrupt: the bytes are not an UnsafeRow. Invalid: a well-formed row holds a value Arrow's
    // type cannot represent (a calendar interval whose microseconds overflow 64-bit nanoseconds).
    SLUICE_CHECK(status.IsCorrupt() || status.IsInvalid(), status.ToString().c_str());
    return 0;
  }
  // What was accepted is a valid batch: it converts to rows, and those rows (NaNs now canonical)
  // read back and convert to the very same bytes.
  const sluice::RecordBatch accepted = reader->Finish();
  sluice::UnsafeRowBatch first;
  const sluice::Status written = writer->Convert(accepted, 0, row_count, &first);
  SLUICE_CHECK(written.ok(), written.ToString().c_str());
  std::vector<const uint8_t*> first_pointers;
  first.RowPointers(&first_pointers);
  SLUICE_CHECK(reader->Append(first_pointers.data(), first.sizes.data(), row_count).ok(),
               "rows written from an accepted batch are read back");
  sluice::UnsafeRowBatch second;
  SLUICE_CHECK(writer->Convert(reader->View(), 0, row_count, &second).ok(), "second write");
  SLUICE_CHECK(
      first.sizes == second.sizes && std::memcmp(first.bytes.data(), second.bytes.data(),
                                                 static_cast<size_t>(first.bytes.size())) == 0,
      "rows -> columns -> rows gives the same bytes");
  return 0;
}
