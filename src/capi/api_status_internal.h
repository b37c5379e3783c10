// How the C API reports a Status: a return code, and the message kept per thread.
#pragma once

#include "sluice/base/status.h"

namespace sluice::capi {

/// Records `status` as this thread's last error (or clears it) and returns its C code.
int Report(const Status& status);

/// Returns this thread's last error message, "" when the last call succeeded.
const char* LastErrorMessage();

}  // namespace sluice::capi
