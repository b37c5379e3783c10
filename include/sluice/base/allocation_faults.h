// A test seam: makes the library's allocations fail on demand, to prove that a host which runs
// out of memory gets an error (OutOfMemory, a Java exception, a Python MemoryError) and never an
// aborted process, and that the failed task leaves no file behind. Off unless turned on.
//
// Turned on by a test (FailAllocationsAfter, or a hook of its own that also counts operator new),
// or for a whole process by the environment: SLUICE_FAIL_ALLOCATIONS_AFTER=N makes every growth
// of an AlignedBuffer after the first N fail (read once, at the first growth), which is how the
// Spark and Python fault tests reach executors and interpreters they do not link against.
#pragma once

#include <cstdint>

namespace sluice::allocation_faults {

/// Lets `allowed` more growths succeed (process-wide), then fails every later one. A negative
/// `allowed` turns injection off.
void FailAllocationsAfter(int64_t allowed);

/// Replaces the decision with `hook` (true: fail this allocation); null restores the counter.
void SetHook(bool (*hook)());

/// Returns whether the allocation about to be made must fail.
bool ShouldFail();

}  // namespace sluice::allocation_faults
