// GuardFailures: where the library meets its callers, an exception becomes a Status.
//
// Inside, memory that cannot be had throws std::bad_alloc (AlignedBuffer, as the standard
// containers do). Every entry point a host calls (the C API, the JNI glue, MapWriter,
// RowMapWriter, PartitionReader, SegmentDecoder) runs its body through GuardFailures, so a failed
// allocation is an OutOfMemory error that the host can act on (a Spark task fails and is retried;
// a Python call raises MemoryError), never an abort of the host process.
#pragma once

#include <exception>
#include <new>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/base/status.h"

namespace sluice {

/// Runs `body`, which returns a Status or a Result<T>, and returns what it returns; an exception
/// escaping it is returned as a failure naming `where`: std::bad_alloc as OutOfMemory, any other
/// as Invalid with its message.
template <typename Body>
auto GuardFailures(std::string_view where, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    try {
      return Status::OutOfMemory(where, ": out of memory (an allocation failed)");
    } catch (const std::bad_alloc&) {
      return Status::OutOfMemoryWithoutMessage();
    }
  } catch (const std::exception& error) {
    return Status::Invalid(where, ": ", error.what());
  } catch (...) {
    return Status::Invalid(where, ": an unknown exception");
  }
}

/// Returns whether a Status or a Result<T> failed for want of memory.
inline bool FailedOutOfMemory(const Status& status) {
  return status.IsOutOfMemory();
}
template <typename T>
bool FailedOutOfMemory(const Result<T>& result) {
  return !result.ok() && result.status().IsOutOfMemory();
}

}  // namespace sluice
