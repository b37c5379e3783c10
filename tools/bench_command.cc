// sluice bench: runs the benchmark suites, merges their results into one Google Benchmark JSON,
// and renders the report (PNG figures and a Markdown summary of the ratios).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>

#include "argument_parser.h"
#include "child_process.h"
#include "commands.h"
#include "end_to_end_suite.h"
#include "exit_status.h"
#include "json_value.h"
#include "progress_bar.h"
#include "table_printer.h"

namespace sluice::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kCommand = "bench";
constexpr const char* kEndToEndSuite = "end_to_end";
constexpr const char* kProgramSuffix = "_benchmark";

int Usage(const Status& status) {
  return ReportError(kCommand, status, kExitUsage);
}

// The benchmark programs are built beside the tool: build/tools/sluice and build/bench/*.
fs::path DefaultBenchDirectory() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) return fs::path("bench");
  return self.parent_path().parent_path() / "bench";
}

// Returns the suites found: the programs' names without "_benchmark", then end_to_end.
std::vector<std::string> FindSuites(const fs::path& directory) {
  std::vector<std::string> suites;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > std::strlen(kProgramSuffix) &&
        name.compare(name.size() - std::strlen(kProgramSuffix), std::string::npos,
                     kProgramSuffix) == 0 &&
        entry.is_regular_file(error) && ::access(entry.path().c_str(), X_OK) == 0) {
      suites.push_back(name.substr(0, name.size() - std::strlen(kProgramSuffix)));
    }
  }
  std::sort(suites.begin(), suites.end());
  suites.push_back(kEndToEndSuite);
  return suites;
}

Result<std::string> ReadText(const fs::path& path) {
  std::ifstream file(path);
  if (!file) return Status::IOError("cannot read '", path.string(), "'");
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The last non-empty line of a log, to explain a failed program.
std::string LastLine(const fs::path& path) {
  Result<std::string> text = ReadText(path);
  if (!text.ok()) return "";
  std::string last;
  std::stringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) last = line;
  }
  return last;
}

struct SuiteOutcome {
  std::string suite;
  int64_t benchmarks = 0;
  double seconds = 0;
  std::string problem;  // empty when it ran
};

std::string MachineDescription() {
  std::string model;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  return model;
}

int64_t MemoryBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  meminfo >> key >> kib;
  return key == "MemTotal:" ? kib * 1024 : 0;
}

// What the command line asks for.
struct BenchRequest {
  bool quick = false;
  int64_t repetitions = 3;
  fs::path bench_directory;
  std::vector<std::string> suites;
  std::string json_path;  // empty: stdout
  std::optional<std::string> plots;
  std::optional<std::string> work_directory;
};

// Every suite's entries, merged as they come.
struct MergedResults {
  JsonValue context;  // the first program's Google Benchmark context
  std::vector<JsonValue> benchmarks;
  JsonValue memory_timelines = JsonValue::Array();
  std::vector<SuiteOutcome> outcomes;
};

ArgumentParser MakeParser() {
  ArgumentParser parser(
      "sluice bench", "[SUITE...] [--json FILE] [--plots DIR] [--quick]",
      "Runs the benchmark suites: each Google Benchmark program built beside this tool\n"
      "(build/bench/<suite>_benchmark, with --benchmark_format=json and repetitions) and\n"
      "end_to_end, the writer and reader on lineitem data against baselines measured in the\n"
      "same run. Writes one JSON in Google Benchmark's format (every suite's entries, each\n"
      "with its \"suite\"), and with --plots renders PNG figures and report.md with\n"
      "bench/report/render_report.py (matplotlib). Runs every suite when none is named.",
      {"sluice bench --json results.json --plots report/",
       "sluice bench end_to_end map_writer --repetitions 5 --json results.json",
       "sluice bench --quick --json /tmp/quick.json --plots /tmp/quick", "sluice bench --list"});
  parser.AddPositional("SUITE", "suites to run (see --list); all when none is given");
  parser.AddOption("json", "FILE", "where to write the merged JSON (default: stdout)");
  parser.AddOption("plots", "DIR", "render PNG figures and report.md into DIR");
  parser.AddOption("repetitions", "N", "repetitions of every benchmark (default 3; --quick 1)");
  parser.AddOption("bench-dir", "DIR",
                   "where the benchmark programs are (default: ../bench "
                   "beside this tool)");
  parser.AddOption("work-dir", "DIR",
                   "scratch space of end_to_end (default: a temporary "
                   "directory, removed afterwards)");
  parser.AddFlag("quick", "a reduced run for tests: little data, short minimum times, 1 run");
  parser.AddFlag("list", "list the suites and exit");
  return parser;
}

