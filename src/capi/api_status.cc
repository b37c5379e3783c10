#include <cstdlib>
#include <string>

#include "api_status_internal.h"
#include "sluice/sluice.h"

namespace sluice::capi {

namespace {
thread_local std::string last_error;
}  // namespace

int Report(const Status& status) {
  if (status.ok()) {
    last_error.clear();
    return SLUICE_OK;
  }
  last_error = status.message();
  return static_cast<int>(status.code());
}

const char* LastErrorMessage() { return last_error.c_str(); }

}  // namespace sluice::capi

extern "C" {

const char* sluice_version(void) { return "0.1.0"; }

const char* sluice_last_error(void) { return sluice::capi::LastErrorMessage(); }

void sluice_free(void* pointer) { std::free(pointer); }

}  // extern "C"
