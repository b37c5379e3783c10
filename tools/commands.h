// The `sluice` commands. Each takes its arguments (after the command name) and returns the
// process exit code (exit_status.h); each is in its own <name>_command.cc.
#pragma once

#include <span>
#include <string>

namespace sluice::cli {

/// sluice generate: writes a reference workload as an Arrow IPC stream.
int RunGenerateCommand(std::span<const std::string> arguments);
/// sluice write: shuffles an Arrow IPC input into one map output (Spark's files).
int RunWriteCommand(std::span<const std::string> arguments);
/// sluice read: reads a partition or a range of partitions from map outputs.
int RunReadCommand(std::span<const std::string> arguments);
/// sluice inspect: describes (and with --verify checks) one map output.
int RunInspectCommand(std::span<const std::string> arguments);
/// sluice bench: runs the benchmark suites and renders the report.
int RunBenchCommand(std::span<const std::string> arguments);

}  // namespace sluice::cli
