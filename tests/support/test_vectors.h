// Reads the shared test vectors (../shared/vectors): one case per line, tab-separated, '#'
// starting a comment.
#pragma once

#include <string>
#include <vector>

namespace sluice::testing {

/// Returns the absolute path of a file in the shared vectors folder.
std::string VectorPath(const std::string& name);

/// Returns the tab-separated fields of every non-comment, non-empty line of a vector file.
/// Fails the current test (and returns nothing) when the file cannot be read.
std::vector<std::vector<std::string>> ReadVectorRows(const std::string& name);

/// Parses a decimal integer or a 0x-prefixed unsigned hex value.
long long ParseVectorInteger(const std::string& text);

}  // namespace sluice::testing
