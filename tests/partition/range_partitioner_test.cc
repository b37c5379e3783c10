#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "sluice/format/array_builder.h"
#include "sluice/partition/partitioner.h"
#include "support/batch_maker.h"
#include "support/half_float_reference.h"
#include "support/random_batch.h"

namespace sluice {
namespace {

// ---------------------------------------------------------------------------------------------
// A scalar reference: Spark's RangePartitioner linear scan ("advance while key > bound") with a
// per-row comparator written from Spark's orderings.

template <typename T>
T Load(const ArrayData& array, int64_t row) {
  T value;
  std::memcpy(&value,
              array.buffers[1].data + (array.offset + row) * static_cast<int64_t>(sizeof(T)),
              sizeof(T));
  return value;
}

template <typename T>
int Compare3(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Spark's SQLOrderingUtil.compareDoubles: NaN equals NaN and is above everything; -0.0 == 0.0.
int CompareDoubles(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? (std::isnan(b) ? 0 : 1) : -1;
  return Compare3(a, b);
}

std::string_view BytesAt(const ArrayData& array, int64_t row) {
  const int64_t i = array.offset + row;
  const auto* bytes = reinterpret_cast<const char*>(array.buffers[2].data);
  switch (array.type->id()) {
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      const auto* offsets = reinterpret_cast<const int32_t*>(array.buffers[1].data);
      return {bytes + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i])};
    }
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: {
      const auto* offsets = reinterpret_cast<const int64_t*>(array.buffers[1].data);
      return {bytes + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i])};
    }
    case TypeId::kBinaryView:
    case TypeId::kUtf8View:
      return array.view_value(row);
    default: {
      const int64_t width = array.type->byte_width();
      return {reinterpret_cast<const char*>(array.buffers[1].data) + i * width,
              static_cast<size_t>(width)};
    }
  }
}

// Compares two non-null values of the same flat type, ascending.
int CompareValues(const ArrayData& a, int64_t row_a, const ArrayData& b, int64_t row_b) {
  switch (a.type->id()) {
    case TypeId::kNull:
      return 0;
    case TypeId::kBoolean:
      return Compare3(bits::GetBit(a.buffers[1].data, a.offset + row_a),
                      bits::GetBit(b.buffers[1].data, b.offset + row_b));
    case TypeId::kInt8:
      return Compare3(Load<int8_t>(a, row_a), Load<int8_t>(b, row_b));
    case TypeId::kInt16:
      return Compare3(Load<int16_t>(a, row_a), Load<int16_t>(b, row_b));
    case TypeId::kInt32:
    case TypeId::kDate32:
      return Compare3(Load<int32_t>(a, row_a), Load<int32_t>(b, row_b));
    case TypeId::kInt64:
    case TypeId::kTimestamp:
      return Compare3(Load<int64_t>(a, row_a), Load<int64_t>(b, row_b));
    case TypeId::kUInt8:
      return Compare3(Load<uint8_t>(a, row_a), Load<uint8_t>(b, row_b));
    case TypeId::kUInt16:
      return Compare3(Load<uint16_t>(a, row_a), Load<uint16_t>(b, row_b));
    case TypeId::kUInt32:
      return Compare3(Load<uint32_t>(a, row_a), Load<uint32_t>(b, row_b));
    case TypeId::kUInt64:
      return Compare3(Load<uint64_t>(a, row_a), Load<uint64_t>(b, row_b));
    case TypeId::kFloat32:
      return CompareDoubles(Load<float>(a, row_a), Load<float>(b, row_b));
    case TypeId::kFloat64:
      return CompareDoubles(Load<double>(a, row_a), Load<double>(b, row_b));
    case TypeId::kDecimal128:
      return Compare3(Load<__int128>(a, row_a), Load<__int128>(b, row_b));
    case TypeId::kFloat16:
      return CompareDoubles(testing::ReferenceHalfToDouble(Load<uint16_t>(a, row_a)),
                            testing::ReferenceHalfToDouble(Load<uint16_t>(b, row_b)));
    case TypeId::kTime32:
    case TypeId::kIntervalYearMonth:
    case TypeId::kDecimal32:
      return Compare3(Load<int32_t>(a, row_a), Load<int32_t>(b, row_b));
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kDuration:
    case TypeId::kDecimal64:
      return Compare3(Load<int64_t>(a, row_a), Load<int64_t>(b, row_b));
    case TypeId::kIntervalDayTime: {
      // By length, a day taken as 86,400 seconds.
      auto length = [](const ArrayData& array, int64_t row) {
        const auto parts = Load<std::array<int32_t, 2>>(array, row);
        return std::chrono::milliseconds(std::chrono::days(parts[0])) +
               std::chrono::milliseconds(parts[1]);
      };
      return Compare3(length(a, row_a), length(b, row_b));
    }
    case TypeId::kDecimal256: {
      // Sign first, then the magnitude's words from the most significant.
      const auto x = Load<std::array<uint64_t, 4>>(a, row_a);
      const auto y = Load<std::array<uint64_t, 4>>(b, row_b);
      const bool x_negative = (x[3] >> 63) != 0;
      const bool y_negative = (y[3] >> 63) != 0;
      if (x_negative != y_negative) return x_negative ? -1 : 1;
      for (int word = 3; word >= 0; --word) {
        if (x[word] != y[word]) return x[word] < y[word] ? -1 : 1;
      }
      return 0;
    }
    default: {
      // Unsigned bytes, shorter prefix first, as UTF8String.compareTo and compareBinary.
      const std::string_view x = BytesAt(a, row_a);
      const std::string_view y = BytesAt(b, row_b);
      const size_t common = std::min(x.size(), y.size());
      for (size_t k = 0; k < common; ++k) {
        const auto cx = static_cast<unsigned char>(x[k]);
        const auto cy = static_cast<unsigned char>(y[k]);
        if (cx != cy) return cx < cy ? -1 : 1;
      }
      return Compare3(x.size(), y.size());
    }
  }
}

