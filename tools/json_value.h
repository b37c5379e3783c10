// JsonValue: a JSON document in memory, parsed from text or built up, and written back.
//
// The tool's --json outputs are built with it, and `sluice bench` reads the Google Benchmark
// programs' JSON with it to merge them into one report. Objects keep their members in order, so
// output reads in the order it was built; integers stay exact 64-bit values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/result.h"

namespace sluice::cli {

class JsonValue {
 public:
  enum class Kind : uint8_t { kNull, kBoolean, kInteger, kDouble, kString, kArray, kObject };
  using Member = std::pair<std::string, JsonValue>;

  JsonValue() = default;
  JsonValue(bool value) : kind_(Kind::kBoolean), integer_(value) {}                  // NOLINT
  JsonValue(int value) : kind_(Kind::kInteger), integer_(value) {}                   // NOLINT
  JsonValue(int64_t value) : kind_(Kind::kInteger), integer_(value) {}               // NOLINT
  JsonValue(uint32_t value) : kind_(Kind::kInteger), integer_(value) {}              // NOLINT
  JsonValue(double value) : kind_(Kind::kDouble), double_(value) {}                  // NOLINT
  JsonValue(std::string value) : kind_(Kind::kString), string_(std::move(value)) {}  // NOLINT
  JsonValue(const char* value) : kind_(Kind::kString), string_(value) {}             // NOLINT

  /// Returns an empty array or object.
  static JsonValue Array();
  static JsonValue Object();

  /// Parses `text`; errors name `source` and the byte offset.
  static Result<JsonValue> Parse(std::string_view text, std::string_view source);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_number() const { return kind_ == Kind::kInteger || kind_ == Kind::kDouble; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_object() const { return kind_ == Kind::kObject; }

  bool boolean() const { return integer_ != 0; }
  /// Returns a number as a double (integers converted).
  double number() const {
    return kind_ == Kind::kInteger ? static_cast<double>(integer_) : double_;
  }
  /// Returns a number as an integer (doubles truncated).
  int64_t integer() const {
    return kind_ == Kind::kDouble ? static_cast<int64_t>(double_) : integer_;
  }
  const std::string& string() const { return string_; }
  const std::vector<JsonValue>& items() const { return items_; }
  std::vector<JsonValue>& items() { return items_; }
  const std::vector<Member>& members() const { return members_; }

  /// Returns the member named `key`, or null when there is none (objects only).
  const JsonValue* Find(std::string_view key) const;
  /// Sets member `key`, replacing an existing one in place; returns *this for chaining.
  JsonValue& Set(std::string_view key, JsonValue value);
  /// Appends an item to an array; returns *this for chaining.
  JsonValue& Append(JsonValue value);

  /// Writes the value as JSON: compact when `indent` < 0, else one member per line.
  std::string Dump(int indent = -1) const;

 private:
  void DumpTo(std::string* out, int indent, int depth) const;

  Kind kind_ = Kind::kNull;
  int64_t integer_ = 0;
  double double_ = 0;
  std::string string_;
  std::vector<JsonValue> items_;
  std::vector<Member> members_;
};

/// Returns `text` as a quoted JSON string.
std::string QuoteJson(std::string_view text);

}  // namespace sluice::cli
