// A test seam: makes file writes fail on demand, to prove that a task which hits a full disk or
// a failing device reports it and leaves no file behind. Off unless a test turns it on.
#pragma once

#include <cstdint>

namespace sluice::io_faults {

/// Makes every write after `bytes_allowed` more bytes (process-wide, across files) fail with
/// `error_number` (for example ENOSPC). A negative `bytes_allowed` turns injection off.
void FailWritesAfter(int64_t bytes_allowed, int error_number);

/// Returns the error a write of `size` bytes must fail with now, or 0 to let it proceed.
int CheckWrite(int64_t size);

}  // namespace sluice::io_faults