// Spark's ordering of one sort key: null placement first, then the direction.
int CompareKey(const ArrayData& a, int64_t row_a, const ArrayData& b, int64_t row_b,
               SortOrder order) {
  const bool a_null = a.IsNull(row_a);
  const bool b_null = b.IsNull(row_b);
  if (a_null && b_null) return 0;
  if (a_null) return order.null_ordering == NullOrdering::kNullsFirst ? -1 : 1;
  if (b_null) return order.null_ordering == NullOrdering::kNullsFirst ? 1 : -1;
  const int comparison = CompareValues(a, row_a, b, row_b);
  return order.direction == SortDirection::kAscending ? comparison : -comparison;
}

int CompareRows(const std::vector<const ArrayData*>& a, int64_t row_a,
                const std::vector<const ArrayData*>& b, int64_t row_b,
                const std::vector<SortOrder>& orders) {
  for (size_t c = 0; c < a.size(); ++c) {
    const int comparison = CompareKey(*a[c], row_a, *b[c], row_b, orders[c]);
    if (comparison != 0) return comparison;
  }
  return 0;
}

std::vector<uint32_t> ReferencePartitions(const RecordBatch& keys, const RecordBatch& bounds,
                                          const std::vector<SortOrder>& orders) {
  std::vector<const ArrayData*> key_columns;
  std::vector<const ArrayData*> bound_columns;
  for (size_t c = 0; c < keys.num_columns(); ++c) {
    key_columns.push_back(&keys.column(c));
    bound_columns.push_back(&bounds.column(c));
  }
  std::vector<uint32_t> ids;
  for (int64_t row = 0; row < keys.num_rows(); ++row) {
    uint32_t partition = 0;
    while (partition < bounds.num_rows() &&
           CompareRows(key_columns, row, bound_columns, partition, orders) > 0) {
      ++partition;
    }
    ids.push_back(partition);
  }
  return ids;
}

// Appends row `row` of a flat array to a builder of the same type.
void CopyValue(ArrayBuilder& builder, const ArrayData& array, int64_t row) {
  if (array.IsNull(row)) {
    builder.AppendNull();
    return;
  }
  const TypeId id = array.type->id();
  if (id == TypeId::kBoolean) {
    builder.Append<bool>(bits::GetBit(array.buffers[1].data, array.offset + row));
  } else if (IsFixedWidth(id)) {
    const int64_t width = BitWidth(*array.type) / 8;
    builder.AppendBytes(array.buffers[1].data + (array.offset + row) * width, width);
  } else {
    const std::string_view bytes = BytesAt(array, row);
    builder.AppendBytes(bytes.data(), std::ssize(bytes));
  }
}

