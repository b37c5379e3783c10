#include "table_printer.h"

#include <algorithm>

#include "sluice/base/check.h"

namespace sluice::cli {

namespace {

// The display width of UTF-8 text: one column per code point (lead bytes only).
size_t DisplayWidth(const std::string& text) {
  size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80;
  return width;
}

// Cuts `text` to `width` columns, at a code point boundary, ending in "...".
std::string Truncate(const std::string& text, size_t width) {
  if (width == 0 || DisplayWidth(text) <= width) return text;
  std::string cut;
  size_t columns = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) {
      if (columns + 3 >= width) break;
      ++columns;
    }
    cut += text[i];
  }
  return cut + "...";
}

}  // namespace

TablePrinter::TablePrinter(std::vector<Column> columns, size_t max_cell_width)
    : columns_(std::move(columns)), max_cell_width_(max_cell_width) {}

void TablePrinter::AddRow(std::vector<std::string> cells) {
  SLUICE_DCHECK(cells.size() <= columns_.size());
  cells.resize(columns_.size());
  for (std::string& cell : cells) {
    // Control characters would break the alignment: show them escaped.
    std::string clean;
    for (char c : cell) {
      if (c == '\n') {
        clean += "\\n";
      } else if (c == '\t') {
        clean += "\\t";
      } else if (static_cast<unsigned char>(c) < 0x20) {
        clean += '?';
      } else {
        clean += c;
      }
    }
    cell = Truncate(clean, max_cell_width_);
  }
  rows_.push_back(std::move(cells));
}

void TablePrinter::AddRule() {
  rows_.emplace_back();
}

void TablePrinter::Print(std::ostream& out) const {
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) widths[c] = DisplayWidth(columns_[c].header);
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
  }
  auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const size_t padding = widths[c] - DisplayWidth(cells[c]);
      if (c > 0) line += "  ";
      if (columns_[c].align == Align::kRight) {
        line += std::string(padding, ' ') + cells[c];
      } else if (c + 1 < columns_.size()) {
        line += cells[c] + std::string(padding, ' ');
      } else {
        line += cells[c];  // no trailing blanks
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  auto print_rule = [&] {
    std::string line;
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (c > 0) line += "  ";
      line += std::string(widths[c], '-');
    }
    out << line << "\n";
  };
  std::vector<std::string> headers;
  for (const Column& column : columns_) headers.push_back(column.header);
  print_row(headers);
  print_rule();
  for (const auto& row : rows_) {
    if (row.empty()) {
      print_rule();
    } else {
      print_row(row);
    }
  }
}

std::string TablePrinter::FormatInteger(int64_t value) {
  const bool negative = value < 0;
  std::string digits =
      std::to_string(negative ? -static_cast<uint64_t>(value) : static_cast<uint64_t>(value));
  std::string grouped;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return negative ? "-" + grouped : grouped;
}

}  // namespace sluice::cli
