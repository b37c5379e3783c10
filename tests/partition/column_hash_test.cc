#include "sluice/partition/column_hash.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sluice/format/array_builder.h"
#include "sluice/partition/partitioner.h"
#include "sluice/partition/spark_hash.h"
#include "support/batch_maker.h"
#include "support/half_float_reference.h"
#include "support/random_batch.h"
#include "support/test_vectors.h"

namespace sluice {
namespace {

using Murmur = MurmurHash3Spark;
using Xx = XxHash64Spark;

// ---------------------------------------------------------------------------------------------
// A plain scalar reference: one row at a time, recursive, written from Spark's
// InterpretedHashFunction.hash and nothing else.

// Java's BigInteger.toByteArray: big-endian two's complement, without leading bytes that only
// repeat the sign of the byte after them.
std::vector<uint8_t> BigIntegerToByteArray(__int128 value) {
  std::vector<uint8_t> bytes(16);
  for (int k = 0; k < 16; ++k) {
    bytes[static_cast<size_t>(k)] =
        static_cast<uint8_t>(static_cast<unsigned __int128>(value) >> (8 * (15 - k)));
  }
  while (bytes.size() > 1 && ((bytes[0] == 0x00 && (bytes[1] & 0x80) == 0) ||
                              (bytes[0] == 0xff && (bytes[1] & 0x80) != 0))) {
    bytes.erase(bytes.begin());
  }
  return bytes;
}

// The same for a 256-bit value given as 32 little-endian bytes.
std::vector<uint8_t> BigIntegerToByteArray256(const uint8_t* little_endian) {
  std::vector<uint8_t> bytes(little_endian, little_endian + 32);
  std::reverse(bytes.begin(), bytes.end());
  while (bytes.size() > 1 && ((bytes[0] == 0x00 && (bytes[1] & 0x80) == 0) ||
                              (bytes[0] == 0xff && (bytes[1] & 0x80) != 0))) {
    bytes.erase(bytes.begin());
  }
  return bytes;
}

// A count of `unit` as a std::chrono duration, converted to `To` as Java's long arithmetic does
// for the values the tests make (no overflow): duration_cast truncates toward zero.
template <typename To>
int64_t ConvertUnit(int64_t value, TimeUnit unit) {
  using namespace std::chrono;
  switch (unit) {
    case TimeUnit::kSecond:
      return duration_cast<To>(seconds{value}).count();
    case TimeUnit::kMilli:
      return duration_cast<To>(milliseconds{value}).count();
    case TimeUnit::kMicro:
      return duration_cast<To>(microseconds{value}).count();
    case TimeUnit::kNano:
      return duration_cast<To>(nanoseconds{value}).count();
  }
  return 0;
}

template <typename Hash>
typename Hash::State HashByteVector(const std::vector<uint8_t>& bytes, typename Hash::State seed) {
  return Hash::HashBytes(bytes.data(), std::ssize(bytes), seed);
}

template <typename Hash>
typename Hash::State ReferenceHash(const ArrayData& array, int64_t row, typename Hash::State seed) {
  if (array.IsNull(row)) return seed;  // also every row of the null type
  const int64_t i = array.offset + row;
  const uint8_t* data = array.buffers[1].data;
  auto value = [&](auto type_tag) {
    using T = decltype(type_tag);
    T v;
    std::memcpy(&v, data + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
    return v;
  };
  switch (array.type->id()) {
    case TypeId::kNull:
      return seed;
    case TypeId::kBinaryView:
    case TypeId::kUtf8View: {
      const std::string_view bytes = array.view_value(row);
      return Hash::HashBytes(reinterpret_cast<const uint8_t*>(bytes.data()),
                             static_cast<int64_t>(bytes.size()), seed);
    }
    case TypeId::kBoolean:
      return Hash::HashInt(bits::GetBit(data, i) ? 1 : 0, seed);
    case TypeId::kInt8:
      return Hash::HashInt(value(int8_t{}), seed);
    case TypeId::kInt16:
      return Hash::HashInt(value(int16_t{}), seed);
    case TypeId::kInt32:
    case TypeId::kDate32:
      return Hash::HashInt(value(int32_t{}), seed);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
      return Hash::HashLong(value(int64_t{}), seed);
    case TypeId::kUInt8:
      return Hash::HashInt(value(uint8_t{}), seed);
    case TypeId::kUInt16:
      return Hash::HashInt(value(uint16_t{}), seed);
    case TypeId::kUInt32:
      return Hash::HashLong(value(uint32_t{}), seed);
    case TypeId::kUInt64:
      return HashByteVector<Hash>(BigIntegerToByteArray(value(uint64_t{})), seed);
    case TypeId::kFloat32: {
      const float v = value(float{});
      if (v == 0.0f) return Hash::HashInt(0, seed);
      if (std::isnan(v)) return Hash::HashInt(0x7fc00000, seed);
      return Hash::HashInt(std::bit_cast<int32_t>(v), seed);
    }
    case TypeId::kFloat64: {
      const double v = value(double{});
      if (v == 0.0) return Hash::HashLong(0, seed);
      if (std::isnan(v)) return Hash::HashLong(0x7ff8000000000000LL, seed);
      return Hash::HashLong(std::bit_cast<int64_t>(v), seed);
    }
    case TypeId::kDecimal128: {
      const __int128 v = value(__int128{});
      if (array.type->precision() <= 18) return Hash::HashLong(static_cast<int64_t>(v), seed);
      return HashByteVector<Hash>(BigIntegerToByteArray(v), seed);
    }
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      const auto* offsets = reinterpret_cast<const int32_t*>(data);
      return Hash::HashBytes(array.buffers[2].data + offsets[i], offsets[i + 1] - offsets[i], seed);
    }
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: {
      const auto* offsets = reinterpret_cast<const int64_t*>(data);
      return Hash::HashBytes(array.buffers[2].data + offsets[i], offsets[i + 1] - offsets[i], seed);
    }
    case TypeId::kFixedSizeBinary: {
      const int64_t width = array.type->byte_width();
      return Hash::HashBytes(data + i * width, width, seed);
    }
    case TypeId::kList:
    case TypeId::kMap: {
      const auto* offsets = reinterpret_cast<const int32_t*>(data);
      for (int64_t j = offsets[i]; j < offsets[i + 1]; ++j) {
        if (array.type->id() == TypeId::kMap) {
          const ArrayData& entries = array.children[0];
          seed = ReferenceHash<Hash>(entries.children[0], j, seed);
          seed = ReferenceHash<Hash>(entries.children[1], j, seed);
        } else {
          seed = ReferenceHash<Hash>(array.children[0], j, seed);
        }
      }
      return seed;
    }
    case TypeId::kFixedSizeList: {
      const int64_t size = array.type->list_size();
      for (int64_t j = i * size; j < (i + 1) * size; ++j) {
        seed = ReferenceHash<Hash>(array.children[0], j, seed);
      }
      return seed;
    }
    case TypeId::kListView:
    case TypeId::kLargeListView: {
      const auto [offset, size] = ListViewRange(array, row);
      for (int64_t j = offset; j < offset + size; ++j) {
        seed = ReferenceHash<Hash>(array.children[0], j, seed);
      }
      return seed;
    }
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion: {
      // The value of the child the type id names, at the row (sparse) or its offset (dense).
      const auto code = static_cast<int8_t>(array.buffers[0].data[i]);
      const auto& codes = array.type->type_codes();
      const auto child =
          static_cast<size_t>(std::find(codes.begin(), codes.end(), code) - codes.begin());
      int64_t child_row = row;
      if (array.type->id() == TypeId::kDenseUnion) {
        int32_t offset;
        std::memcpy(&offset, array.buffers[1].data + i * 4, 4);
        child_row = offset;
      }
      return ReferenceHash<Hash>(array.children[child], child_row, seed);
    }
    case TypeId::kDictionary:
      return ReferenceHash<Hash>(array.children[0], DictionaryIndexAt(array, row), seed);
    case TypeId::kRunEndEncoded: {
      // The run holding the row, found by walking the run ends (the engine searches them).
      const ArrayData& run_ends = array.children[0];
      int64_t run = 0;
      while (RunEndAt(run_ends, run) <= i) ++run;
      return ReferenceHash<Hash>(array.children[1], run, seed);
    }
    case TypeId::kLargeList: {
      const auto* offsets = reinterpret_cast<const int64_t*>(data);
      for (int64_t j = offsets[i]; j < offsets[i + 1]; ++j) {
        seed = ReferenceHash<Hash>(array.children[0], j, seed);
      }
      return seed;
    }
    case TypeId::kStruct:
      for (const ArrayData& child : array.children) seed = ReferenceHash<Hash>(child, row, seed);
      return seed;
    // Spark's own types, hashed as Spark hashes them; the others as the Spark type of the same
    // values.
    case TypeId::kFloat16: {
      const auto v = static_cast<float>(testing::ReferenceHalfToDouble(value(uint16_t{})));
      if (v == 0.0f) return Hash::HashInt(0, seed);
      if (std::isnan(v)) return Hash::HashInt(0x7fc00000, seed);
      return Hash::HashInt(std::bit_cast<int32_t>(v), seed);
    }
    case TypeId::kDate64: {
      const auto day =
          std::chrono::floor<std::chrono::days>(std::chrono::milliseconds{value(int64_t{})});
      return Hash::HashInt(static_cast<int32_t>(day.count()), seed);
    }
    case TypeId::kTime32:
      return Hash::HashLong(
          ConvertUnit<std::chrono::nanoseconds>(value(int32_t{}), array.type->time_unit()), seed);
    case TypeId::kTime64:
      return Hash::HashLong(
          ConvertUnit<std::chrono::nanoseconds>(value(int64_t{}), array.type->time_unit()), seed);
    case TypeId::kDuration:
      return Hash::HashLong(
          ConvertUnit<std::chrono::microseconds>(value(int64_t{}), array.type->time_unit()), seed);
    case TypeId::kIntervalYearMonth:
      return Hash::HashInt(value(int32_t{}), seed);
    case TypeId::kIntervalDayTime: {
      int32_t parts[2];
      std::memcpy(parts, data + i * 8, 8);
      const auto length = std::chrono::days{parts[0]} + std::chrono::milliseconds{parts[1]};
      return Hash::HashLong(std::chrono::duration_cast<std::chrono::microseconds>(length).count(),
                            seed);
    }
    case TypeId::kIntervalMonthDayNano: {
      int32_t months_days[2];
      int64_t nanos;
      std::memcpy(months_days, data + i * 16, 8);
      std::memcpy(&nanos, data + i * 16 + 8, 8);
      // CalendarInterval.hashCode order in Spark's hash: microseconds, days, months.
      seed = Hash::HashLong(nanos / 1000, seed);
      seed = Hash::HashInt(months_days[1], seed);
      return Hash::HashInt(months_days[0], seed);
    }
    case TypeId::kDecimal32:
      return Hash::HashLong(value(int32_t{}), seed);
    case TypeId::kDecimal64:
      return Hash::HashLong(value(int64_t{}), seed);
    case TypeId::kDecimal256:
      if (array.type->precision() <= 18) {
        int64_t low;
        std::memcpy(&low, data + i * 32, 8);
        return Hash::HashLong(low, seed);
      }
      return HashByteVector<Hash>(BigIntegerToByteArray256(data + i * 32), seed);
  }
  ADD_FAILURE() << "unhandled type " << array.type->ToString();
  return seed;
}

template <typename Hash>
typename Hash::State ReferenceRowHash(const RecordBatch& batch, const std::vector<int>& keys,
                                      int64_t row) {
  auto seed = static_cast<typename Hash::State>(Hash::kSeed);
  for (const int key : keys) {
    seed = ReferenceHash<Hash>(batch.column(static_cast<size_t>(key)), row, seed);
  }
  return seed;
}

// ---------------------------------------------------------------------------------------------
// Helpers.

using testing::BatchMaker;

std::vector<uint32_t> MurmurOf(const RecordBatch& batch, std::vector<int> keys = {0}) {
  std::vector<uint32_t> hashes(static_cast<size_t>(batch.num_rows()));
  const Status status = Murmur3HashColumns(batch, keys, hashes.data());
  EXPECT_TRUE(status.ok()) << status.ToString();
  return hashes;
}

std::vector<uint64_t> XxOf(const RecordBatch& batch, std::vector<int> keys = {0}) {
  std::vector<int64_t> hashes(static_cast<size_t>(batch.num_rows()));
  const Status status = XxHash64Columns(batch, keys, hashes.data());
  EXPECT_TRUE(status.ok()) << status.ToString();
  return std::vector<uint64_t>(hashes.begin(), hashes.end());
}

constexpr uint32_t kSeed = Murmur::kSeed;

// ---------------------------------------------------------------------------------------------
// Shared vectors and Spark's documented values, through the column kernels.

TEST(ColumnHashTest, SharedVectorsWithSeed42ThroughColumns) {
  int checked = 0;
  for (const auto& row : testing::ReadVectorRows("murmur3.tsv")) {
    ASSERT_EQ(row.size(), 4u);
    if (testing::ParseVectorInteger(row[2]) != 42) continue;  // the column kernels use seed 42
    const std::string& type = row[0];
    const std::string& input = row[1];
    TypePtr data_type = type == "byte"     ? DataType::Int8()
                        : type == "int"    ? DataType::Int32()
                        : type == "long"   ? DataType::Int64()
                        : type == "float"  ? DataType::Float32()
                        : type == "double" ? DataType::Float64()
                                           : DataType::Utf8();
    BatchMaker maker({MakeField("c", data_type)});
    if (input == "null") {
      maker[0].AppendNull();
    } else if (type == "byte") {
      maker[0].Append<int8_t>(static_cast<int8_t>(testing::ParseVectorInteger(input)));
    } else if (type == "int") {
      maker[0].Append<int32_t>(static_cast<int32_t>(testing::ParseVectorInteger(input)));
    } else if (type == "long") {
      maker[0].Append<int64_t>(testing::ParseVectorInteger(input));
    } else if (type == "float") {
      maker[0].Append<float>(std::strtof(input.c_str(), nullptr));
    } else if (type == "double") {
      maker[0].Append<double>(std::strtod(input.c_str(), nullptr));
    } else {
      maker[0].AppendString(input);
    }
    const auto expected = static_cast<uint32_t>(testing::ParseVectorInteger(row[3]));
    EXPECT_EQ(MurmurOf(maker.Finish())[0], expected) << type << " '" << input << "'";
    ++checked;
  }
  EXPECT_GT(checked, 30);
}

TEST(ColumnHashTest, SparkDocumentedExamples) {
  // Spark's SQL reference: hash('Spark', array(123), 2) and xxhash64 of the same; PySpark's
  // hash and xxhash64 examples over ('ABC', 'DEF').
  BatchMaker maker({MakeField("s", DataType::Utf8()),
                    MakeField("a", DataType::List(DataType::Int32())),
                    MakeField("i", DataType::Int32()), MakeField("c1", DataType::Utf8()),
                    MakeField("c2", DataType::Utf8())});
  maker[0].AppendString("Spark");
  maker[1].child(0).Append<int32_t>(123);
  maker[1].AppendValid();
  maker[2].Append<int32_t>(2);
  maker[3].AppendString("ABC");
  maker[4].AppendString("DEF");
  const RecordBatch batch = maker.Finish();
  EXPECT_EQ(static_cast<int32_t>(MurmurOf(batch, {0, 1, 2})[0]), -1321691492);
  EXPECT_EQ(static_cast<int64_t>(XxOf(batch, {0, 1, 2})[0]), 5602566077635097486LL);
  EXPECT_EQ(static_cast<int32_t>(MurmurOf(batch, {3})[0]), -757602832);
  EXPECT_EQ(static_cast<int32_t>(MurmurOf(batch, {3, 4})[0]), 599895104);
  EXPECT_EQ(static_cast<int64_t>(XxOf(batch, {3})[0]), 4105715581806190027LL);
  EXPECT_EQ(static_cast<int64_t>(XxOf(batch, {3, 4})[0]), 3233247871021311208LL);
}

// ---------------------------------------------------------------------------------------------
// Each type.

TEST(ColumnHashTest, BooleanHashesAsIntOneOrZero) {
  BatchMaker maker({MakeField("b", DataType::Boolean())});
  maker[0].Append<bool>(true);
  maker[0].Append<bool>(false);
  maker[0].AppendNull();
  const auto hashes = MurmurOf(maker.Finish());
  EXPECT_EQ(hashes[0], Murmur::HashInt(1, kSeed));
  EXPECT_EQ(hashes[1], Murmur::HashInt(0, kSeed));
  EXPECT_EQ(hashes[2], kSeed);
}

TEST(ColumnHashTest, NarrowSignedIntegersAndDatesHashAsSignExtendedInts) {
  BatchMaker maker({MakeField("a", DataType::Int8()), MakeField("b", DataType::Int16()),
                    MakeField("c", DataType::Date32())});
  maker[0].Append<int8_t>(-5);
  maker[1].Append<int16_t>(-300);
  maker[2].Append<int32_t>(-719162);
  const RecordBatch batch = maker.Finish();
  EXPECT_EQ(MurmurOf(batch, {0})[0], Murmur::HashInt(-5, kSeed));
  EXPECT_EQ(MurmurOf(batch, {1})[0], Murmur::HashInt(-300, kSeed));
  EXPECT_EQ(MurmurOf(batch, {2})[0], Murmur::HashInt(-719162, kSeed));
  EXPECT_EQ(XxOf(batch, {0})[0], Xx::HashInt(-5, Xx::kSeed));
}

TEST(ColumnHashTest, TimestampsOfEveryUnitHashTheStoredLong) {
  for (TimeUnit unit : {TimeUnit::kSecond, TimeUnit::kMilli, TimeUnit::kMicro, TimeUnit::kNano}) {
    BatchMaker maker({MakeField("t", DataType::Timestamp(unit, "UTC"))});
    maker[0].Append<int64_t>(-1234567890123LL);
    EXPECT_EQ(MurmurOf(maker.Finish())[0], Murmur::HashLong(-1234567890123LL, kSeed));
  }
}

TEST(ColumnHashTest, UnsignedIntegersHashAsSparkReadsThemFromParquet) {
  BatchMaker maker({MakeField("u8", DataType::UInt8()), MakeField("u16", DataType::UInt16()),
                    MakeField("u32", DataType::UInt32()), MakeField("u64", DataType::UInt64())});
  maker[0].Append<uint8_t>(255);
  maker[1].Append<uint16_t>(65535);
  maker[2].Append<uint32_t>(4000000000u);
  maker[3].Append<uint64_t>(0x8000000000000000ull);
  const RecordBatch batch = maker.Finish();
  EXPECT_EQ(MurmurOf(batch, {0})[0], Murmur::HashInt(255, kSeed));
  EXPECT_EQ(MurmurOf(batch, {1})[0], Murmur::HashInt(65535, kSeed));
  EXPECT_EQ(MurmurOf(batch, {2})[0], Murmur::HashLong(4000000000LL, kSeed));
  // uint64 as DecimalType(20, 0): 2^63 needs a leading zero byte to stay positive.
  const std::vector<uint8_t> bytes = {0x00, 0x80, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(MurmurOf(batch, {3})[0], HashByteVector<Murmur>(bytes, kSeed));
}

TEST(ColumnHashTest, UnsignedInt64UsesTheMinimalBytes) {
  struct Case {
    uint64_t value;
    std::vector<uint8_t> bytes;
  };
  const Case cases[] = {{0, {0x00}},
                        {127, {0x7f}},
                        {128, {0x00, 0x80}},
                        {255, {0x00, 0xff}},
                        {256, {0x01, 0x00}},
                        {0x7fffffffffffffffull, {0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
                        {~0ull, {0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}};
  for (const Case& c : cases) {
    BatchMaker maker({MakeField("u64", DataType::UInt64())});
    maker[0].Append<uint64_t>(c.value);
    EXPECT_EQ(MurmurOf(maker.Finish())[0], HashByteVector<Murmur>(c.bytes, kSeed)) << c.value;
  }
}

TEST(ColumnHashTest, FloatZerosAreEqualAndEveryNaNIsCanonical) {
  const float float_nans[] = {std::numeric_limits<float>::quiet_NaN(),
                              -std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::signaling_NaN(),
                              std::bit_cast<float>(0x7f800123u), std::bit_cast<float>(0xffc00001u)};
  BatchMaker maker({MakeField("f", DataType::Float32())});
  maker[0].Append<float>(0.0f);
  maker[0].Append<float>(-0.0f);
  for (const float nan : float_nans) maker[0].Append<float>(nan);
  maker[0].Append<float>(std::numeric_limits<float>::infinity());
  maker[0].Append<float>(-1.5f);
  const auto hashes = MurmurOf(maker.Finish());
  EXPECT_EQ(hashes[0], Murmur::HashInt(0, kSeed));
  EXPECT_EQ(hashes[1], Murmur::HashInt(0, kSeed));
  for (size_t k = 0; k < std::size(float_nans); ++k) {
    EXPECT_EQ(hashes[2 + k], Murmur::HashInt(0x7fc00000, kSeed)) << k;
  }
  EXPECT_EQ(hashes[7], Murmur::HashInt(0x7f800000, kSeed));
  EXPECT_EQ(hashes[8], Murmur::HashInt(std::bit_cast<int32_t>(-1.5f), kSeed));
}

TEST(ColumnHashTest, DoubleZerosAreEqualAndEveryNaNIsCanonical) {
  const double double_nans[] = {
      std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(),
      std::numeric_limits<double>::signaling_NaN(), std::bit_cast<double>(0x7ff0000000000001ull),
      std::bit_cast<double>(0xfff8000000000abcull)};
  BatchMaker maker({MakeField("d", DataType::Float64())});
  maker[0].Append<double>(0.0);
  maker[0].Append<double>(-0.0);
  for (const double nan : double_nans) maker[0].Append<double>(nan);
  maker[0].Append<double>(-std::numeric_limits<double>::infinity());
  const RecordBatch batch = maker.Finish();
  const auto hashes = MurmurOf(batch);
  const auto xx = XxOf(batch);
  EXPECT_EQ(hashes[0], Murmur::HashLong(0, kSeed));
  EXPECT_EQ(hashes[1], Murmur::HashLong(0, kSeed));
  EXPECT_EQ(xx[1], Xx::HashLong(0, Xx::kSeed));
  for (size_t k = 0; k < std::size(double_nans); ++k) {
    EXPECT_EQ(hashes[2 + k], Murmur::HashLong(0x7ff8000000000000LL, kSeed)) << k;
    EXPECT_EQ(xx[2 + k], Xx::HashLong(0x7ff8000000000000LL, Xx::kSeed)) << k;
  }
  EXPECT_EQ(hashes[7], Murmur::HashLong(static_cast<int64_t>(0xfff0000000000000ull), kSeed));
}

TEST(ColumnHashTest, DecimalUpToPrecision18HashesTheUnscaledLong) {
  for (int precision : {1, 11, 18}) {
    BatchMaker maker({MakeField("d", DataType::Decimal128(precision, 0))});
    maker[0].Append<__int128>(7);
    maker[0].Append<__int128>(-7);
    const auto hashes = MurmurOf(maker.Finish());
    EXPECT_EQ(hashes[0], Murmur::HashLong(7, kSeed)) << precision;
    EXPECT_EQ(hashes[1], Murmur::HashLong(-7, kSeed)) << precision;
  }
}

TEST(ColumnHashTest, DecimalAbovePrecision18HashesTheMinimalBigEndianBytes) {
  struct Case {
    __int128 value;
    std::vector<uint8_t> bytes;
  };
  std::vector<Case> cases = {{0, {0x00}},
                             {1, {0x01}},
                             {-1, {0xff}},
                             {127, {0x7f}},
                             {128, {0x00, 0x80}},
                             {-128, {0x80}},
                             {-129, {0xff, 0x7f}},
                             {255, {0x00, 0xff}},
                             {256, {0x01, 0x00}},
                             {-256, {0xff, 0x00}},
                             {32768, {0x00, 0x80, 0x00}}};
  // For every length n from 1 to 16: the largest and smallest values that fit in n bytes, and
  // (below 16) one past each, which needs n + 1.
  for (int n = 1; n <= 16; ++n) {
    const __int128 largest = n == 16
                                 ? static_cast<__int128>(~static_cast<unsigned __int128>(0) >> 1)
                                 : (static_cast<__int128>(1) << (8 * n - 1)) - 1;
    const __int128 smallest = -largest - 1;
    std::vector<uint8_t> largest_bytes(static_cast<size_t>(n), 0xff);
    largest_bytes[0] = 0x7f;
    std::vector<uint8_t> smallest_bytes(static_cast<size_t>(n), 0x00);
    smallest_bytes[0] = 0x80;
    cases.push_back({largest, largest_bytes});
    cases.push_back({smallest, smallest_bytes});
    if (n < 16) {
      std::vector<uint8_t> above(static_cast<size_t>(n + 1), 0x00);
      above[1] = 0x80;
      cases.push_back({largest + 1, above});
      std::vector<uint8_t> below(static_cast<size_t>(n + 1), 0xff);
      below[1] = 0x7f;
      cases.push_back({smallest - 1, below});
    }
  }
  BatchMaker maker({MakeField("d", DataType::Decimal128(38, 4))});
  for (const Case& c : cases) maker[0].Append<__int128>(c.value);
  const RecordBatch batch = maker.Finish();
  const auto hashes = MurmurOf(batch);
  const auto xx = XxOf(batch);
  for (size_t k = 0; k < cases.size(); ++k) {
    EXPECT_EQ(hashes[k], HashByteVector<Murmur>(cases[k].bytes, kSeed)) << "case " << k;
    EXPECT_EQ(xx[k], HashByteVector<Xx>(cases[k].bytes, Xx::kSeed)) << "case " << k;
  }
}

TEST(ColumnHashTest, DecimalPrecisionDecidesBetweenLongAndBytes) {
  BatchMaker maker({MakeField("p18", DataType::Decimal128(18, 2)),
                    MakeField("p19", DataType::Decimal128(19, 2))});
  maker[0].Append<__int128>(-12345);
  maker[1].Append<__int128>(-12345);
  const RecordBatch batch = maker.Finish();
  EXPECT_EQ(MurmurOf(batch, {0})[0], Murmur::HashLong(-12345, kSeed));
  EXPECT_EQ(MurmurOf(batch, {1})[0], HashByteVector<Murmur>({0xcf, 0xc7}, kSeed));
}

TEST(ColumnHashTest, BinaryLikeTypesHashTheirBytesAtEveryLength) {
  // Every length from 0 to 70 bytes: both sides of the kernel's 32-byte short-value path, every
  // tail, and bytes with the top bit set (sign-extended in Spark's tail).
  std::string all;
  for (int k = 0; k < 70; ++k) {
    all.push_back(static_cast<char>(k % 3 == 0 ? 0x80 + k : 'a' + k % 26));
  }
  for (const TypePtr& type :
       {DataType::Utf8(), DataType::LargeUtf8(), DataType::Binary(), DataType::LargeBinary()}) {
    BatchMaker maker({MakeField("s", type)});
    for (size_t length = 0; length <= all.size(); ++length) {
      maker[0].AppendString(std::string_view(all).substr(0, length));
    }
    maker[0].AppendNull();
    const RecordBatch batch = maker.Finish();
    const auto hashes = MurmurOf(batch);
    const auto xx = XxOf(batch);
    const auto* bytes = reinterpret_cast<const uint8_t*>(all.data());
    for (size_t length = 0; length <= all.size(); ++length) {
      const auto size = static_cast<int64_t>(length);
      EXPECT_EQ(hashes[length], Murmur::HashBytes(bytes, size, kSeed))
          << type->ToString() << " length " << length;
      EXPECT_EQ(xx[length], Xx::HashBytes(bytes, size, Xx::kSeed))
          << type->ToString() << " length " << length;
    }
    EXPECT_EQ(hashes.back(), kSeed);
  }
}

TEST(ColumnHashTest, FixedSizeBinaryHashesItsBytes) {
  BatchMaker maker({MakeField("f", DataType::FixedSizeBinary(7))});
  maker[0].AppendString("abcdefg");
  maker[0].AppendNull();
  const auto hashes = MurmurOf(maker.Finish());
  EXPECT_EQ(hashes[0], Murmur::HashBytes(reinterpret_cast<const uint8_t*>("abcdefg"), 7, kSeed));
  EXPECT_EQ(hashes[1], kSeed);
}

TEST(ColumnHashTest, NullTypeLeavesTheHashUnchanged) {
  BatchMaker maker({MakeField("n", DataType::Null()), MakeField("i", DataType::Int32())});
  maker[0].AppendNull();
  maker[1].Append<int32_t>(9);
  const RecordBatch batch = maker.Finish();
  EXPECT_EQ(MurmurOf(batch, {0})[0], kSeed);
  EXPECT_EQ(MurmurOf(batch, {0, 1, 0})[0], Murmur::HashInt(9, kSeed));
}

TEST(ColumnHashTest, KeyColumnsFoldLeftToRight) {
  BatchMaker maker({MakeField("a", DataType::Int32()), MakeField("b", DataType::Utf8()),
                    MakeField("c", DataType::Decimal128(11, 2))});
  maker[0].Append<int32_t>(17);
  maker[1].AppendString("hello");
  maker[2].Append<__int128>(-314);
  maker[0].AppendNull();
  maker[1].AppendString("x");
  maker[2].AppendNull();
  const RecordBatch batch = maker.Finish();
  const auto hashes = MurmurOf(batch, {0, 1, 2});
  const uint32_t h0 = Murmur::HashLong(
      -314,
      Murmur::HashBytes(reinterpret_cast<const uint8_t*>("hello"), 5, Murmur::HashInt(17, kSeed)));
  EXPECT_EQ(hashes[0], h0);
  EXPECT_EQ(hashes[1], Murmur::HashBytes(reinterpret_cast<const uint8_t*>("x"), 1, kSeed));
  // Order matters.
  EXPECT_NE(MurmurOf(batch, {1, 0})[0], MurmurOf(batch, {0, 1})[0]);
}

// ---------------------------------------------------------------------------------------------
// Nested types with nulls at every level, checked against folds written out by hand.

uint32_t MurmurString(std::string_view text, uint32_t seed) {
  return Murmur::HashBytes(reinterpret_cast<const uint8_t*>(text.data()), std::ssize(text), seed);
}

TEST(ColumnHashTest, ListFoldsElementsAndSkipsNullElements) {
  BatchMaker maker({MakeField("l", DataType::List(DataType::Int32()))});
  ArrayBuilder& list = maker[0];
  list.child(0).Append<int32_t>(1);  // [1, null, 3]
  list.child(0).AppendNull();
  list.child(0).Append<int32_t>(3);
  list.AppendValid();
  list.AppendNull();           // null list
  list.AppendValid();          // empty list
  list.child(0).AppendNull();  // [null]
  list.AppendValid();
  const auto hashes = MurmurOf(maker.Finish());
  EXPECT_EQ(hashes[0], Murmur::HashInt(3, Murmur::HashInt(1, kSeed)));
  EXPECT_EQ(hashes[1], kSeed);
  EXPECT_EQ(hashes[2], kSeed);
  EXPECT_EQ(hashes[3], kSeed);
}

TEST(ColumnHashTest, ListOfStructsWithNullsAtEveryLevel) {
  const TypePtr element =
      DataType::Struct({MakeField("a", DataType::Int64()), MakeField("b", DataType::Utf8())});
  BatchMaker maker({MakeField("l", DataType::List(element)), MakeField("i", DataType::Int32())});
  ArrayBuilder& list = maker[0];
  ArrayBuilder& item = list.child(0);
  // Row 0: [{1, "x"}, null, {null, "y"}, {2, null}]
  item.child(0).Append<int64_t>(1);
  item.child(1).AppendString("x");
  item.AppendValid();
  item.AppendNull();
  item.child(0).AppendNull();
  item.child(1).AppendString("y");
  item.AppendValid();
  item.child(0).Append<int64_t>(2);
  item.child(1).AppendNull();
  item.AppendValid();
  list.AppendValid();
  maker[1].Append<int32_t>(5);
  // Row 1: a null list.
  list.AppendNull();
  maker[1].Append<int32_t>(6);
  const RecordBatch batch = maker.Finish();
  uint32_t expected = Murmur::HashLong(1, kSeed);
  expected = MurmurString("x", expected);
  expected = MurmurString("y", expected);
  expected = Murmur::HashLong(2, expected);
  const auto hashes = MurmurOf(batch, {0, 1});
  EXPECT_EQ(hashes[0], Murmur::HashInt(5, expected));
  EXPECT_EQ(hashes[1], Murmur::HashInt(6, kSeed));
}

TEST(ColumnHashTest, MapFoldsKeyThenValueAndSkipsNullValues) {
  BatchMaker maker(
      {MakeField("m", DataType::Map(DataType::Utf8(), DataType::List(DataType::Int32())))});
  ArrayBuilder& map = maker[0];
  ArrayBuilder& entries = map.child(0);
  ArrayBuilder& keys = entries.child(0);
  ArrayBuilder& values = entries.child(1);
  // Row 0: {"k1": [1, 2], "k2": null, "k3": [null], "k4": []}
  keys.AppendString("k1");
  values.child(0).Append<int32_t>(1);
  values.child(0).Append<int32_t>(2);
  values.AppendValid();
  entries.AppendValid();
  keys.AppendString("k2");
  values.AppendNull();
  entries.AppendValid();
  keys.AppendString("k3");
  values.child(0).AppendNull();
  values.AppendValid();
  entries.AppendValid();
  keys.AppendString("k4");
  values.AppendValid();
  entries.AppendValid();
  map.AppendValid();
  // Row 1: null map; row 2: empty map.
  map.AppendNull();
  map.AppendValid();
  const auto hashes = MurmurOf(maker.Finish());
  uint32_t expected = MurmurString("k1", kSeed);
  expected = Murmur::HashInt(1, expected);
  expected = Murmur::HashInt(2, expected);
  expected = MurmurString("k2", expected);
  expected = MurmurString("k3", expected);
  expected = MurmurString("k4", expected);
  EXPECT_EQ(hashes[0], expected);
  EXPECT_EQ(hashes[1], kSeed);
  EXPECT_EQ(hashes[2], kSeed);
}

TEST(ColumnHashTest, StructFoldsFieldsAndANullStructKeepsTheSeed) {
  const TypePtr type = DataType::Struct(
      {MakeField("a", DataType::Int32()), MakeField("b", DataType::List(DataType::Utf8()))});
  BatchMaker maker({MakeField("s", type)});
  ArrayBuilder& st = maker[0];
  st.child(0).Append<int32_t>(4);  // {4, ["p", null]}
  st.child(1).child(0).AppendString("p");
  st.child(1).child(0).AppendNull();
  st.child(1).AppendValid();
  st.AppendValid();
  st.AppendNull();           // null struct: its children hold empty values
  st.child(0).AppendNull();  // {null, null}
  st.child(1).AppendNull();
  st.AppendValid();
  const auto hashes = MurmurOf(maker.Finish());
  EXPECT_EQ(hashes[0], MurmurString("p", Murmur::HashInt(4, kSeed)));
  EXPECT_EQ(hashes[1], kSeed);
  EXPECT_EQ(hashes[2], kSeed);
}

TEST(ColumnHashTest, ListChildWithItsOwnOffset) {
  // The list's offsets index into its child view, whose own offset applies too.
  BatchMaker lists({MakeField("l", DataType::List(DataType::Int32()))});
  lists[0].child(0).Append<int32_t>(0);
  lists[0].child(0).Append<int32_t>(0);
  lists[0].AppendValid();  // [_, _]
  lists[0].child(0).Append<int32_t>(0);
  lists[0].AppendValid();  // [_]
  RecordBatch batch = lists.Finish();

  BatchMaker values({MakeField("v", DataType::Int32())});
  for (int32_t v : {100, 101, 7, 8, 9}) values[0].Append<int32_t>(v);
  RecordBatch value_batch = values.Finish();

  std::vector<ArrayData> columns = batch.columns();
  columns[0].children[0] = value_batch.column(0).Slice(2, 3);
  std::vector<MemoryOwner> owners = batch.owners();
  owners.insert(owners.end(), value_batch.owners().begin(), value_batch.owners().end());
  const RecordBatch shifted(batch.schema(), 2, std::move(columns), std::move(owners));
  const auto hashes = MurmurOf(shifted);
  EXPECT_EQ(hashes[0], Murmur::HashInt(8, Murmur::HashInt(7, kSeed)));
  EXPECT_EQ(hashes[1], Murmur::HashInt(9, kSeed));
}

TEST(ColumnHashTest, SlicedBatchHashesEqualTheRowsOfTheWholeBatch) {
  const SchemaPtr schema = testing::AllTypesSchema(2);
  const RecordBatch batch = testing::RandomBatch(schema, 200, 17, {.null_probability = 0.25});
  std::vector<int> all_columns;
  for (size_t c = 0; c < batch.num_columns(); ++c) all_columns.push_back(static_cast<int>(c));
  const auto whole = MurmurOf(batch, all_columns);
  const auto whole_xx = XxOf(batch, all_columns);
  for (int64_t offset : {1, 7, 63, 64, 65, 130}) {
    const RecordBatch slice = batch.Slice(offset, 200 - offset - 3);
    const auto sliced = MurmurOf(slice, all_columns);
    const auto sliced_xx = XxOf(slice, all_columns);
    for (int64_t row = 0; row < slice.num_rows(); ++row) {
      ASSERT_EQ(sliced[row], whole[offset + row]) << "offset " << offset << " row " << row;
      ASSERT_EQ(sliced_xx[row], whole_xx[offset + row]) << "offset " << offset << " row " << row;
    }
  }
}

TEST(ColumnHashTest, BadKeyColumnsAreRejected) {
  BatchMaker maker({MakeField("a", DataType::Int32())});
  maker[0].Append<int32_t>(1);
  const RecordBatch batch = maker.Finish();
  uint32_t hash = 0;
  int64_t xx = 0;
  const std::vector<int> missing = {1};
  const std::vector<int> negative = {-1};
  const Status out_of_range = Murmur3HashColumns(batch, missing, &hash);
  EXPECT_TRUE(out_of_range.IsInvalid());
  EXPECT_NE(out_of_range.message().find("column 1 does not exist"), std::string::npos)
      << out_of_range.message();
  EXPECT_TRUE(XxHash64Columns(batch, negative, &xx).IsInvalid());
  EXPECT_TRUE(Murmur3HashColumns(batch, {}, &hash).IsInvalid());
}

// ---------------------------------------------------------------------------------------------
// Property: the column kernels equal the scalar reference on random batches of every type.

template <typename Hash>
void ExpectKernelEqualsReference(const RecordBatch& batch, const std::vector<int>& keys,
                                 const std::string& label) {
  std::vector<typename Hash::State> hashes(static_cast<size_t>(batch.num_rows()));
  Status status;
  if constexpr (std::is_same_v<Hash, Murmur>) {
    status = Murmur3HashColumns(batch, keys, hashes.data());
  } else {
    status = XxHash64Columns(batch, keys, reinterpret_cast<int64_t*>(hashes.data()));
  }
  ASSERT_TRUE(status.ok()) << status.ToString();
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    ASSERT_EQ(hashes[static_cast<size_t>(row)], ReferenceRowHash<Hash>(batch, keys, row))
        << label << " row " << row;
  }
}

void CheckBatchAgainstReference(const RecordBatch& batch, const std::string& label) {
  std::vector<int> all_columns;
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    all_columns.push_back(static_cast<int>(c));
    const std::string column_label =
        label + " column " + std::to_string(c) + " " + batch.schema()->field(c).type->ToString();
    ExpectKernelEqualsReference<Murmur>(batch, {static_cast<int>(c)}, column_label);
    ExpectKernelEqualsReference<Xx>(batch, {static_cast<int>(c)}, column_label);
  }
  ExpectKernelEqualsReference<Murmur>(batch, all_columns, label + " all columns");
  ExpectKernelEqualsReference<Xx>(batch, all_columns, label + " all columns");

  // Hash partition ids are pmod of the reference hash.
  for (int32_t partitions : {1, 7, 200, 8000}) {
    PartitionerOptions options;
    options.kind = PartitionKind::kHash;
    options.partition_count = partitions;
    options.key_columns = all_columns;
    auto partitioner = MakePartitioner(options, *batch.schema());
    ASSERT_TRUE(partitioner.ok()) << partitioner.status().ToString();
    std::vector<uint32_t> ids(static_cast<size_t>(batch.num_rows()));
    ASSERT_TRUE((*partitioner)->Partition(batch, ids.data()).ok());
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      const auto hash = static_cast<int32_t>(ReferenceRowHash<Murmur>(batch, all_columns, row));
      const int32_t expected = ((hash % partitions) + partitions) % partitions;
      ASSERT_EQ(ids[static_cast<size_t>(row)], static_cast<uint32_t>(expected))
          << label << " row " << row << " partitions " << partitions;
    }
  }
}

// Spark 4.1.1's hash() (seed 42) of its time, interval and calendar interval values, from
// pyspark: hash(time'12:34:56'), hash(interval '3' month), hash(interval '1 02:03:04.5' day to
// second), hash(make_interval(0, 3, 0, 5, 0, 0, 1.5)). Each Arrow type that Spark reads as one
// of them, in every unit, hashes to the same value.
TEST(ColumnHashTest, SparkVectorsForTimesAndIntervals) {
  BatchMaker maker({MakeField("t64ns", DataType::Time64(TimeUnit::kNano)),
                    MakeField("t64us", DataType::Time64(TimeUnit::kMicro)),
                    MakeField("t32ms", DataType::Time32(TimeUnit::kMilli)),
                    MakeField("t32s", DataType::Time32(TimeUnit::kSecond)),
                    MakeField("ym", DataType::IntervalYearMonth()),
                    MakeField("dus", DataType::Duration(TimeUnit::kMicro)),
                    MakeField("dms", DataType::Duration(TimeUnit::kMilli)),
                    MakeField("dns", DataType::Duration(TimeUnit::kNano)),
                    MakeField("daytime", DataType::IntervalDayTime()),
                    MakeField("mdn", DataType::IntervalMonthDayNano())});
  maker[0].Append<int64_t>(45'296'000'000'000);
  maker[1].Append<int64_t>(45'296'000'000);
  maker[2].Append<int32_t>(45'296'000);
  maker[3].Append<int32_t>(45'296);
  maker[4].Append<int32_t>(3);
  maker[5].Append<int64_t>(93'784'500'000);
  maker[6].Append<int64_t>(93'784'500);
  maker[7].Append<int64_t>(93'784'500'000'000);
  const int32_t day_time[2] = {1, 7'384'500};  // 1 day 02:03:04.5
  maker[8].AppendBytes(day_time, 8);
  uint8_t month_day_nano[16];
  const int32_t months = 3;
  const int32_t days = 5;
  const int64_t nanos = 1'500'000'000;
  std::memcpy(month_day_nano, &months, 4);
  std::memcpy(month_day_nano + 4, &days, 4);
  std::memcpy(month_day_nano + 8, &nanos, 8);
  maker[9].AppendBytes(month_day_nano, 16);
  const RecordBatch batch = maker.Finish();
  for (int column : {0, 1, 2, 3}) {
    EXPECT_EQ(static_cast<int32_t>(MurmurOf(batch, {column})[0]), 1670312766) << column;
  }
  EXPECT_EQ(static_cast<int32_t>(MurmurOf(batch, {4})[0]), -1823081949);
  for (int column : {5, 6, 7, 8}) {
    EXPECT_EQ(static_cast<int32_t>(MurmurOf(batch, {column})[0]), 1326975016) << column;
  }
  EXPECT_EQ(static_cast<int32_t>(MurmurOf(batch, {9})[0]), -2107502119);
}

// A day_time interval too long for a long in microseconds wraps as Java's long arithmetic
// does, with no undefined overflow (found by c_data_import_fuzz under UBSan).
TEST(ColumnHashTest, DayTimeIntervalsBeyondALongOfMicrosecondsWrap) {
  BatchMaker maker({MakeField("i", DataType::IntervalDayTime())});
  const int32_t parts[2] = {std::numeric_limits<int32_t>::max(), -1};
  maker[0].AppendBytes(parts, 8);
  const uint64_t wrapped = uint64_t{2147483647} * 86'400'000'000u - 1000u;
  EXPECT_EQ(MurmurOf(maker.Finish())[0], Murmur::HashLong(static_cast<int64_t>(wrapped), kSeed));
}

// One value in several physical encodings lands in the same partition: decimals of every width
// (at the same precision), a half float and the float it widens to, date64 of a whole day and
// date32, a string or binary in every one of its encodings.
TEST(ColumnHashTest, EachEncodingOfAValueHashesAlike) {
  for (const int64_t unscaled : {int64_t{0}, int64_t{-1}, int64_t{123456789}, int64_t{-99999}}) {
    std::vector<Field> fields;
    for (const int bits : {32, 64, 128, 256}) {
      fields.push_back(MakeField("d" + std::to_string(bits), DataType::Decimal(bits, 9, 2)));
    }
    BatchMaker maker(fields);
    for (size_t c = 0; c < fields.size(); ++c) {
      uint8_t bytes[32];
      std::memset(bytes, unscaled < 0 ? 0xff : 0, sizeof(bytes));
      std::memcpy(bytes, &unscaled, 8);
      maker[c].AppendBytes(bytes, BitWidth(*fields[c].type) / 8);
    }
    const RecordBatch batch = maker.Finish();
    const uint32_t expected = MurmurOf(batch, {2})[0];
    for (int c : {0, 1, 3}) EXPECT_EQ(MurmurOf(batch, {c})[0], expected) << c << " " << unscaled;
  }
  // decimal256 above 38 digits: the minimal bytes of a value too large for 128 bits.
  BatchMaker wide({MakeField("d", DataType::Decimal256(60, 0))});
  uint8_t big[32] = {};
  big[20] = 0x01;  // 2^160
  wide[0].AppendBytes(big, 32);
  std::vector<uint8_t> expected_bytes(21, 0);
  expected_bytes[0] = 0x01;
  EXPECT_EQ(MurmurOf(wide.Finish())[0], Murmur::HashBytes(expected_bytes.data(), 21, kSeed));

  // A fixed-size list and the list views hash as the list of the same elements.
  BatchMaker lists({MakeField("fixed", DataType::FixedSizeList(DataType::Int64(), 2)),
                    MakeField("list", DataType::List(DataType::Int64())),
                    MakeField("view", DataType::ListView(DataType::Int64())),
                    MakeField("large_view", DataType::LargeListView(DataType::Int64()))});
  for (const int64_t first : {int64_t{7}, int64_t{-1}}) {
    for (ArrayBuilder* builder : {&lists[0], &lists[1], &lists[2], &lists[3]}) {
      builder->child(0).Append<int64_t>(first);
      builder->child(0).AppendNull();
      builder->AppendValid();
    }
  }
  for (int c = 0; c < 4; ++c) lists[c].AppendNull();
  const RecordBatch list_batch = lists.Finish();
  for (int c : {0, 2, 3}) EXPECT_EQ(MurmurOf(list_batch, {c}), MurmurOf(list_batch, {1})) << c;

  // A union row hashes as the value it selects: sparse and dense unions of the same values, and
  // the plain column of those values, alike (a null value included).
  const std::vector<Field> members = {MakeField("s", DataType::Utf8()),
                                      MakeField("i", DataType::Int64())};
  BatchMaker unions({MakeField("sparse", DataType::SparseUnion(members, {4, 9})),
                     MakeField("dense", DataType::DenseUnion(members, {4, 9})),
                     MakeField("plain_s", DataType::Utf8()),
                     MakeField("plain_i", DataType::Int64())});
  for (int row = 0; row < 6; ++row) {
    for (int c = 0; c < 2; ++c) {
      if (row % 2 == 0) {
        unions[c].child(0).AppendString("value " + std::to_string(row));
      } else if (row == 3) {
        unions[c].child(1).AppendNull();
      } else {
        unions[c].child(1).Append<int64_t>(row * 1000);
      }
      unions[c].AppendUnion(row % 2);
    }
    unions[2].AppendString("value " + std::to_string(row));
    unions[3].Append<int64_t>(row * 1000);
  }
  const RecordBatch union_batch = unions.Finish();
  const std::vector<uint32_t> strings_hash = MurmurOf(union_batch, {2});
  const std::vector<uint32_t> ints_hash = MurmurOf(union_batch, {3});
  for (int c = 0; c < 2; ++c) {
    const std::vector<uint32_t> hashes = MurmurOf(union_batch, {c});
    for (size_t row = 0; row < 6; ++row) {
      const uint32_t expected = row % 2 == 0 ? strings_hash[row]
                                : row == 3   ? uint32_t{kSeed}
                                             : ints_hash[row];
      EXPECT_EQ(hashes[row], expected) << c << " row " << row;
    }
  }

  BatchMaker floats({MakeField("h", DataType::Float16()), MakeField("f", DataType::Float32()),
                     MakeField("d64", DataType::Date64()), MakeField("d32", DataType::Date32())});
  floats[0].Append<uint16_t>(0x3e00);  // 1.5
  floats[1].Append<float>(1.5f);
  floats[2].Append<int64_t>(int64_t{-3} * 86'400'000);
  floats[3].Append<int32_t>(-3);
  floats[0].Append<uint16_t>(0x8000);  // -0.0
  floats[1].Append<float>(0.0f);
  floats[2].Append<int64_t>(-1);  // a millisecond before the epoch: the day before it
  floats[3].Append<int32_t>(-1);
  const RecordBatch batch = floats.Finish();
  EXPECT_EQ(MurmurOf(batch, {0}), MurmurOf(batch, {1}));
  EXPECT_EQ(MurmurOf(batch, {2}), MurmurOf(batch, {3}));

  // The same strings and bytes as utf8, large_utf8 and utf8_view, binary, large_binary and
  // binary_view (inline and out-of-line views), run-end encoded utf8 (each value its own
  // run, then a run of three), and dictionaries of utf8 and binary_view (the repeats as one
  // dictionary value), nulls included.
  const std::vector<TypePtr> string_types = {
      DataType::Utf8(),
      DataType::LargeUtf8(),
      DataType::Utf8View(),
      DataType::Binary(),
      DataType::LargeBinary(),
      DataType::BinaryView(),
      DataType::RunEndEncoded(DataType::Int32(), DataType::Utf8()),
      DataType::RunEndEncoded(DataType::Int16(), DataType::Utf8View()),
      DataType::Dictionary(DataType::Int32(), DataType::Utf8()),
      DataType::Dictionary(DataType::UInt8(), DataType::BinaryView())};
  std::vector<Field> string_fields;
  for (const TypePtr& type : string_types) {
    string_fields.push_back(MakeField(type->ToString(), type));
  }
  BatchMaker strings(string_fields);
  const auto append = [&](size_t c, const char* value) {
    const TypeId id = string_types[c]->id();
    if (id != TypeId::kRunEndEncoded && id != TypeId::kDictionary) {
      return strings[c].AppendString(value);
    }
    strings[c].child(id == TypeId::kDictionary ? 0 : 1).AppendString(value);
    strings[c].AppendValid();
  };
  for (const char* value :
       {"", "short", "exactly12byt", "thirteen byte", "a longer value, 29 bytes"}) {
    for (size_t c = 0; c < string_fields.size(); ++c) append(c, value);
  }
  for (size_t c = 0; c < string_fields.size(); ++c) {
    append(c, "repeated");
    for (int repeat = 0; repeat < 2; ++repeat) {
      if (string_types[c]->id() == TypeId::kRunEndEncoded) {
        strings[c].AppendValid();  // the last run once more
      } else if (string_types[c]->id() == TypeId::kDictionary) {
        // The last dictionary value once more, by its index.
        const int64_t index = strings[c].child(0).length() - 1;
        if (string_types[c]->index_type()->id() == TypeId::kInt32) {
          strings[c].Append<int32_t>(static_cast<int32_t>(index));
        } else {
          strings[c].Append<uint8_t>(static_cast<uint8_t>(index));
        }
      } else {
        strings[c].AppendString("repeated");
      }
    }
  }
  for (size_t c = 0; c < string_fields.size(); ++c) strings[c].AppendNull();
  const RecordBatch string_batch = strings.Finish();
  for (int c = 1; c < static_cast<int>(string_fields.size()); ++c) {
    EXPECT_EQ(MurmurOf(string_batch, {c}), MurmurOf(string_batch, {0})) << string_fields[c].name;
    EXPECT_EQ(XxOf(string_batch, {c}), XxOf(string_batch, {0})) << string_fields[c].name;
  }
}

TEST(ColumnHashPropertyTest, AllTypesSchemaEqualsScalarReference) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    const SchemaPtr schema = testing::AllTypesSchema(3);
    const RecordBatch batch = testing::RandomBatch(schema, 150, seed, {.null_probability = 0.2});
    CheckBatchAgainstReference(batch, "all types seed " + std::to_string(seed));
    CheckBatchAgainstReference(batch.Slice(13, 120),
                               "all types sliced seed " + std::to_string(seed));
  }
}

TEST(ColumnHashPropertyTest, RandomSchemasEqualScalarReference) {
  std::mt19937_64 rng(20240607);
  for (int round = 0; round < 30; ++round) {
    const SchemaPtr schema = testing::RandomSchema(rng, 5, 3);
    const testing::RandomBatchOptions options{.null_probability = round % 3 == 0 ? 0.0 : 0.3,
                                              .max_list_length = 5,
                                              .max_string_length = round % 2 == 0 ? 20 : 45};
    const RecordBatch batch = testing::RandomBatch(schema, 130, rng(), options);
    CheckBatchAgainstReference(batch, "random schema round " + std::to_string(round));
    CheckBatchAgainstReference(batch.Slice(3, 100),
                               "random schema sliced round " + std::to_string(round));
  }
}

// Batches of several partitioning chunks (1024 rows) and prefetch distances (8192 rows): every
// leaf type as the only key and as the first of two, without nulls (hashed straight into the
// states) and with them, whole and sliced off the chunk grid.
TEST(ColumnHashPropertyTest, ManyChunksEqualScalarReference) {
  std::vector<Field> fields;
  for (const TypePtr& type : testing::AllLeafTypes()) {
    fields.push_back(MakeField("c" + std::to_string(fields.size()), type));
  }
  const auto schema = std::make_shared<Schema>(std::move(fields));
  for (const double null_probability : {0.0, 0.05}) {
    const RecordBatch batch =
        testing::RandomBatch(schema, 9500, 7, {.null_probability = null_probability});
    for (const RecordBatch& view : {batch, batch.Slice(777, 8700)}) {
      for (int c = 0; c < static_cast<int>(view.num_columns()); ++c) {
        const std::vector<int> key_sets[] = {{c},
                                             {c, (c + 1) % static_cast<int>(view.num_columns())}};
        for (const std::vector<int>& keys : key_sets) {
          PartitionerOptions options;
          options.kind = PartitionKind::kHash;
          options.partition_count = 200;
          options.key_columns = keys;
          auto partitioner = MakePartitioner(options, *view.schema());
          ASSERT_TRUE(partitioner.ok()) << partitioner.status().ToString();
          std::vector<uint32_t> ids(static_cast<size_t>(view.num_rows()));
          ASSERT_TRUE((*partitioner)->Partition(view, ids.data()).ok());
          for (int64_t row = 0; row < view.num_rows(); ++row) {
            const auto hash = static_cast<int32_t>(ReferenceRowHash<Murmur>(view, keys, row));
            ASSERT_EQ(ids[static_cast<size_t>(row)],
                      static_cast<uint32_t>(((hash % 200) + 200) % 200))
                << view.schema()->field(static_cast<size_t>(c)).type->ToString() << " keys "
                << keys.size() << " null probability " << null_probability << " row " << row;
          }
          ExpectKernelEqualsReference<Xx>(view, keys, "many chunks");
        }
      }
    }
  }
}

}  // namespace
}  // namespace sluice
