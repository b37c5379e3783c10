// How the C API reports a Status: a return code, and the message kept per thread.
#pragma once

#include "sluice/base/failure_guard.h"
#include "sluice/base/status.h"

namespace sluice::capi {

/// Records `status` as this thread's last error (or clears it) and returns its C code.
int Report(const Status& status);

/// Runs `body` (returning a Status) with GuardFailures, so no exception crosses the C boundary
/// (a failed allocation is SLUICE_OUT_OF_MEMORY), and reports its outcome.
template <typename Body>
int ReportGuarded(const char* function, Body&& body) {
  return Report(GuardFailures(function, std::forward<Body>(body)));
}

/// Returns this thread's last error message, "" when the last call succeeded.
const char* LastErrorMessage();

}  // namespace sluice::capi