// Builds bounds from rows of `source`, sorted by `orders` (ties kept).
RecordBatch SortedBounds(const RecordBatch& source, std::vector<int64_t> rows,
                         const std::vector<SortOrder>& orders) {
  std::vector<const ArrayData*> columns;
  for (const ArrayData& column : source.columns()) columns.push_back(&column);
  std::stable_sort(rows.begin(), rows.end(), [&](int64_t a, int64_t b) {
    return CompareRows(columns, a, columns, b, orders) < 0;
  });
  auto builders = MakeBuilders(*source.schema());
  for (const int64_t row : rows) {
    for (size_t c = 0; c < columns.size(); ++c) CopyValue(*builders[c], *columns[c], row);
  }
  return FinishBatch(source.schema(), builders);
}

using testing::BatchMaker;

Result<std::unique_ptr<Partitioner>> MakeRange(
    const Schema& schema, std::vector<int> keys, const RecordBatch& bounds,
    std::vector<SortOrder> orders = {},
    int32_t linear_max = PartitionerOptions{}.range_linear_scan_max_bounds) {
  PartitionerOptions options;
  options.kind = PartitionKind::kRange;
  options.partition_count = 0;
  options.key_columns = std::move(keys);
  options.range_bounds = bounds;
  options.sort_orders = std::move(orders);
  options.range_linear_scan_max_bounds = linear_max;
  return MakePartitioner(options, schema);
}

std::vector<uint32_t> PartitionAll(Partitioner& partitioner, const RecordBatch& batch) {
  std::vector<uint32_t> ids(static_cast<size_t>(batch.num_rows()));
  const Status status = partitioner.Partition(batch, ids.data());
  EXPECT_TRUE(status.ok()) << status.ToString();
  return ids;
}

RecordBatch Int64Column(const std::vector<std::optional<int64_t>>& values) {
  BatchMaker maker({MakeField("k", DataType::Int64())});
  for (const auto& v : values) {
    if (v.has_value()) {
      maker[0].Append<int64_t>(*v);
    } else {
      maker[0].AppendNull();
    }
  }
  return maker.Finish();
}

// ---------------------------------------------------------------------------------------------
// Spark's semantics, case by case.

TEST(RangePartitionerTest, KeyEqualToABoundGoesToThatBoundsPartition) {
  const RecordBatch bounds = Int64Column({10, 20, 30});
  const RecordBatch keys = Int64Column({5, 10, 11, 20, 29, 30, 31, INT64_MIN, INT64_MAX});
  for (int32_t linear_max : {128, 0}) {
    auto partitioner =
        std::move(MakeRange(*keys.schema(), {0}, bounds, {}, linear_max)).ValueOrDie();
    EXPECT_EQ(partitioner->kind(), PartitionKind::kRange);
    EXPECT_EQ(partitioner->partition_count(), 4);
    EXPECT_EQ(PartitionAll(*partitioner, keys), (std::vector<uint32_t>{0, 0, 1, 1, 2, 2, 3, 0, 3}));
  }
}

TEST(RangePartitionerTest, NullKeysGoFirstOrLast) {
  const RecordBatch bounds = Int64Column({10, 20});
  const RecordBatch keys = Int64Column({std::nullopt, 15, std::nullopt});
  auto first = std::move(MakeRange(*keys.schema(), {0}, bounds,
                                   {{SortDirection::kAscending, NullOrdering::kNullsFirst}}))
                   .ValueOrDie();
  EXPECT_EQ(PartitionAll(*first, keys), (std::vector<uint32_t>{0, 1, 0}));
  auto last = std::move(MakeRange(*keys.schema(), {0}, bounds,
                                  {{SortDirection::kAscending, NullOrdering::kNullsLast}}))
                  .ValueOrDie();
  EXPECT_EQ(PartitionAll(*last, keys), (std::vector<uint32_t>{2, 1, 2}));
}

