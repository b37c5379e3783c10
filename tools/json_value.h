// JsonValue: a JSON document in memory, parsed from text or built up, and written back; a thin
// face over nlohmann::ordered_json (Debian's nlohmann-json3-dev), which parses, escapes and
// formats numbers.
//
// The tool's --json outputs are built with it, and `sluice bench` reads the Google Benchmark
// programs' JSON with it to merge them into one report. Objects keep their members in order, so
// output reads in the order it was built; integers stay exact 64-bit values. What it adds to the
// library is the layout of Dump (arrays of scalars and objects of scalars inside arrays on one
// line, so long lists read as tables) and reading the NaN and infinities Google Benchmark writes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
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

  JsonValue() = default;  // NOLINT(bugprone-exception-escape): constructs a null, never throws
  JsonValue(bool value) : value_(value) {}                      // NOLINT
  JsonValue(int value) : value_(int64_t{value}) {}              // NOLINT
  JsonValue(int64_t value) : value_(value) {}                   // NOLINT
  JsonValue(uint32_t value) : value_(int64_t{value}) {}         // NOLINT
  JsonValue(double value) : value_(value) {}                    // NOLINT
  JsonValue(std::string value) : value_(std::move(value)) {}    // NOLINT
  JsonValue(const char* value) : value_(std::string(value)) {}  // NOLINT

  /// Returns an empty array or object.
  static JsonValue Array();
  static JsonValue Object();

  /// Parses `text`; errors name `source` and the byte offset. Bare NaN and infinities (which
  /// Google Benchmark writes for undefined counters) are read as null.
  static Result<JsonValue> Parse(std::string_view text, std::string_view source);

  Kind kind() const;
  bool is_null() const { return value_.is_null(); }
  bool is_number() const { return value_.is_number(); }
  bool is_string() const { return value_.is_string(); }
  bool is_array() const { return value_.is_array(); }
  bool is_object() const { return value_.is_object(); }

  bool boolean() const { return value_.is_boolean() && value_.get<bool>(); }
  /// Returns a number as a double (integers converted).
  double number() const { return value_.is_number() ? value_.get<double>() : 0; }
  /// Returns a number as an integer (doubles truncated).
  int64_t integer() const;
  const std::string& string() const;
  /// Copies of an array's items and an object's members, in order.
  std::vector<JsonValue> items() const;
  std::vector<Member> members() const;

  /// Returns the member named `key`, if any (objects only).
  std::optional<JsonValue> Find(std::string_view key) const;
  /// Sets member `key`, replacing an existing one in place; returns *this for chaining.
  JsonValue& Set(std::string_view key, JsonValue value);
  /// Appends an item to an array; returns *this for chaining.
  JsonValue& Append(JsonValue value);

  /// Writes the value as JSON: compact when `indent` < 0, else one member per line (see above).
  std::string Dump(int indent = -1) const;

 private:
  explicit JsonValue(nlohmann::ordered_json value) : value_(std::move(value)) {}
  static void DumpTo(const nlohmann::ordered_json& value, std::string* out, int indent, int depth);

  nlohmann::ordered_json value_;
};

}  // namespace sluice::cli
