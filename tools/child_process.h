// RunChildProcess: runs another program (a benchmark, the report renderer) and waits for it.
#pragma once

#include <string>
#include <vector>

#include "sluice/base/result.h"

namespace sluice::cli {

/// Runs `argv` (argv[0] a path, or a name looked up in PATH) with its standard output and error
/// sent to the given files ("" keeps the tool's own). Returns its exit code, or 128 + the signal
/// that killed it. Fails when it cannot be started.
Result<int> RunChildProcess(const std::vector<std::string>& argv, const std::string& stdout_path,
                            const std::string& stderr_path);

}  // namespace sluice::cli
