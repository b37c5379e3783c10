#include "workload/lineitem.h"

#include <string>

#include "sluice/format/array_builder.h"

namespace sluice::workload {

namespace {

// Days since 1970-01-01 of TPC-H's date range: orders from 1992-01-01 to 1998-08-02.
constexpr int32_t kStartDate = 8035;   // 1992-01-01
constexpr int32_t kOrderDates = 2405;  // to 1998-08-02
constexpr int64_t kParts = 200000;     // per scale factor
constexpr int64_t kSuppliers = 10000;

const char* const kInstructions[] = {"DELIVER IN PERSON", "COLLECT COD", "NONE",
                                     "TAKE BACK RETURN"};
const char* const kModes[] = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};
const char* const kWords[] = {"furiously",   "carefully",  "quickly",  "slyly",    "blithely",
                              "ironic",      "final",      "regular",  "express",  "pending",
                              "bold",        "even",       "special",  "silent",   "unusual",
                              "deposits",    "requests",   "packages", "accounts", "instructions",
                              "theodolites", "foxes",      "pinto",    "beans",    "dependencies",
                              "platelets",   "asymptotes", "courts",   "dolphins", "ideas",
                              "sleep",       "wake",       "are",      "haggle",   "nag",
                              "use",         "boost",      "affix",    "detect",   "integrate"};

}  // namespace

SchemaPtr LineitemSchema() {
  static const SchemaPtr schema = std::make_shared<Schema>(
      std::vector<Field>{MakeField("l_orderkey", DataType::Int64(), false),
                         MakeField("l_partkey", DataType::Int64(), false),
                         MakeField("l_suppkey", DataType::Int64(), false),
                         MakeField("l_linenumber", DataType::Int32(), false),
                         MakeField("l_quantity", DataType::Decimal128(15, 2), false),
                         MakeField("l_extendedprice", DataType::Decimal128(15, 2), false),
                         MakeField("l_discount", DataType::Decimal128(15, 2), false),
                         MakeField("l_tax", DataType::Decimal128(15, 2), false),
                         MakeField("l_returnflag", DataType::Utf8(), false),
                         MakeField("l_linestatus", DataType::Utf8(), false),
                         MakeField("l_shipdate", DataType::Date32(), false),
                         MakeField("l_commitdate", DataType::Date32(), false),
                         MakeField("l_receiptdate", DataType::Date32(), false),
                         MakeField("l_shipinstruct", DataType::Utf8(), false),
                         MakeField("l_shipmode", DataType::Utf8(), false),
                         MakeField("l_comment", DataType::Utf8(), false)});
  return schema;
}

LineitemGenerator::LineitemGenerator(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}

uint64_t LineitemGenerator::Random() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t LineitemGenerator::Uniform(int64_t low, int64_t high) {
  return low + static_cast<int64_t>(Random() % static_cast<uint64_t>(high - low + 1));
}

RecordBatch LineitemGenerator::Next(int64_t rows) {
  SchemaPtr schema = LineitemSchema();
  auto builders = MakeBuilders(*schema);
  std::string comment;
  // TPC-H's "current date": lines shipped after it are still open.
  constexpr int32_t kCurrentDate = 9298;  // 1995-06-17
  for (int64_t row = 0; row < rows; ++row) {
    if (lines_left_in_order_ == 0) {
      // Order keys are sparse: 8 of every 32 are used, as in dbgen.
      order_key_ += 1 + ((order_key_ & 7) == 7 ? 24 : 0);
      lines_left_in_order_ = static_cast<int32_t>(Uniform(1, 7));
      line_number_ = 0;
      order_date_ = kStartDate + static_cast<int32_t>(Uniform(0, kOrderDates - 151));
    }
    --lines_left_in_order_;
    ++line_number_;
    const int64_t part = Uniform(1, kParts);
    const int64_t quantity = Uniform(1, 50);
    // Part retail price in cents, as dbgen: 90000 + (part / 10) % 20001 + 100 * (part % 1000).
    const int64_t price = 90000 + (part / 10) % 20001 + 100 * (part % 1000);
    const int32_t ship_date = order_date_ + static_cast<int32_t>(Uniform(1, 121));
    const int32_t commit_date = order_date_ + static_cast<int32_t>(Uniform(30, 90));
    const int32_t receipt_date = ship_date + static_cast<int32_t>(Uniform(1, 30));
    builders[0]->Append<int64_t>(order_key_);
    builders[1]->Append<int64_t>(part);
    builders[2]->Append<int64_t>(
        (part + Uniform(0, 3) * (kSuppliers / 4 + (part - 1) / kSuppliers)) % kSuppliers + 1);
    builders[3]->Append<int32_t>(line_number_);
    builders[4]->Append<__int128>(quantity * 100);
    builders[5]->Append<__int128>(quantity * price);
    builders[6]->Append<__int128>(Uniform(0, 10));
    builders[7]->Append<__int128>(Uniform(0, 8));
    const char* return_flag = receipt_date <= kCurrentDate ? (Random() & 1 ? "R" : "A") : "N";
    builders[8]->AppendString(return_flag);
    builders[9]->AppendString(ship_date > kCurrentDate ? "O" : "F");
    builders[10]->Append<int32_t>(ship_date);
    builders[11]->Append<int32_t>(commit_date);
    builders[12]->Append<int32_t>(receipt_date);
    builders[13]->AppendString(kInstructions[Random() % 4]);
    builders[14]->AppendString(kModes[Random() % 7]);
    comment.clear();
    const int64_t target = Uniform(10, 43);
    while (static_cast<int64_t>(comment.size()) < target) {
      if (!comment.empty()) comment += ' ';
      comment += kWords[Random() % (sizeof(kWords) / sizeof(kWords[0]))];
    }
    comment.resize(static_cast<size_t>(target));
    builders[15]->AppendString(comment);
  }
  return FinishBatch(schema, builders);
}

}  // namespace sluice::workload
