// sluice generate: writes one of the reference workloads as an Arrow IPC stream.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <utility>

#include "argument_parser.h"
#include "commands.h"
#include "exit_status.h"
#include "interruption.h"
#include "ipc_output.h"
#include "progress_bar.h"
#include "sluice/base/byte_size.h"
#include "table_printer.h"
#include "workload/lineitem.h"
#include "workload/reference_batches.h"

namespace sluice::cli {

namespace {

constexpr const char* kCommand = "generate";

// Makes `rows` rows starting at row `first_row` of the chosen workload.
using BatchMaker = std::function<RecordBatch(int64_t first_row, int64_t rows)>;

Result<BatchMaker> MakeWorkload(const std::string& name, uint64_t seed) {
  if (name == "lineitem") {
    auto generator = std::make_shared<workload::LineitemGenerator>(seed);
    return BatchMaker([generator](int64_t, int64_t rows) { return generator->Next(rows); });
  }
  if (name == "mixed") {
    return BatchMaker(
        [](int64_t first, int64_t rows) { return workload::MixedBatch(rows, first); });
  }
  if (name == "flat50") {
    return BatchMaker(
        [](int64_t first, int64_t rows) { return workload::Flat50Batch(rows, first); });
  }
  if (name == "wide") {
    return BatchMaker([](int64_t first, int64_t rows) { return workload::WideBatch(rows, first); });
  }
  if (name == "nested") {
    return BatchMaker([](int64_t, int64_t rows) { return workload::NestedBatch(rows); });
  }
  return Status::Invalid("unknown workload '", name,
                         "' (workloads: lineitem, mixed, flat50, nested, wide)");
}

}  // namespace

int RunGenerateCommand(std::span<const std::string> arguments) {
  ArgumentParser parser(
      "sluice generate", "WORKLOAD --rows N --output FILE.arrow [options]",
      "Writes a reference workload as an Arrow IPC stream (the streaming format; open it with\n"
      "pyarrow.ipc.open_stream). Workloads:\n"
      "  lineitem  the 16 TPC-H lineitem columns, random but deterministic for a --seed\n"
      "  mixed     int32, string (10% null), date32, decimal(11,2): the row i values are fixed\n"
      "  flat50    50 int32 columns\n"
      "  nested    4 struct columns nested 6 deep\n"
      "  wide      200 columns cycling int64, float64, string, date32 (~1.4 KiB a row)\n"
      "Only lineitem uses --seed; the others are a function of the row number.",
      {"sluice generate lineitem --rows 10000000 --output lineitem.arrow",
       "sluice generate mixed --rows 100000 --batch-rows 4096 --output mixed.arrow",
       "sluice generate lineitem --rows 1000 --output - | sluice write - --output-dir out "
       "--partitions 4 --keys l_orderkey"});
  parser.AddPositional("WORKLOAD", "lineitem, mixed, flat50, nested or wide");
  parser.AddOption("rows", "N", "rows to generate (required)");
  parser.AddOption("output", "FILE", "the Arrow IPC stream to write, '-' for stdout (required)");
  parser.AddOption("seed", "S", "random seed of lineitem (default 1)");
  parser.AddOption("batch-rows", "R", "rows per batch (default 8192)");
  Status parsed = parser.Parse(arguments);
  if (!parsed.ok()) return ReportError(kCommand, parsed, kExitUsage);
  if (parser.help_requested()) {
    std::cout << parser.HelpText();
    return kExitSuccess;
  }
  if (parser.positionals().size() != 1) {
    return ReportError(
        kCommand,
        Status::Invalid("expected one WORKLOAD (lineitem, mixed, flat50, nested or "
                        "wide), got ",
                        parser.positionals().size(), " arguments; ", parser.HelpHint()),
        kExitUsage);
  }
  if (!parser.Has("rows")) {
    return ReportError(kCommand, Status::Invalid("--rows is required"), kExitUsage);
  }
  if (!parser.Has("output")) {
    return ReportError(kCommand, Status::Invalid("--output is required"), kExitUsage);
  }
  // 2^40 rows: far beyond any disk, and no overflow in row arithmetic below.
  Result<int64_t> rows = parser.IntegerOr("rows", 0, 0, int64_t{1} << 40);
  if (!rows.ok()) return ReportError(kCommand, rows.status(), kExitUsage);
  Result<int64_t> seed = parser.IntegerOr("seed", 1, 0, INT64_MAX);
  if (!seed.ok()) return ReportError(kCommand, seed.status(), kExitUsage);
  // 2^24 rows per batch keeps a batch's int32 string offsets far from overflow.
  Result<int64_t> batch_rows = parser.IntegerOr("batch-rows", 8192, 1, int64_t{1} << 24);
  if (!batch_rows.ok()) return ReportError(kCommand, batch_rows.status(), kExitUsage);
  const std::string workload_name = parser.positionals()[0];
  Result<BatchMaker> make_batch = MakeWorkload(workload_name, static_cast<uint64_t>(*seed));
  if (!make_batch.ok()) return ReportError(kCommand, make_batch.status(), kExitUsage);

  const std::string output_path = *parser.Value("output");
  const auto start = std::chrono::steady_clock::now();
  RecordBatch first = (*make_batch)(0, std::min(*rows, *batch_rows));
  Result<std::unique_ptr<IpcOutput>> output = IpcOutput::Open(output_path, first.schema());
  if (!output.ok()) return ReportError(kCommand, output.status());
  ProgressBar progress("generate", *rows, "rows");
  int64_t done = 0;
  int64_t batches = 0;
  while (done < *rows) {
    if (Status interrupted = CheckInterrupted(); !interrupted.ok()) {
      return ReportError(kCommand, interrupted);
    }
    RecordBatch batch = done == 0 ? std::exchange(first, RecordBatch())
                                  : (*make_batch)(done, std::min(*rows - done, *batch_rows));
    Status written = (*output)->Write(batch);
    if (!written.ok()) return ReportError(kCommand, written);
    done += batch.num_rows();
    ++batches;
    progress.Update(done);
  }
  Status finished = (*output)->Finish();
  if (!finished.ok()) return ReportError(kCommand, finished);
  progress.Finish();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::FILE* summary = output_path == "-" ? stderr : stdout;
  std::fprintf(summary,
               "generated %s rows of %s in %s batches: %s (Arrow IPC stream) to %s in %.1f s\n",
               TablePrinter::FormatInteger(done).c_str(), workload_name.c_str(),
               TablePrinter::FormatInteger(batches).c_str(),
               FormatByteSize((*output)->bytes_written()).c_str(),
               output_path == "-" ? "stdout" : output_path.c_str(), seconds);
  return kExitSuccess;
}

}  // namespace sluice::cli
