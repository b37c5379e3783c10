// The `sluice` command-line tool: generate data, shuffle it, read it back, inspect map outputs,
// run the benchmarks. `sluice <command> --help` documents each command with examples.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "exit_status.h"
#include "interruption.h"

namespace {

constexpr const char* kOverview =
    "Usage: sluice <command> [arguments]\n"
    "\n"
    "Sluice is a columnar shuffle engine. This tool drives it from the command line.\n"
    "\n"
    "Commands:\n"
    "  generate   write a reference workload (lineitem, mixed, ...) as an Arrow IPC stream\n"
    "  write      shuffle an Arrow IPC input into one map output: Spark's .data/.index/.checksum\n"
    "  read       read a partition or a range of partitions from map outputs\n"
    "  inspect    describe a map output; --verify decodes every block and checks checksums\n"
    "  bench      run the benchmark suites; write merged JSON and PNG plots\n"
    "\n"
    "Run 'sluice <command> --help' for a command's options and examples.\n"
    "\n"
    "Example, the whole path on a million rows:\n"
    "  sluice generate lineitem --rows 1000000 --output lineitem.arrow\n"
    "  sluice write lineitem.arrow --output-dir out --partitions 200 --keys l_orderkey "
    "--codec lz4\n"
    "  sluice inspect out/shuffle_0_0_0.data --verify\n"
    "  sluice read out --partition 7 --head 5\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace sluice::cli;
  if (argc < 2) {
    std::fputs(kOverview, stderr);
    return kExitUsage;
  }
  const std::string command = argv[1];
  const std::vector<std::string> arguments(argv + 2, argv + argc);
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kOverview, stdout);
    return kExitSuccess;
  }
  if (command == "--version") {
    std::puts("sluice 0.1.0");
    return kExitSuccess;
  }
  if (command == "generate" || command == "write" || command == "read") {
    InstallInterruptionHandlers();
  }
  if (command == "generate") return RunGenerateCommand(arguments);
  if (command == "write") return RunWriteCommand(arguments);
  if (command == "read") return RunReadCommand(arguments);
  if (command == "inspect") return RunInspectCommand(arguments);
  if (command == "bench") return RunBenchCommand(arguments);
  std::fprintf(stderr,
               "sluice: error: unknown command '%s' (commands: generate, write, read, inspect, "
               "bench; see 'sluice --help')\n",
               command.c_str());
  return kExitUsage;
}
