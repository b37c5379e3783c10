// The UnsafeRow layout, checked in both directions against bytes written by hand from the
// documented format (and against the shared vector): ColumnarToRowConverter must produce exactly
// these bytes, and RowToColumnarConverter must read them back into the same values.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "row/unsafe_row_bytes.h"
#include "sluice/format/array_builder.h"
#include "sluice/format/array_compare.h"
#include "sluice/row/columnar_to_row_converter.h"
#include "sluice/row/row_to_columnar_converter.h"
#include "support/batch_maker.h"

namespace sluice {
namespace {

using testing::HexWords;
using testing::RowBytes;

using Builders = std::vector<std::unique_ptr<ArrayBuilder>>;

// One row: its schema, how to build it column by column, and its expected bytes.
struct LayoutCase {
  std::string name;
  SchemaPtr schema;
  std::function<void(Builders&)> fill;
  RowBytes expected;
};

using testing::MakeSchema;

void ExpectBothWays(const LayoutCase& layout) {
  SCOPED_TRACE(layout.name);
  Builders builders = MakeBuilders(*layout.schema);
  layout.fill(builders);
  RecordBatch batch = FinishBatch(layout.schema, builders);

  // Columnar to row.
  UnsafeRowBatch rows = testing::ToRows(batch);
  ASSERT_EQ(rows.num_rows(), 1);
  const std::vector<uint8_t> actual = testing::RowAt(rows, 0);
  EXPECT_EQ(actual, layout.expected.bytes()) << "actual:\n"
                                             << HexWords(actual) << "expected:\n"
                                             << HexWords(layout.expected.bytes());

  // Row to columnar.
  auto converter = RowToColumnarConverter::Make(layout.schema).ValueOrDie();
  const uint8_t* pointer = layout.expected.bytes().data();
  const int32_t size = layout.expected.size();
  const Status status = converter->Append(&pointer, &size, 1);
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::string difference;
  EXPECT_TRUE(BatchesEqual(converter->View(), batch, &difference)) << difference;
}

TEST(UnsafeRowLayoutTest, TheSharedVectorRowBothWays) {
  const testing::UnsafeRowVector vector = testing::ReadUnsafeRowVector();
  ASSERT_EQ(static_cast<int64_t>(vector.row.size()), vector.declared_size);
  LayoutCase layout{"unsafe_row.txt",
                    MakeSchema({MakeField("a", DataType::Int32()), MakeField("b", DataType::Utf8()),
                                MakeField("c", DataType::Int64())}),
                    [](Builders& builders) {
                      builders[0]->Append<int32_t>(1);
                      builders[1]->AppendString("hello");
                      builders[2]->AppendNull();
                    },
                    {}};
  layout.expected.Padded(vector.row);
  ExpectBothWays(layout);
}

TEST(UnsafeRowLayoutTest, TheSharedVectorFramingBothWays) {
  const testing::UnsafeRowVector vector = testing::ReadUnsafeRowVector();
  ASSERT_EQ(vector.frame_prefix.size(), 4u);
  const SchemaPtr schema =
      MakeSchema({MakeField("a", DataType::Int32()), MakeField("b", DataType::Utf8()),
                  MakeField("c", DataType::Int64())});
  Builders builders = MakeBuilders(*schema);
  for (int i = 0; i < 2; ++i) {
    builders[0]->Append<int32_t>(1);
    builders[1]->AppendString("hello");
    builders[2]->AppendNull();
  }
  RecordBatch batch = FinishBatch(schema, builders);
  std::vector<uint8_t> stream;
  for (int i = 0; i < 2; ++i) {
    stream.insert(stream.end(), vector.frame_prefix.begin(), vector.frame_prefix.end());
    stream.insert(stream.end(), vector.row.begin(), vector.row.end());
  }

  UnsafeRowBatch rows = testing::ToRows(batch, RowFraming::kSizePrefixed);
  ASSERT_EQ(rows.bytes.size(), static_cast<int64_t>(stream.size()));
  EXPECT_EQ(std::memcmp(rows.bytes.data(), stream.data(), stream.size()), 0);
  EXPECT_EQ(rows.offsets, (std::vector<int64_t>{4, 48}));
  EXPECT_EQ(rows.sizes, (std::vector<int32_t>{40, 40}));

  std::vector<const uint8_t*> pointers;
  std::vector<int32_t> sizes;
  ASSERT_TRUE(
      SplitFramedRows(stream.data(), static_cast<int64_t>(stream.size()), &pointers, &sizes).ok());
  ASSERT_EQ(sizes, (std::vector<int32_t>{40, 40}));
  auto converter = RowToColumnarConverter::Make(schema).ValueOrDie();
  ASSERT_TRUE(converter->Append(pointers.data(), sizes.data(), 2).ok());
  std::string difference;
  EXPECT_TRUE(BatchesEqual(converter->View(), batch, &difference)) << difference;
}

TEST(UnsafeRowLayoutTest, ArrayOfIntWithANullElement) {
  LayoutCase layout{"array<int>",
                    MakeSchema({MakeField("a", DataType::List(DataType::Int32()))}),
                    [](Builders& builders) {
                      ArrayBuilder& elements = builders[0]->child(0);
                      elements.Append<int32_t>(1);
                      elements.AppendNull();
                      elements.Append<int32_t>(3);
                      builders[0]->AppendValid();
                    },
                    {}};
  layout.expected
      .Word(0)                // row null bits
      .OffsetAndSize(16, 32)  // a: the array right after the 16-byte fixed region
      .Word(3)                // array: 3 elements
      .Word(0x2)              // element 1 is null
      .Value(1, 4)            // elements at 4 bytes each
      .Value(0, 4)            // the null element is zero
      .Value(3, 4)
      .Pad();  // 12 bytes of elements padded to 16
  ExpectBothWays(layout);
}

TEST(UnsafeRowLayoutTest, ShortAndBooleanElementsAtTheirNaturalWidth) {
  LayoutCase layout{"array<smallint>, array<boolean>",
                    MakeSchema({MakeField("s", DataType::List(DataType::Int16())),
                                MakeField("b", DataType::List(DataType::Boolean()))}),
                    [](Builders& builders) {
                      builders[0]->child(0).Append<int16_t>(1);
                      builders[0]->child(0).Append<int16_t>(-2);
                      builders[0]->child(0).Append<int16_t>(3);
                      builders[0]->AppendValid();
                      builders[1]->child(0).Append<bool>(true);
                      builders[1]->child(0).Append<bool>(false);
                      builders[1]->AppendValid();
                    },
                    {}};
  layout.expected.Word(0)
      .OffsetAndSize(24, 24)  // s: 16-byte header, 6 bytes of elements padded to 8
      .OffsetAndSize(48, 24)  // b: 16-byte header, 2 bytes padded to 8
      .Word(3)
      .Word(0)
      .Value(1, 2)
      .Value(0xfffe, 2)
      .Value(3, 2)
      .Pad()
      .Word(2)
      .Word(0)
      .Value(1, 1)
      .Value(0, 1)
      .Pad();
  ExpectBothWays(layout);
}

TEST(UnsafeRowLayoutTest, MapOfStringToLong) {
  LayoutCase layout{
      "map<string,bigint>",
      MakeSchema({MakeField("m", DataType::Map(DataType::Utf8(), DataType::Int64()))}),
      [](Builders& builders) {
        ArrayBuilder& entries = builders[0]->child(0);
        entries.child(0).AppendString("a");
        entries.child(1).Append<int64_t>(1);
        entries.AppendValid();
        entries.child(0).AppendString("bcd");
        entries.child(1).AppendNull();
        entries.AppendValid();
        builders[0]->AppendValid();
      },
      {}};
  layout.expected.Word(0)
      .OffsetAndSize(16, 88)  // m: 8 + key array 48 + value array 32
      .Word(48)               // the key array's size in bytes
      .Word(2)                // key array: 2 elements, no nulls
      .Word(0)
      .OffsetAndSize(32, 1)  // "a", its offset counted from the key array's start
      .OffsetAndSize(40, 3)  // "bcd"
      .Text("a")
      .Text("bcd")
      .Word(2)  // value array: 2 elements, the second null
      .Word(0x2)
      .Word(1)
      .Word(0);
  ExpectBothWays(layout);
}

TEST(UnsafeRowLayoutTest, StructInStruct) {
  const TypePtr inner =
      DataType::Struct({MakeField("y", DataType::Utf8()), MakeField("z", DataType::Int64())});
  LayoutCase layout{"struct<x:int,t:struct<y:string,z:bigint>>",
                    MakeSchema({MakeField("s", DataType::Struct({MakeField("x", DataType::Int32()),
                                                                 MakeField("t", inner)}))}),
                    [](Builders& builders) {
                      ArrayBuilder& s = *builders[0];
                      s.child(0).Append<int32_t>(7);
                      s.child(1).child(0).AppendString("hi");
                      s.child(1).child(1).AppendNull();
                      s.child(1).AppendValid();
                      s.AppendValid();
                    },
                    {}};
  layout.expected.Word(0)
      .OffsetAndSize(16, 56)  // s: a nested row of 56 bytes
      .Word(0)                // s: null bits
      .Word(7)                // s.x
      .OffsetAndSize(24, 32)  // s.t, its offset counted from s's start
      .Word(0x2)              // t: z is null
      .OffsetAndSize(24, 2)   // t.y, counted from t's start
      .Word(0)                // t.z
      .Text("hi");
  ExpectBothWays(layout);
}

TEST(UnsafeRowLayoutTest, NegativeLargeDecimalAndTheReservedNullOne) {
  LayoutCase layout{
      "decimal(38,10) x2",
      MakeSchema({MakeField("d", DataType::Decimal128(38, 10)),
                  MakeField("e", DataType::Decimal128(38, 10))}),
      [](Builders& builders) {
        builders[0]->Append<__int128>(-static_cast<__int128>(12345678901234567890ull));
        builders[1]->AppendNull();
      },
      {}};
  // -12345678901234567890 as Java's BigInteger.toByteArray: 9 big-endian bytes.
  layout.expected
      .Word(0x2)             // e is null
      .OffsetAndSize(24, 9)  // d: 9 bytes at the start of its 16-byte region
      .OffsetAndSize(40, 0)  // e: null, its 16-byte region reserved all the same
      .Padded({0xff, 0x54, 0xab, 0x56, 0x73, 0x14, 0xe0, 0xf5, 0x2e})  // d's region, 16 bytes
      .Word(0)                                                         // e's region, zeroed
      .Word(0);
  ExpectBothWays(layout);
}

TEST(UnsafeRowLayoutTest, LargeDecimalElementsInMinimalWords) {
  LayoutCase layout{"array<decimal(20,2)>",
                    MakeSchema({MakeField("a", DataType::List(DataType::Decimal128(20, 2)))}),
                    [](Builders& builders) {
                      builders[0]->child(0).Append<__int128>(-1);
                      builders[0]->child(0).AppendNull();
                      builders[0]->child(0).Append<__int128>(128);
                      builders[0]->AppendValid();
                    },
                    {}};
  layout.expected.Word(0)
      .OffsetAndSize(16, 56)
      .Word(3)
      .Word(0x2)
      .OffsetAndSize(40, 1)  // -1: one byte, ff
      .Word(0)               // null: no bytes at all in an array
      .OffsetAndSize(48, 2)  // 128: 00 80
      .Padded({0xff})
      .Padded({0x00, 0x80});
  ExpectBothWays(layout);
}

TEST(UnsafeRowLayoutTest, SmallDecimalsAsLongs) {
  LayoutCase layout{"decimal(18,2), array<decimal(10,0)>",
                    MakeSchema({MakeField("d", DataType::Decimal128(18, 2)),
                                MakeField("a", DataType::List(DataType::Decimal128(10, 0)))}),
                    [](Builders& builders) {
                      builders[0]->Append<__int128>(-12345);
                      builders[1]->child(0).Append<__int128>(7);
                      builders[1]->AppendValid();
                    },
                    {}};
  layout.expected.Word(0)
      .Word(static_cast<uint64_t>(int64_t{-12345}))
      .OffsetAndSize(24, 24)
      .Word(1)
      .Word(0)
      .Word(7);
  ExpectBothWays(layout);
}

TEST(UnsafeRowLayoutTest, NullTypeEmptyStringEmptyArrayEmptyStruct) {
  LayoutCase layout{"void, string, array<bigint>, struct<>",
                    MakeSchema({MakeField("n", DataType::Null()), MakeField("s", DataType::Utf8()),
                                MakeField("l", DataType::List(DataType::Int64())),
                                MakeField("st", DataType::Struct({}))}),
                    [](Builders& builders) {
                      builders[0]->AppendNull();
                      builders[1]->AppendString("");
                      builders[2]->AppendValid();
                      builders[3]->AppendValid();
                    },
                    {}};
  layout.expected
      .Word(0x1)  // n is null
      .Word(0)
      .OffsetAndSize(40, 0)  // "" takes no bytes
      .OffsetAndSize(40, 8)  // [] is only its element count
      .OffsetAndSize(48, 0)  // struct<> is a row of no bytes
      .Word(0);
  ExpectBothWays(layout);
}

TEST(UnsafeRowLayoutTest, ArrayOfStructsAndArrayOfArrays) {
  const TypePtr point =
      DataType::Struct({MakeField("x", DataType::Int64()), MakeField("s", DataType::Utf8())});
  LayoutCase layout{"array<struct<x:bigint,s:string>>, array<array<int>>",
                    MakeSchema({MakeField("p", DataType::List(point)),
                                MakeField("q", DataType::List(DataType::List(DataType::Int32())))}),
                    [](Builders& builders) {
                      ArrayBuilder& points = builders[0]->child(0);
                      points.child(0).Append<int64_t>(5);
                      points.child(1).AppendString("five");
                      points.AppendValid();
                      points.AppendNull();
                      builders[0]->AppendValid();
                      ArrayBuilder& inner = builders[1]->child(0);
                      inner.child(0).Append<int32_t>(9);
                      inner.AppendValid();
                      builders[1]->AppendValid();
                    },
                    {}};
  layout.expected.Word(0)
      .OffsetAndSize(24, 64)  // p: header 16 + 2 slots + one 32-byte struct
      .OffsetAndSize(88, 48)  // q: header 16 + 1 slot + one 24-byte array
      .Word(2)                // p: 2 elements, the second null
      .Word(0x2)
      .OffsetAndSize(32, 32)  // p[0]: a nested row after the slots
      .Word(0)                // p[1]: null
      .Word(0)                // p[0] null bits
      .Word(5)                // p[0].x
      .OffsetAndSize(24, 4)   // p[0].s
      .Text("five")
      .Word(1)  // q: 1 element
      .Word(0)
      .OffsetAndSize(24, 24)  // q[0]
      .Word(1)                // q[0]: 1 element, 4 bytes padded to 8
      .Word(0)
      .Value(9, 4)
      .Pad();
  ExpectBothWays(layout);
}

}  // namespace
}  // namespace sluice
