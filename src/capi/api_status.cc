#include <cstdlib>
#include <new>
#include <string>

#include "api_status_internal.h"
#include "sluice/sluice.h"

namespace sluice::capi {

namespace {
thread_local std::string last_error;
// Set when the message itself could not be stored (memory ran out copying it).
thread_local bool last_error_lost = false;
}  // namespace

int Report(const Status& status) {
  last_error.clear();
  last_error_lost = false;
  if (status.ok()) return SLUICE_OK;
  try {
    last_error = status.message();
  } catch (const std::bad_alloc&) {
    last_error_lost = true;
  }
  return static_cast<int>(status.code());
}

const char* LastErrorMessage() {
  return last_error_lost ? "out of memory (the error message could not be kept)"
                         : last_error.c_str();
}

}  // namespace sluice::capi

extern "C" {

const char* sluice_version(void) {
  return "0.1.0";
}

const char* sluice_last_error(void) {
  return sluice::capi::LastErrorMessage();
}

void sluice_free(void* pointer) {
  std::free(pointer);
}

}  // extern "C"
