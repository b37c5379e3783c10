// TablePrinter: rows of text cells printed as aligned columns, for summaries and `read --head`.
//
//   partition      rows     bytes  blocks  codec
//           0    49,873   1.9 MiB       7  lz4
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace sluice::cli {

class TablePrinter {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string header;
    Align align = Align::kLeft;
  };

  /// `max_cell_width` cuts longer cells with "..." (0 for no limit).
  explicit TablePrinter(std::vector<Column> columns, size_t max_cell_width = 0);

  /// Adds a row; missing cells are empty (more cells than columns is a programmer error).
  void AddRow(std::vector<std::string> cells);
  /// Adds a rule line (dashes) between rows, for a total row.
  void AddRule();
  /// Prints the header, a rule and the rows.
  void Print(std::ostream& out) const;

  size_t row_count() const { return rows_.size(); }

  /// Returns 1234567 as "1,234,567".
  static std::string FormatInteger(int64_t value);

 private:
  std::vector<Column> columns_;
  size_t max_cell_width_;
  std::vector<std::vector<std::string>> rows_;  // an empty row is a rule
};

}  // namespace sluice::cli
