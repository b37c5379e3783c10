// Assertions for programmer errors. Never use these for data: bad input returns a Status.
#pragma once

namespace sluice::internal {
/// Prints `message` with its location and aborts.
[[noreturn]] void CheckFailed(const char* file, int line, const char* condition,
                              const char* message);
}  // namespace sluice::internal

/// Aborts when `condition` is false, in every build.
#define SLUICE_CHECK(condition, message)                                        \
  do {                                                                          \
    if (__builtin_expect(!(condition), 0)) {                                    \
      ::sluice::internal::CheckFailed(__FILE__, __LINE__, #condition, message); \
    }                                                                           \
  } while (false)

#ifdef NDEBUG
/// Checks an invariant in debug and sanitizer builds only.
#define SLUICE_DCHECK(condition) \
  do {                           \
  } while (false && (condition))
#else
#define SLUICE_DCHECK(condition) SLUICE_CHECK(condition, "")
#endif
