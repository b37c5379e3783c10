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
  if (code != StatusCode::kOk) state_.reset(new State{code, std::move(message)});
}

Status::State* Status::PreallocatedOutOfMemory() noexcept {
  static State state{StatusCode::kOutOfMemory,
                     "out of memory (and no memory left to describe where)"};
  return &state;
}

void Status::StateDeleter::operator()(State* state) const noexcept {
  if (state != PreallocatedOutOfMemory()) delete state;
}

Status Status::OutOfMemoryWithoutMessage() noexcept {
  Status status;
  status.state_.reset(PreallocatedOutOfMemory());
  return status;
}

namespace {
// Copies a state: the preallocated one is shared, so copying it cannot fail.
template <typename Pointer>
Pointer CopyState(const Pointer& state, typename Pointer::pointer preallocated) {
  if (state == nullptr) return nullptr;
  if (state.get() == preallocated) return Pointer(preallocated);
  return Pointer(new typename Pointer::element_type(*state));
}
}  // namespace

Status::Status(const Status& other) : state_(CopyState(other.state_, PreallocatedOutOfMemory())) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) state_ = CopyState(other.state_, PreallocatedOutOfMemory());
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