TEST(RangePartitionerTest, NullBoundsEqualNullKeys) {
  // Nulls first: bounds (null, 10, 20). A null key equals bound 0.
  const RecordBatch keys = Int64Column({std::nullopt, -5, 10, 25});
  auto first = std::move(MakeRange(*keys.schema(), {0}, Int64Column({std::nullopt, 10, 20}),
                                   {{SortDirection::kAscending, NullOrdering::kNullsFirst}}))
                   .ValueOrDie();
  EXPECT_EQ(PartitionAll(*first, keys), (std::vector<uint32_t>{0, 1, 1, 3}));
  // Nulls last: bounds (10, 20, null). A null key equals bound 2; 25 is below it.
  auto last = std::move(MakeRange(*keys.schema(), {0}, Int64Column({10, 20, std::nullopt}),
                                  {{SortDirection::kAscending, NullOrdering::kNullsLast}}))
                  .ValueOrDie();
  EXPECT_EQ(PartitionAll(*last, keys), (std::vector<uint32_t>{2, 0, 0, 2}));
}

TEST(RangePartitionerTest, DescendingKeys) {
  const RecordBatch bounds = Int64Column({30, 20, 10});
  const RecordBatch keys = Int64Column({35, 30, 25, 20, 10, 5, std::nullopt});
  auto partitioner = std::move(MakeRange(*keys.schema(), {0}, bounds,
                                         {{SortDirection::kDescending, NullOrdering::kNullsLast}}))
                         .ValueOrDie();
  EXPECT_EQ(PartitionAll(*partitioner, keys), (std::vector<uint32_t>{0, 0, 1, 1, 2, 3, 3}));
}

TEST(RangePartitionerTest, FloatsOrderNaNAboveEverythingAndZerosEqual) {
  BatchMaker bounds_maker({MakeField("f", DataType::Float64())});
  for (double v : {-1.0, 0.0, std::numeric_limits<double>::infinity()}) {
    bounds_maker[0].Append<double>(v);
  }
  const RecordBatch bounds = bounds_maker.Finish();
  BatchMaker keys_maker({MakeField("f", DataType::Float64())});
  for (double v : {-0.0, 0.0, std::numeric_limits<double>::quiet_NaN(),
                   -std::numeric_limits<double>::quiet_NaN(),
                   std::numeric_limits<double>::infinity(), -2.0, 1e300}) {
    keys_maker[0].Append<double>(v);
  }
  const RecordBatch keys = keys_maker.Finish();
  auto partitioner = std::move(MakeRange(*keys.schema(), {0}, bounds)).ValueOrDie();
  EXPECT_EQ(PartitionAll(*partitioner, keys), (std::vector<uint32_t>{1, 1, 3, 3, 2, 0, 2}));
}

TEST(RangePartitionerTest, StringsCompareAsUnsignedBytesShorterFirst) {
  BatchMaker bounds_maker({MakeField("s", DataType::Utf8())});
  for (const char* v : {"b", "ba", "\xc3\xa9"}) bounds_maker[0].AppendString(v);
  const RecordBatch bounds = bounds_maker.Finish();
  BatchMaker keys_maker({MakeField("s", DataType::Utf8())});
  for (const char* v : {"", "a", "b", "b\x01", "ba", "bz", "z", "\xc3\xa9", "\xff"}) {
    keys_maker[0].AppendString(v);
  }
  const RecordBatch keys = keys_maker.Finish();
  auto partitioner = std::move(MakeRange(*keys.schema(), {0}, bounds)).ValueOrDie();
  EXPECT_EQ(PartitionAll(*partitioner, keys), (std::vector<uint32_t>{0, 0, 0, 1, 1, 2, 2, 2, 3}));
}

TEST(RangePartitionerTest, SeveralKeyColumnsCompareLexicographically) {
  BatchMaker bounds_maker({MakeField("a", DataType::Int32()), MakeField("b", DataType::Utf8())});
  const std::pair<int32_t, const char*> bound_rows[] = {{1, "b"}, {2, "a"}, {2, "c"}};
  for (const auto& [a, b] : bound_rows) {
    bounds_maker[0].Append<int32_t>(a);
    bounds_maker[1].AppendString(b);
  }
  const RecordBatch bounds = bounds_maker.Finish();
  BatchMaker keys_maker({MakeField("x", DataType::Float32()), MakeField("a", DataType::Int32()),
                         MakeField("b", DataType::Utf8())});
  const std::pair<int32_t, const char*> key_rows[] = {
      {1, "a"}, {1, "b"}, {1, "c"}, {2, "a"}, {2, "b"}, {2, "c"}, {2, "d"}, {3, ""}, {0, "zzz"}};
  for (const auto& [a, b] : key_rows) {
    keys_maker[0].Append<float>(0.5f);
    keys_maker[1].Append<int32_t>(a);
    keys_maker[2].AppendString(b);
  }
  const RecordBatch keys = keys_maker.Finish();
  for (int32_t linear_max : {128, 0}) {
    auto partitioner =
        std::move(MakeRange(*keys.schema(), {1, 2}, bounds, {}, linear_max)).ValueOrDie();
    EXPECT_EQ(PartitionAll(*partitioner, keys), (std::vector<uint32_t>{0, 0, 1, 1, 2, 2, 3, 3, 0}));
  }
}