// The benchmark directory the command line names (checked), or the default.
Result<fs::path> BenchDirectory(const ArgumentParser& parser) {
  if (!parser.Has("bench-dir")) return DefaultBenchDirectory();
  const fs::path directory(*parser.Value("bench-dir"));
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    return Status::Invalid("--bench-dir: '", directory.string(), "' is not a directory");
  }
  return directory;
}

Result<BenchRequest> MakeRequest(const ArgumentParser& parser,
                                 const std::vector<std::string>& available,
                                 const fs::path& bench_directory) {
  BenchRequest request;
  request.quick = parser.Has("quick");
  SLUICE_ASSIGN_OR_RAISE(request.repetitions,
                         parser.IntegerOr("repetitions", request.quick ? 1 : 3, 1, 100));
  request.bench_directory = bench_directory;
  request.suites = parser.positionals();
  for (const std::string& suite : request.suites) {
    if (std::find(available.begin(), available.end(), suite) == available.end()) {
      std::string names;
      for (const std::string& name : available) names += (names.empty() ? "" : ", ") + name;
      return Status::Invalid("unknown suite '", suite, "' (found: ", names, " in ",
                             bench_directory.string(), ")");
    }
  }
  if (request.suites.empty()) request.suites = available;
  request.plots = parser.Value("plots");
  request.json_path = parser.ValueOr("json", "");
  if (request.json_path.empty() && request.plots.has_value()) {
    request.json_path = (fs::path(*request.plots) / "results.json").string();
  }
  request.work_directory = parser.Value("work-dir");
  return request;
}

void PrintSuites(const std::vector<std::string>& available, const fs::path& bench_directory) {
  for (const std::string& suite : available) {
    std::cout << suite
              << (suite == kEndToEndSuite
                      ? "  (built into sluice)"
                      : "  (" + (bench_directory / (suite + kProgramSuffix)).string() + ")")
              << "\n";
  }
}

// A new temporary directory for the programs' output and logs, and end_to_end's map outputs.
Result<fs::path> MakeScratchDirectory() {
  std::error_code error;
  fs::path temporary = fs::temp_directory_path(error);
  if (error) temporary = "/tmp";
  std::string scratch = (temporary / "sluice-bench-XXXXXX").string();
  if (::mkdtemp(scratch.data()) == nullptr) {
    return Status::IOError("cannot create a temporary directory in ", temporary.string());
  }
  return fs::path(scratch);
}

// Runs end_to_end into `merged`; `on_step` is told each measurement's name.
void RunEndToEnd(const BenchRequest& request, const fs::path& scratch,
                 const std::function<void(const std::string&)>& on_step, SuiteOutcome* outcome,
                 MergedResults* merged) {
  EndToEndOptions options;
  options.repetitions = static_cast<int>(request.repetitions);
  if (request.quick) {
    options.rows = 100000;
    options.partition_counts = {1, 16, 200, 2000};
    options.small_budget_bytes = int64_t{4} << 20;
  }
  options.work_directory = request.work_directory.value_or((scratch / "end_to_end").string());
  Result<EndToEndResult> result = RunEndToEndSuite(options, on_step);
  if (result.ok()) {
    for (JsonValue& entry : result->benchmarks) {
      entry.Set("suite", outcome->suite);
      merged->benchmarks.push_back(std::move(entry));
      ++outcome->benchmarks;
    }
    for (const JsonValue& timeline : result->memory_timelines.items()) {
      merged->memory_timelines.Append(timeline);
    }
  } else {
    outcome->problem = result.status().message();
  }
  std::error_code error;
  if (request.work_directory.has_value()) fs::remove_all(options.work_directory, error);
}

