#include "sluice/base/status.h"

#include <cstdio>
#include <cstdlib>

#include "sluice/base/check.h"

namespace sluice {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalid:
      return "Invalid";
    case StatusCode::kCorrupt:
      return "Corrupt";
    case StatusCode::kIOError:
      return "IOError";
    case StatusCode::kOutOfMemory:
      return "OutOfMemory";
    case StatusCode::kNotImplemented:
      return "NotImplemented";
    case StatusCode::kCancelled:
      return "Cancelled";
  }
  return "Unknown";
}

Status::Status(StatusCode code, std::string message) {
  if (code != StatusCode::kOk) state_ = std::make_unique<State>(State{code, std::move(message)});
}

Status::Status(const Status& other)
    : state_(other.state_ ? std::make_unique<State>(*other.state_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) state_ = other.state_ ? std::make_unique<State>(*other.state_) : nullptr;
  return *this;
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return state_ ? state_->message : kEmpty;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string text(StatusCodeName(state_->code));
  text += ": ";
  text += state_->message;
  return text;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string message(context);
  message += ": ";
  message += state_->message;
  return Status(state_->code, std::move(message));
}

namespace internal {
void CheckFailed(const char* file, int line, const char* condition, const char* message) {
  std::fprintf(stderr, "%s:%d: check failed: %s %s\n", file, line, condition, message);
  std::abort();
}
}  // namespace internal

}  // namespace sluice