TEST(RangePartitionerTest, NoBoundsMeansOnePartition) {
  const RecordBatch bounds = Int64Column({});
  const RecordBatch keys = Int64Column({1, std::nullopt, -1});
  auto partitioner = std::move(MakeRange(*keys.schema(), {0}, bounds)).ValueOrDie();
  EXPECT_EQ(partitioner->partition_count(), 1);
  EXPECT_EQ(PartitionAll(*partitioner, keys), (std::vector<uint32_t>{0, 0, 0}));
}

TEST(RangePartitionerTest, RejectsBadOptions) {
  const RecordBatch keys = Int64Column({1});
  // Unsorted bounds.
  const Status unsorted = MakeRange(*keys.schema(), {0}, Int64Column({10, 5})).status();
  EXPECT_TRUE(unsorted.IsInvalid());
  EXPECT_NE(unsorted.message().find("not sorted"), std::string::npos) << unsorted.message();
  // Sorted ascending but declared descending.
  EXPECT_TRUE(MakeRange(*keys.schema(), {0}, Int64Column({5, 10}),
                        {{SortDirection::kDescending, NullOrdering::kNullsLast}})
                  .status()
                  .IsInvalid());
  // A null bound on the wrong side for the null ordering.
  EXPECT_TRUE(MakeRange(*keys.schema(), {0}, Int64Column({5, std::nullopt})).status().IsInvalid());
  // Bounds of another type than the key.
  BatchMaker strings({MakeField("s", DataType::Utf8())});
  strings[0].AppendString("a");
  const Status mismatch = MakeRange(*keys.schema(), {0}, strings.Finish()).status();
  EXPECT_TRUE(mismatch.IsInvalid());
  EXPECT_NE(mismatch.message().find("has type string"), std::string::npos) << mismatch.message();
  // Wrong counts.
  EXPECT_TRUE(MakeRange(*keys.schema(), {0, 0}, Int64Column({1})).status().IsInvalid());
  EXPECT_TRUE(MakeRange(*keys.schema(), {0}, Int64Column({1}), {SortOrder{}, SortOrder{}})
                  .status()
                  .IsInvalid());
  PartitionerOptions options;
  options.kind = PartitionKind::kRange;
  options.key_columns = {0};
  options.range_bounds = Int64Column({1, 2});
  options.partition_count = 5;
  const Status count = MakePartitioner(options, *keys.schema()).status();
  EXPECT_TRUE(count.IsInvalid());
  EXPECT_NE(count.message().find("3 partitions"), std::string::npos) << count.message();
  options.partition_count = 3;
  EXPECT_TRUE(MakePartitioner(options, *keys.schema()).ok());
}