// Runs the Google Benchmark program of `outcome->suite` into `merged`.
void RunProgram(const BenchRequest& request, const fs::path& scratch, SuiteOutcome* outcome,
                MergedResults* merged) {
  const std::string& suite = outcome->suite;
  const fs::path program = request.bench_directory / (suite + kProgramSuffix);
  const fs::path output = scratch / (suite + ".json");
  const fs::path log = scratch / (suite + ".log");
  std::vector<std::string> argv = {
      program.string(), "--benchmark_format=json",
      "--benchmark_repetitions=" + std::to_string(request.repetitions)};
  // 0.01 s per benchmark: enough iterations to run every code path, not to measure.
  if (request.quick) argv.push_back("--benchmark_min_time=0.01");
  Result<int> exit_code = RunChildProcess(argv, output.string(), log.string());
  if (!exit_code.ok()) {
    outcome->problem = exit_code.status().message();
    return;
  }
  if (*exit_code != 0) {
    outcome->problem =
        program.string() + " exited with " + std::to_string(*exit_code) + ": " + LastLine(log);
    return;
  }
  Result<std::string> text = ReadText(output);
  Result<JsonValue> json =
      text.ok() ? JsonValue::Parse(*text, program.string()) : Result<JsonValue>(text.status());
  if (!json.ok()) {
    outcome->problem = json.status().message();
    return;
  }
  const std::optional<JsonValue> entries = json->Find("benchmarks");
  if (!entries.has_value() || !entries->is_array()) {
    outcome->problem = program.string() + ": its JSON has no \"benchmarks\" list";
    return;
  }
  if (merged->context.is_null()) {
    if (std::optional<JsonValue> found = json->Find("context")) merged->context = *found;
  }
  for (JsonValue entry : entries->items()) {
    entry.Set("suite", suite);
    merged->benchmarks.push_back(std::move(entry));
    ++outcome->benchmarks;
  }
}

// Runs every suite the request names, in order, with a progress bar.
MergedResults RunSuites(const BenchRequest& request, const fs::path& scratch) {
  MergedResults merged;
  ProgressBar progress("bench", static_cast<int64_t>(request.suites.size()), "suites");
  int64_t done = 0;
  for (const std::string& suite : request.suites) {
    progress.set_label("bench " + suite);
    progress.Update(done);
    SuiteOutcome outcome;
    outcome.suite = suite;
    const auto start = std::chrono::steady_clock::now();
    if (suite == kEndToEndSuite) {
      const auto on_step = [&](const std::string& step) {
        progress.set_label("bench " + step);
        progress.Update(done);
      };
      RunEndToEnd(request, scratch, on_step, &outcome, &merged);
    } else {
      RunProgram(request, scratch, &outcome, &merged);
    }
    outcome.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    merged.outcomes.push_back(outcome);
    progress.Update(++done);
  }
  progress.Finish();
  return merged;
}

// The merged document: Google Benchmark's context (from the first program, or made here),
// with what sluice adds under "sluice".
JsonValue MergedDocument(const BenchRequest& request, MergedResults merged) {
  JsonValue context = std::move(merged.context);
  if (!context.is_object()) {
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    context = JsonValue::Object()
                  .Set("host_name", host)
                  .Set("num_cpus", static_cast<int64_t>(::sysconf(_SC_NPROCESSORS_ONLN)))
                  .Set("library_build_type", "release");
  }
  JsonValue suites_json = JsonValue::Array();
  for (const SuiteOutcome& outcome : merged.outcomes) {
    JsonValue entry = JsonValue::Object()
                          .Set("name", outcome.suite)
                          .Set("benchmarks", outcome.benchmarks)
                          .Set("seconds", outcome.seconds);
    if (!outcome.problem.empty()) entry.Set("problem", outcome.problem);
    suites_json.Append(std::move(entry));
  }
  context.Set("sluice", JsonValue::Object()
                            .Set("suites", std::move(suites_json))
                            .Set("quick", request.quick)
                            .Set("repetitions", request.repetitions)
                            .Set("cpu_model", MachineDescription())
                            .Set("memory_bytes", MemoryBytes()));
  JsonValue document = JsonValue::Object();
  document.Set("context", std::move(context));
  JsonValue benchmark_list = JsonValue::Array();
  for (JsonValue& entry : merged.benchmarks) benchmark_list.Append(std::move(entry));
  document.Set("benchmarks", std::move(benchmark_list));
  document.Set("memory_timelines", std::move(merged.memory_timelines));
  return document;
}

