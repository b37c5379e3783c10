// Test helpers for the row converters: expected UnsafeRow bytes written word by word, the shared
// UnsafeRow vector file, and converting between the two directions in one call.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/row/columnar_to_row_converter.h"
#include "sluice/row/row_to_columnar_converter.h"
#include "support/test_vectors.h"

namespace sluice::testing {

/// Expected bytes, written the way the layout is documented: 8-byte little-endian words and
/// word-padded byte strings.
class RowBytes {
 public:
  RowBytes& Word(uint64_t word) {
    for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<uint8_t>(word >> (8 * i)));
    return *this;
  }
  /// Appends (offset << 32 | size).
  RowBytes& OffsetAndSize(uint64_t offset, uint64_t size) { return Word(offset << 32 | size); }
  /// Appends raw bytes, then zeros up to the next multiple of 8.
  RowBytes& Padded(const std::vector<uint8_t>& raw) {
    bytes_.insert(bytes_.end(), raw.begin(), raw.end());
    while (bytes_.size() % 8 != 0) bytes_.push_back(0);
    return *this;
  }
  RowBytes& Text(std::string_view text) {
    return Padded(std::vector<uint8_t>(text.begin(), text.end()));
  }
  /// Appends one little-endian value of `width` bytes (array elements narrower than a word).
  RowBytes& Value(uint64_t value, int width) {
    for (int i = 0; i < width; ++i) bytes_.push_back(static_cast<uint8_t>(value >> (8 * i)));
    return *this;
  }
  /// Pads with zeros to the next multiple of 8.
  RowBytes& Pad() { return Padded({}); }

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  int32_t size() const { return static_cast<int32_t>(bytes_.size()); }

 private:
  std::vector<uint8_t> bytes_;
};

/// Returns the leading two-digit hex tokens of `line` (at most `limit`), as bytes.
inline std::vector<uint8_t> LeadingHexBytes(const std::string& line, size_t limit) {
  std::vector<uint8_t> bytes;
  std::istringstream tokens(line);
  std::string token;
  while (bytes.size() < limit && tokens >> token) {
    if (token.size() != 2 || !std::isxdigit(static_cast<unsigned char>(token[0])) ||
        !std::isxdigit(static_cast<unsigned char>(token[1]))) {
      break;
    }
    bytes.push_back(static_cast<uint8_t>(std::stoi(token, nullptr, 16)));
  }
  return bytes;
}

/// The example of ../shared/vectors/unsafe_row.txt: the row's bytes, its declared size, and the
/// 4-byte framing prefix the file shows.
struct UnsafeRowVector {
  std::vector<uint8_t> row;
  int64_t declared_size = -1;
  std::vector<uint8_t> frame_prefix;
};

/// Parses unsafe_row.txt: the hex lines after "bytes (hex):", "sizeInBytes = N", and the hex
/// prefix on the line after the framing sentence.
inline UnsafeRowVector ReadUnsafeRowVector() {
  UnsafeRowVector vector;
  std::ifstream file(VectorPath("unsafe_row.txt"));
  if (!file) {
    ADD_FAILURE() << "cannot read " << VectorPath("unsafe_row.txt");
    return vector;
  }
  std::string line;
  bool in_bytes = false;
  bool after_framing = false;
  while (std::getline(file, line)) {
    if (line.rfind("sizeInBytes = ", 0) == 0) {
      vector.declared_size = std::stoll(line.substr(14));
      continue;
    }
    if (line.rfind("bytes (hex):", 0) == 0) {
      in_bytes = true;
      continue;
    }
    if (in_bytes) {
      const std::vector<uint8_t> bytes = LeadingHexBytes(line, 8);
      if (bytes.empty()) {
        in_bytes = false;
      } else {
        vector.row.insert(vector.row.end(), bytes.begin(), bytes.end());
        continue;
      }
    }
    if (line.find("framing") != std::string::npos) {
      after_framing = true;
      continue;
    }
    if (after_framing && vector.frame_prefix.empty()) {
      vector.frame_prefix = LeadingHexBytes(line, 4);
    }
  }
  return vector;
}

/// Converts a whole batch to rows.
inline UnsafeRowBatch ToRows(const RecordBatch& batch, RowFraming framing = RowFraming::kNone) {
  auto converter = ColumnarToRowConverter::Make(batch.schema(), {framing}).ValueOrDie();
  UnsafeRowBatch rows;
  const Status status = converter->Convert(batch, 0, batch.num_rows(), &rows);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return rows;
}

/// Converts rows back to a batch that owns its memory.
inline Result<RecordBatch> ToBatch(const SchemaPtr& schema, const UnsafeRowBatch& rows,
                                   RowToColumnarOptions options = {}) {
  auto converter = RowToColumnarConverter::Make(schema, options).ValueOrDie();
  std::vector<const uint8_t*> pointers;
  rows.RowPointers(&pointers);
  SLUICE_RETURN_NOT_OK(converter->Append(pointers.data(), rows.sizes.data(), rows.num_rows()));
  return converter->Finish();
}

/// Returns the bytes of row `index`.
inline std::vector<uint8_t> RowAt(const UnsafeRowBatch& rows, int64_t index) {
  const uint8_t* start = rows.row(index);
  return std::vector<uint8_t>(start, start + rows.sizes[index]);
}

/// Formats bytes as hex words, one per line, for readable failure messages.
inline std::string HexWords(const std::vector<uint8_t>& bytes) {
  std::ostringstream text;
  for (size_t i = 0; i < bytes.size(); ++i) {
    static const char* kDigits = "0123456789abcdef";
    text << kDigits[bytes[i] >> 4] << kDigits[bytes[i] & 15] << (i % 8 == 7 ? "\n" : " ");
  }
  return text.str();
}

}  // namespace sluice::testing
