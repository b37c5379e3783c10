// Result<T>: a value or the Status that explains why there is none.
#pragma once

#include <cstdlib>
#include <utility>
#include <variant>

#include "sluice/base/check.h"
#include "sluice/base/status.h"

namespace sluice {

/// Holds either a T or a failed Status. Built implicitly from either.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : storage_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  /// Builds the value in place, from T's constructor arguments (no move of a T).
  template <typename... Args>
  explicit Result(std::in_place_t, Args&&... args)
      : storage_(std::in_place_index<0>, std::forward<Args>(args)...) {}
  Result(Status status) : storage_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    SLUICE_CHECK(!std::get<Status>(storage_).ok(), "Result built from an OK Status");
  }

  bool ok() const { return std::holds_alternative<T>(storage_); }

  /// Returns the failure, or OK when a value is held.
  Status status() const& { return ok() ? Status::OK() : std::get<Status>(storage_); }
  Status status() && { return ok() ? Status::OK() : std::move(std::get<Status>(storage_)); }

  /// Returns the value; the caller has checked ok().
  const T& ValueUnsafe() const& { return std::get<T>(storage_); }
  T& ValueUnsafe() & { return std::get<T>(storage_); }
  T ValueUnsafe() && { return std::move(std::get<T>(storage_)); }

  /// Returns the value, aborting with the message if there is none (tests and tools only).
  const T& ValueOrDie() const& {
    SLUICE_CHECK(ok(), status().ToString().c_str());
    return ValueUnsafe();
  }
  T ValueOrDie() && {
    SLUICE_CHECK(ok(), status().ToString().c_str());
    return std::move(std::get<T>(storage_));
  }

  const T& operator*() const& { return ValueUnsafe(); }
  T& operator*() & { return ValueUnsafe(); }
  const T* operator->() const { return &ValueUnsafe(); }
  T* operator->() { return &ValueUnsafe(); }

 private:
  std::variant<T, Status> storage_;
};

}  // namespace sluice
