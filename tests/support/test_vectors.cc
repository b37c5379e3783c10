#include "support/test_vectors.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace sluice::testing {

std::string VectorPath(const std::string& name) {
  const char* override_dir = std::getenv("SLUICE_VECTORS_DIR");
  return std::string(override_dir != nullptr ? override_dir : SLUICE_VECTORS_DIR) + "/" + name;
}

std::vector<std::vector<std::string>> ReadVectorRows(const std::string& name) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream file(VectorPath(name));
  if (!file) {
    ADD_FAILURE() << "cannot read test vectors " << VectorPath(name);
    return rows;
  }
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::string field;
    std::istringstream stream(line);
    while (std::getline(stream, field, '\t')) fields.push_back(field);
    // A trailing tab means a trailing empty field.
    if (!line.empty() && line.back() == '\t') fields.emplace_back();
    rows.push_back(std::move(fields));
  }
  return rows;
}

long long ParseVectorInteger(const std::string& text) {
  if (text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0) {
    return static_cast<long long>(std::stoull(text.substr(2), nullptr, 16));
  }
  return std::stoll(text);
}

}  // namespace sluice::testing
