#include "exit_status.h"

#include <cstdio>
#include <string>

#include "interruption.h"

namespace sluice::cli {

int ReportError(std::string_view command, const Status& status, int exit_code) {
  std::string line = "sluice " + std::string(command) + ": error: " + status.message();
  // One line, whatever a nested message carried.
  for (char& c : line) {
    if (c == '\n') c = ' ';
  }
  std::fprintf(stderr, "%s\n", line.c_str());
  return ExitCodeFor(status, exit_code);
}

}  // namespace sluice::cli
