// The temporary directory a benchmark program writes its files in.
#pragma once

#include <string>

namespace sluice::workload {

/// A directory under the system's temporary directory, made on first use and removed, with
/// whatever is left in it, when the program exits.
const std::string& ScratchDirectory();

}  // namespace sluice::workload