// Run-end encoded keys and bounds compare as their values: every row lands where the same
// value unencoded does, nulls and descending order included.
TEST(RangePartitionerTest, RunEndEncodedKeysLandWhereTheirValuesDo) {
  const TypePtr encoded = DataType::RunEndEncoded(DataType::Int32(), DataType::Utf8());
  const std::vector<std::optional<std::string>> bounds_values = {"b", "m", std::nullopt};
  const std::vector<std::optional<std::string>> key_values = {"a", "a", "b", std::nullopt, "c", "c",
                                                              "c", "m", "z", std::nullopt, "b"};
  const auto make = [&](const std::vector<std::optional<std::string>>& values, bool run_end) {
    BatchMaker maker({MakeField("k", run_end ? encoded : DataType::Utf8())});
    ArrayBuilder& target = run_end ? maker[0].child(1) : maker[0];
    for (size_t i = 0; i < values.size(); ++i) {
      if (run_end && i > 0 && values[i] == values[i - 1]) {
        maker[0].AppendValid();  // the last run once more
        continue;
      }
      if (values[i].has_value()) {
        target.AppendString(*values[i]);
      } else {
        target.AppendNull();
      }
      if (run_end) maker[0].AppendValid();
    }
    return maker.Finish();
  };
  const RecordBatch plain_keys = make(key_values, false);
  const RecordBatch encoded_keys = make(key_values, true);
  for (const SortOrder order : {SortOrder{SortDirection::kAscending, NullOrdering::kNullsLast},
                                SortOrder{SortDirection::kDescending, NullOrdering::kNullsLast}}) {
    std::vector<std::optional<std::string>> sorted = bounds_values;
    if (order.direction == SortDirection::kDescending) std::swap(sorted[0], sorted[1]);
    auto plain =
        std::move(MakeRange(*plain_keys.schema(), {0}, make(sorted, false), {order})).ValueOrDie();
    auto by_runs =
        std::move(MakeRange(*encoded_keys.schema(), {0}, make(sorted, true), {order})).ValueOrDie();
    const std::vector<uint32_t> expected = PartitionAll(*plain, plain_keys);
    EXPECT_EQ(PartitionAll(*by_runs, encoded_keys), expected);
    EXPECT_EQ(PartitionAll(*by_runs, encoded_keys.Slice(3, 6)),
              std::vector<uint32_t>(expected.begin() + 3, expected.begin() + 9));
  }
}

// Dictionary keys and bounds compare as the values their indices select (dictionaries in any
// order, a value repeated in the dictionary, null rows and a null dictionary value): every row
// lands where the same value unencoded does.
TEST(RangePartitionerTest, DictionaryKeysLandWhereTheirValuesDo) {
  const TypePtr dictionary_type = DataType::Dictionary(DataType::Int16(), DataType::Utf8());
  const std::vector<std::optional<std::string>> dictionary = {"z", "b", std::nullopt, "a",
                                                              "m", "c", "b"};
  const std::vector<int> key_indices = {3, 3, 1, -1, 5, 6, 2, 4, 0, -1, 1};
  const std::vector<int> bound_indices = {1, 4, 2};  // "b", "m", null
  const auto make = [&](const std::vector<int>& indices, bool encoded) {
    BatchMaker maker({MakeField("k", encoded ? dictionary_type : DataType::Utf8())});
    if (encoded) {
      for (const auto& value : dictionary) {
        if (value.has_value()) {
          maker[0].child(0).AppendString(*value);
        } else {
          maker[0].child(0).AppendNull();
        }
      }
    }
    for (const int index : indices) {
      if (index < 0) {
        maker[0].AppendNull();
      } else if (encoded) {
        maker[0].Append<int16_t>(static_cast<int16_t>(index));
      } else if (dictionary[static_cast<size_t>(index)].has_value()) {
        maker[0].AppendString(*dictionary[static_cast<size_t>(index)]);
      } else {
        maker[0].AppendNull();
      }
    }
    return maker.Finish();
  };
  const RecordBatch plain_keys = make(key_indices, false);
  const RecordBatch encoded_keys = make(key_indices, true);
  for (const SortOrder order : {SortOrder{SortDirection::kAscending, NullOrdering::kNullsLast},
                                SortOrder{SortDirection::kDescending, NullOrdering::kNullsLast}}) {
    std::vector<int> sorted = bound_indices;
    if (order.direction == SortDirection::kDescending) std::swap(sorted[0], sorted[1]);
    auto plain =
        std::move(MakeRange(*plain_keys.schema(), {0}, make(sorted, false), {order})).ValueOrDie();
    auto by_dictionary =
        std::move(MakeRange(*encoded_keys.schema(), {0}, make(sorted, true), {order})).ValueOrDie();
    const std::vector<uint32_t> expected = PartitionAll(*plain, plain_keys);
    EXPECT_EQ(PartitionAll(*by_dictionary, encoded_keys), expected);
    EXPECT_EQ(PartitionAll(*by_dictionary, encoded_keys.Slice(3, 6)),
              std::vector<uint32_t>(expected.begin() + 3, expected.begin() + 9));
  }
}

