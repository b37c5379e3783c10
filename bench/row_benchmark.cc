// Spark UnsafeRow <-> columnar conversion, per row, beside memcpy of the same row bytes.
//
// Each benchmark converts a batch of rows of one shape (1,000 or 10,000 rows) and reports, as
// counters: ns_per_row, the time of a memcpy of the same rows' bytes row by row (memcpy_ns_per_row,
// measured in the same run just before), and their ratio (x_memcpy); both on this thread's CPU
// time, since the benchmark machines are shared. Row to columnar reuses one
// converter and reads the batch through View(), as the map-side writer does; columnar to row
// reuses one converter and one output buffer. Shapes follow Comet's row-to-Arrow benchmark so
// the numbers compare: 100 Int64 columns; one struct column 1, 2 or 3 levels deep whose innermost
// struct has 5, 10 or 20 Int64 fields; list<Int64> and map<Int64, Int64> of fixed lengths; plus
// strings, nullable columns, list<struct> and map<string, Int64>.
//
// Run: row_benchmark --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "sluice/base/aligned_buffer.h"
#include "sluice/base/check.h"
#include "sluice/format/array_builder.h"
#include "sluice/row/columnar_to_row_converter.h"
#include "sluice/row/row_to_columnar_converter.h"

namespace sluice {
namespace {

// How the values of a shape are drawn.
struct Shape {
  SchemaPtr schema;
  double null_probability = 0.0;
  int list_length = 0;     // every list and map has exactly this many elements
  int string_length = 16;  // strings get 1..2x this many bytes
};

// Appends one value of the builder's type.
void AppendValue(ArrayBuilder& builder, bool nullable, const Shape& shape, std::mt19937_64& rng) {
  const DataType& type = *builder.type();
  if (nullable && shape.null_probability > 0 &&
      std::bernoulli_distribution(shape.null_probability)(rng)) {
    builder.AppendNull();
    return;
  }
  switch (type.id()) {
    case TypeId::kInt64:
      builder.Append<int64_t>(static_cast<int64_t>(rng() >> (rng() & 63)));
      break;
    case TypeId::kUtf8: {
      const auto length = shape.string_length + static_cast<int>(rng() % (shape.string_length + 1));
      std::string text(static_cast<size_t>(length), 'a');
      for (char& c : text) c = static_cast<char>('a' + rng() % 26);
      builder.AppendString(text);
      break;
    }
    case TypeId::kStruct:
      for (size_t i = 0; i < builder.num_children(); ++i) {
        AppendValue(builder.child(i), type.children()[i].nullable, shape, rng);
      }
      builder.AppendValid();
      break;
    case TypeId::kList:
      for (int i = 0; i < shape.list_length; ++i) {
        AppendValue(builder.child(0), type.children()[0].nullable, shape, rng);
      }
      builder.AppendValid();
      break;
    case TypeId::kMap: {
      ArrayBuilder& entries = builder.child(0);
      for (int i = 0; i < shape.list_length; ++i) {
        AppendValue(entries.child(0), false, shape, rng);
        AppendValue(entries.child(1), type.child_type(0).children()[1].nullable, shape, rng);
        entries.AppendValid();
      }
      builder.AppendValid();
      break;
    }
    default:
      SLUICE_CHECK(false, "the row benchmark draws no other type");
  }
}

RecordBatch MakeBatch(const Shape& shape, int64_t rows) {
  std::mt19937_64 rng(42);
  auto builders = MakeBuilders(*shape.schema);
  for (int64_t row = 0; row < rows; ++row) {
    for (size_t c = 0; c < builders.size(); ++c) {
      AppendValue(*builders[c], shape.schema->field(c).nullable, shape, rng);
    }
  }
  return FinishBatch(shape.schema, builders);
}

Field Int64Field(const std::string& name, bool nullable = false) {
  return MakeField(name, DataType::Int64(), nullable);
}

SchemaPtr MakeSchema(std::vector<Field> fields) {
  return std::make_shared<Schema>(std::move(fields));
}

Shape PrimitiveColumns(int columns, bool nullable, double null_probability) {
  std::vector<Field> fields;
  for (int i = 0; i < columns; ++i) fields.push_back(Int64Field("c" + std::to_string(i), nullable));
  return Shape{MakeSchema(std::move(fields)), null_probability};
}

Shape NestedStruct(int depth, int fields) {
  std::vector<Field> innermost;
  for (int i = 0; i < fields; ++i) innermost.push_back(Int64Field("f" + std::to_string(i)));
  TypePtr type = DataType::Struct(std::move(innermost));
  for (int level = 1; level < depth; ++level) {
    type = DataType::Struct({MakeField("s", type, false)});
  }
  return Shape{MakeSchema({MakeField("s", type, false)})};
}

Shape ListOfInt64(int elements) {
  return Shape{MakeSchema({MakeField("l", DataType::List(DataType::Int64(), false), false)}), 0,
               elements};
}

Shape MapOfInt64(int entries) {
  return Shape{MakeSchema({MakeField(
                   "m", DataType::Map(DataType::Int64(), DataType::Int64(), false), false)}),
               0, entries};
}

Shape Strings(int columns) {
  std::vector<Field> fields;
  for (int i = 0; i < columns; ++i) {
    fields.push_back(MakeField("s" + std::to_string(i), DataType::Utf8(), false));
  }
  return Shape{MakeSchema(std::move(fields)), 0, 0, 16};
}

Shape ListOfStruct(int elements) {
  const TypePtr element =
      DataType::Struct({Int64Field("a"), Int64Field("b"), MakeField("c", DataType::Utf8(), false)});
  return Shape{MakeSchema({MakeField("l", DataType::List(element, false), false)}), 0, elements, 8};
}

Shape MapOfStringToInt64(int entries) {
  return Shape{MakeSchema({MakeField("m", DataType::Map(DataType::Utf8(), DataType::Int64(), false),
                                     false)}),
               0, entries, 8};
}

// The rows of a shape, converted once.
struct RowWorkload {
  RecordBatch batch;
  UnsafeRowBatch rows;
  std::vector<const uint8_t*> pointers;
};

RowWorkload MakeWorkload(const Shape& shape, int64_t rows) {
  RowWorkload workload;
  workload.batch = MakeBatch(shape, rows);
  auto converter = ColumnarToRowConverter::Make(shape.schema).ValueOrDie();
  SLUICE_CHECK(converter->Convert(workload.batch, 0, rows, &workload.rows).ok(), "conversion");
  workload.rows.RowPointers(&workload.pointers);
  return workload;
}

// Returns this thread's CPU time in nanoseconds. Both the conversion and its memcpy baseline are
// timed on it, so other processes sharing the machine do not count (wall time is in the report
// too, as Google Benchmark's "Time").
double ThreadCpuNanoseconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
}

// Times a memcpy of every row's bytes into one buffer, row by row, as copying rows into a page
// does; returns nanoseconds per row (best of a few runs of at least 2 ms).
double MemcpyNanosecondsPerRow(const RowWorkload& workload) {
  AlignedBuffer destination(workload.rows.bytes.size() + 64);
  const int64_t rows = workload.rows.num_rows();
  double best = 1e300;
  for (int run = 0; run < 5; ++run) {
    int64_t copies = 0;
    const double start = ThreadCpuNanoseconds();
    double elapsed = 0;
    do {
      uint8_t* out = destination.data();
      for (int64_t i = 0; i < rows; ++i) {
        std::memcpy(out, workload.pointers[i], static_cast<size_t>(workload.rows.sizes[i]));
        out += workload.rows.sizes[i];
      }
      benchmark::ClobberMemory();
      copies += rows;
      elapsed = ThreadCpuNanoseconds() - start;
    } while (elapsed < 2e6);
    best = std::min(best, elapsed / static_cast<double>(copies));
  }
  return best;
}

void ReportPerRow(benchmark::State& state, double elapsed_ns, int64_t rows, double memcpy_ns) {
  const double per_row =
      elapsed_ns / static_cast<double>(state.iterations()) / static_cast<double>(rows);
  state.counters["ns_per_row"] = per_row;
  state.counters["memcpy_ns_per_row"] = memcpy_ns;
  state.counters["x_memcpy"] = per_row / memcpy_ns;
  state.SetItemsProcessed(state.iterations() * rows);
}

void RowToColumnar(benchmark::State& state, const std::function<Shape()>& make_shape) {
  const int64_t rows = state.range(0);
  const Shape shape = make_shape();
  const RowWorkload workload = MakeWorkload(shape, rows);
  const double memcpy_ns = MemcpyNanosecondsPerRow(workload);
  auto converter = RowToColumnarConverter::Make(shape.schema).ValueOrDie();
  const double start = ThreadCpuNanoseconds();
  for (auto _ : state) {
    converter->Reset();
    const Status status =
        converter->Append(workload.pointers.data(), workload.rows.sizes.data(), rows);
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
    RecordBatch batch = converter->View();
    benchmark::DoNotOptimize(batch.column(0).buffers[0].data);
  }
  ReportPerRow(state, ThreadCpuNanoseconds() - start, rows, memcpy_ns);
}

void ColumnarToRow(benchmark::State& state, const std::function<Shape()>& make_shape) {
  const int64_t rows = state.range(0);
  const Shape shape = make_shape();
  const RowWorkload workload = MakeWorkload(shape, rows);
  const double memcpy_ns = MemcpyNanosecondsPerRow(workload);
  auto converter = ColumnarToRowConverter::Make(shape.schema).ValueOrDie();
  UnsafeRowBatch output;
  const double start = ThreadCpuNanoseconds();
  for (auto _ : state) {
    output.Clear();
    const Status status = converter->Convert(workload.batch, 0, rows, &output);
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
    benchmark::DoNotOptimize(output.bytes.data());
    benchmark::ClobberMemory();
  }
  ReportPerRow(state, ThreadCpuNanoseconds() - start, rows, memcpy_ns);
}

void RegisterBoth(const std::string& name, std::function<Shape()> make_shape,
                  bool columnar_to_row) {
  benchmark::RegisterBenchmark(
      ("RowToColumnar/" + name).c_str(),
      [make_shape](benchmark::State& state) { RowToColumnar(state, make_shape); })
      ->Arg(1000)
      ->Arg(10000)
      ->Unit(benchmark::kMicrosecond);
  if (columnar_to_row) {
    benchmark::RegisterBenchmark(
        ("ColumnarToRow/" + name).c_str(),
        [make_shape](benchmark::State& state) { ColumnarToRow(state, make_shape); })
        ->Arg(1000)
        ->Arg(10000)
        ->Unit(benchmark::kMicrosecond);
  }
}

void RegisterAll() {
  RegisterBoth(
      "int64_x100", [] { return PrimitiveColumns(100, false, 0.0); }, true);
  RegisterBoth(
      "nullable_int64_x100_10pct_null", [] { return PrimitiveColumns(100, true, 0.1); }, true);
  for (int depth = 1; depth <= 3; ++depth) {
    for (int fields : {5, 10, 20}) {
      RegisterBoth(
          "struct_depth" + std::to_string(depth) + "_int64_x" + std::to_string(fields),
          [depth, fields] { return NestedStruct(depth, fields); }, depth == 2 && fields == 10);
    }
  }
  for (int elements : {10, 100}) {
    RegisterBoth(
        "list_int64_len" + std::to_string(elements), [elements] { return ListOfInt64(elements); },
        elements == 100);
    RegisterBoth(
        "map_int64_int64_len" + std::to_string(elements),
        [elements] { return MapOfInt64(elements); }, elements == 10);
  }
  RegisterBoth(
      "string_x10", [] { return Strings(10); }, true);
  RegisterBoth(
      "list_struct_len5", [] { return ListOfStruct(5); }, true);
  RegisterBoth(
      "map_string_int64_len10", [] { return MapOfStringToInt64(10); }, true);
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) {
  sluice::RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
