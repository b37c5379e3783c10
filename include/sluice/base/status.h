// Status: the outcome of an operation that can fail on bad input, I/O or memory.
//
// Sluice treats bad input as normal: anything that reads bytes, files or user arguments returns a
// Status (or a Result<T>, see result.h) whose message says which file, partition and byte offset
// were involved, what was expected and what was found. Assertions (SLUICE_DCHECK) are only for
// programmer errors.
#pragma once

#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace sluice {

/// Classifies why an operation failed, so callers can react without parsing messages.
enum class StatusCode : unsigned char {
  kOk = 0,
  kInvalid,      ///< Bad arguments or options given by the caller.
  kCorrupt,      ///< Input bytes that do not follow the format (truncated, bit flips, bad lengths).
  kIOError,      ///< The file system or a device refused an operation.
  kOutOfMemory,  ///< A memory reservation could not be satisfied, even after spilling.
  kNotImplemented,  ///< A valid request for something Sluice does not support (yet).
  kCancelled,       ///< The operation was aborted by its owner.
};

/// Returns a short name for `code`, such as "Corrupt".
std::string_view StatusCodeName(StatusCode code);

/// Holds success, or a failure with its code and a message a user can act on.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message);
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  /// Returns a success value.
  static Status OK() { return Status(); }

  /// Builds a failure whose message is the concatenation of `parts` (streamed with <<).
  template <typename... Parts>
  static Status Invalid(Parts&&... parts) {
    return Status(StatusCode::kInvalid, Concat(std::forward<Parts>(parts)...));
  }
  template <typename... Parts>
  static Status Corrupt(Parts&&... parts) {
    return Status(StatusCode::kCorrupt, Concat(std::forward<Parts>(parts)...));
  }
  template <typename... Parts>
  static Status IOError(Parts&&... parts) {
    return Status(StatusCode::kIOError, Concat(std::forward<Parts>(parts)...));
  }
  template <typename... Parts>
  static Status OutOfMemory(Parts&&... parts) {
    return Status(StatusCode::kOutOfMemory, Concat(std::forward<Parts>(parts)...));
  }
  template <typename... Parts>
  static Status NotImplemented(Parts&&... parts) {
    return Status(StatusCode::kNotImplemented, Concat(std::forward<Parts>(parts)...));
  }
  /// Returns an OutOfMemory failure made without allocating: the one Status that can still be
  /// returned when memory for a message cannot be had.
  static Status OutOfMemoryWithoutMessage() noexcept;
  template <typename... Parts>
  static Status Cancelled(Parts&&... parts) {
    return Status(StatusCode::kCancelled, Concat(std::forward<Parts>(parts)...));
  }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  /// Returns the message, empty on success.
  const std::string& message() const;
  /// Returns "Code: message", or "OK".
  std::string ToString() const;

  /// Returns a copy whose message is `context` followed by ": " and this message.
  /// Used to add the file, partition or map output an inner error happened in.
  Status WithContext(std::string_view context) const;

  bool IsInvalid() const { return code() == StatusCode::kInvalid; }
  bool IsCorrupt() const { return code() == StatusCode::kCorrupt; }
  bool IsIOError() const { return code() == StatusCode::kIOError; }
  bool IsOutOfMemory() const { return code() == StatusCode::kOutOfMemory; }
  bool IsNotImplemented() const { return code() == StatusCode::kNotImplemented; }
  bool IsCancelled() const { return code() == StatusCode::kCancelled; }

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  // Deletes a State unless it is the static one OutOfMemoryWithoutMessage() shares.
  struct StateDeleter {
    void operator()(State* state) const noexcept;
  };
  static State* PreallocatedOutOfMemory() noexcept;

  template <typename... Parts>
  static std::string Concat(Parts&&... parts) {
    std::ostringstream stream;
    (stream << ... << std::forward<Parts>(parts));
    return stream.str();
  }

  std::unique_ptr<State, StateDeleter> state_;
};

}  // namespace sluice

/// Returns from the current function if `expr` (a Status) is not OK.
#define SLUICE_RETURN_NOT_OK(expr)                   \
  do {                                               \
    ::sluice::Status sluice_status_ = (expr);        \
    if (!sluice_status_.ok()) return sluice_status_; \
  } while (false)

#define SLUICE_CONCAT_INNER(a, b) a##b
#define SLUICE_CONCAT(a, b) SLUICE_CONCAT_INNER(a, b)

/// Evaluates `rexpr` (a Result<T>); on failure returns its Status, otherwise moves the value into
/// `lhs`, which may be a declaration (`auto x`) or an existing variable.
#define SLUICE_ASSIGN_OR_RAISE(lhs, rexpr) \
  SLUICE_ASSIGN_OR_RAISE_IMPL(SLUICE_CONCAT(sluice_result_, __LINE__), lhs, rexpr)

#define SLUICE_ASSIGN_OR_RAISE_IMPL(result_name, lhs, rexpr)     \
  auto result_name = (rexpr);                                    \
  if (!result_name.ok()) return std::move(result_name).status(); \
  lhs = std::move(result_name).ValueUnsafe();