TEST(RangePartitionerTest, NestedKeysAreNotImplemented) {
  BatchMaker maker({MakeField("l", DataType::List(DataType::Int32()))});
  maker[0].AppendValid();
  const RecordBatch bounds = maker.Finish();
  const Status status = MakeRange(*bounds.schema(), {0}, bounds).status();
  EXPECT_TRUE(status.IsNotImplemented());
  EXPECT_NE(status.message().find("list<"), std::string::npos) << status.message();
}

// ---------------------------------------------------------------------------------------------
// Property: both search paths equal the reference linear scan, for every flat type, orders and
// bound counts on either side of the linear-scan threshold.

// The types range partitioning compares: every leaf type but month_day_nano intervals, which
// have no order.
std::vector<TypePtr> FlatTypes() {
  std::vector<TypePtr> types;
  for (TypePtr type : testing::AllLeafTypes()) {
    if (type->id() != TypeId::kIntervalMonthDayNano) types.push_back(std::move(type));
  }
  return types;
}

void CheckAgainstReference(const RecordBatch& keys, int64_t bound_count, std::mt19937_64& rng,
                           const std::string& label) {
  std::vector<SortOrder> orders;
  for (size_t c = 0; c < keys.num_columns(); ++c) {
    orders.push_back({(rng() & 1) ? SortDirection::kDescending : SortDirection::kAscending,
                      (rng() & 1) ? NullOrdering::kNullsLast : NullOrdering::kNullsFirst});
  }
  // Bounds are rows of the keys themselves, so many keys equal a bound.
  std::vector<int64_t> rows;
  std::uniform_int_distribution<int64_t> pick(0, keys.num_rows() - 1);
  for (int64_t b = 0; b < bound_count; ++b) rows.push_back(pick(rng));
  const RecordBatch bounds = SortedBounds(keys, rows, orders);
  std::vector<int> key_columns(keys.num_columns());
  std::iota(key_columns.begin(), key_columns.end(), 0);
  const std::vector<uint32_t> expected = ReferencePartitions(keys, bounds, orders);
  for (int32_t linear_max : {0, std::numeric_limits<int32_t>::max()}) {
    auto partitioner = MakeRange(*keys.schema(), key_columns, bounds, orders, linear_max);
    ASSERT_TRUE(partitioner.ok()) << label << ": " << partitioner.status().ToString();
    const std::vector<uint32_t> ids = PartitionAll(**partitioner, keys);
    for (size_t row = 0; row < ids.size(); ++row) {
      ASSERT_EQ(ids[row], expected[row])
          << label << " bounds " << bound_count << (linear_max == 0 ? " binary" : " linear")
          << " row " << row;
    }
  }
}

TEST(RangePartitionerPropertyTest, EveryFlatTypeEqualsTheReferenceScan) {
  std::mt19937_64 rng(99);
  for (const TypePtr& type : FlatTypes()) {
    auto schema = std::make_shared<Schema>(std::vector<Field>{MakeField("k", type)});
    const RecordBatch keys = testing::RandomBatch(schema, 600, rng(), {.null_probability = 0.1});
    for (int64_t bound_count : {1, 3, 127, 128, 129, 199, 1000}) {
      CheckAgainstReference(keys, bound_count, rng, type->ToString());
    }
    CheckAgainstReference(keys.Slice(37, 500), 199, rng, type->ToString() + " sliced");
  }
}

TEST(RangePartitionerPropertyTest, SeveralKeyColumnsEqualTheReferenceScan) {
  std::mt19937_64 rng(7);
  const std::vector<TypePtr> types = FlatTypes();
  for (int round = 0; round < 25; ++round) {
    std::vector<Field> fields;
    const int columns = 2 + static_cast<int>(rng() % 2);
    // A low-cardinality first column makes equal prefixes common.
    fields.push_back(MakeField("k0", (rng() & 1) ? DataType::Boolean() : DataType::Int8()));
    for (int c = 1; c < columns; ++c) {
      fields.push_back(MakeField("k" + std::to_string(c), types[rng() % types.size()]));
    }
    auto schema = std::make_shared<Schema>(std::move(fields));
    const RecordBatch keys = testing::RandomBatch(schema, 1500, rng(), {.null_probability = 0.15});
    for (int64_t bound_count : {5, 200, 700}) {
      CheckAgainstReference(keys, bound_count, rng, "round " + std::to_string(round));
    }
  }
}

}  // namespace
}  // namespace sluice
