// How `sluice` commands end: exit codes and the one-line error message.
//
//   0  success
//   1  the work failed: a missing or corrupt file, a failed check, an I/O error
//   2  the command line was wrong: unknown flag, bad value, missing argument
//
// Errors are one line on stderr, "sluice <command>: error: <message>", where the message names
// the file, partition and byte offset involved.
#pragma once

#include <string_view>

#include "sluice/base/status.h"

namespace sluice::cli {

inline constexpr int kExitSuccess = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

/// Prints "sluice <command>: error: <message>" on one line and returns `exit_code` (128 + the
/// signal when a signal interrupted the command).
int ReportError(std::string_view command, const Status& status, int exit_code = kExitFailure);

}  // namespace sluice::cli