// Writes `text` to `path` (its directory created), or to stdout when `path` is empty.
Status WriteText(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text;
    return Status::OK();
  }
  std::error_code error;
  if (fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path(), error);
  std::ofstream file(path);
  file << text;
  file.close();
  if (!file) return Status::IOError("cannot write '", path, "'");
  return Status::OK();
}

// The outcome of each suite, where it does not mix with JSON on stdout.
void PrintOutcomes(const std::vector<SuiteOutcome>& outcomes, const std::string& json_path) {
  std::ostream& summary = json_path.empty() ? std::cerr : std::cout;
  TablePrinter table({{"suite"},
                      {"benchmarks", TablePrinter::Align::kRight},
                      {"seconds", TablePrinter::Align::kRight},
                      {"status"}});
  for (const SuiteOutcome& outcome : outcomes) {
    char seconds[32];
    std::snprintf(seconds, sizeof(seconds), "%.1f", outcome.seconds);
    table.AddRow({outcome.suite, std::to_string(outcome.benchmarks), seconds,
                  outcome.problem.empty() ? "ok" : "failed"});
  }
  table.Print(summary);
  if (!json_path.empty()) summary << "results: " << json_path << "\n";
}

// Renders the figures and report.md of the JSON at `json_path` into `directory`.
Status RenderReport(const std::string& json_path, const std::string& directory) {
  const char* override_script = std::getenv("SLUICE_REPORT_SCRIPT");
  const std::string script = override_script != nullptr ? std::string(override_script)
                                                        : std::string(SLUICE_SOURCE_DIR) +
                                                              "/bench/report/render_report.py";
  SLUICE_ASSIGN_OR_RAISE(
      int rendered, RunChildProcess({"python3", script, json_path, "--output", directory}, "", ""));
  if (rendered != 0) {
    return Status::IOError("rendering the report with ", script, " failed (exit ", rendered, ")");
  }
  return Status::OK();
}

}  // namespace

int RunBenchCommand(std::span<const std::string> arguments) {
  ArgumentParser parser = MakeParser();
  Status parsed = parser.Parse(arguments);
  if (!parsed.ok()) return Usage(parsed);
  if (parser.help_requested()) {
    std::cout << parser.HelpText();
    return kExitSuccess;
  }
  Result<fs::path> bench_directory = BenchDirectory(parser);
  if (!bench_directory.ok()) return Usage(bench_directory.status());
  const std::vector<std::string> available = FindSuites(*bench_directory);
  if (parser.Has("list")) {
    PrintSuites(available, *bench_directory);
    return kExitSuccess;
  }
  Result<BenchRequest> request = MakeRequest(parser, available, *bench_directory);
  if (!request.ok()) return Usage(request.status());

  Result<fs::path> scratch = MakeScratchDirectory();
  if (!scratch.ok()) return ReportError(kCommand, scratch.status());
  MergedResults merged = RunSuites(*request, *scratch);
  std::error_code error;
  fs::remove_all(*scratch, error);
  const std::vector<SuiteOutcome> outcomes = merged.outcomes;
  const JsonValue document = MergedDocument(*request, std::move(merged));
  Status written = WriteText(request->json_path, document.Dump(2) + "\n");
  if (!written.ok()) return ReportError(kCommand, written);
  PrintOutcomes(outcomes, request->json_path);
  if (request->plots.has_value()) {
    Status rendered = RenderReport(request->json_path, *request->plots);
    if (!rendered.ok()) return ReportError(kCommand, rendered);
  }
  bool failed = false;
  for (const SuiteOutcome& outcome : outcomes) {
    if (outcome.problem.empty()) continue;
    failed = true;
    ReportError(kCommand, Status::IOError("suite ", outcome.suite, ": ", outcome.problem));
  }
  return failed ? kExitFailure : kExitSuccess;
}

}  // namespace sluice::cli
