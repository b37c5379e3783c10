// Interruption: SIGINT, SIGTERM and SIGHUP end a command cleanly instead of killing it.
//
// The default action of these signals ends the process where it stands, leaving temporary files
// behind and, between the renames of a commit, a map output whose files disagree. Once the
// handlers are installed, a signal is only recorded; each command's loop asks CheckInterrupted()
// between batches and unwinds through its normal error path, so every temporary file is
// removed and nothing half-written is committed. A commit, once begun, completes. A second
// signal ends the process at once (the shell's way to insist).
#pragma once

#include "sluice/base/status.h"

namespace sluice::cli {

/// Installs the handlers. Idempotent.
void InstallInterruptionHandlers();

/// Returns the signal that interrupted the tool, or 0.
int InterruptingSignal();

/// Returns Cancelled ("interrupted by SIGINT") once a signal arrived, OK before.
Status CheckInterrupted();

/// The exit code of a command ended by `status`: 128 + the signal when it was interrupted
/// (as a shell reports a process killed by it), `otherwise` else.
int ExitCodeFor(const Status& status, int otherwise);

}  // namespace sluice::cli
