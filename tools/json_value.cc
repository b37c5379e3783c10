#include "json_value.h"

#include <array>

namespace sluice::cli {

namespace {

using Json = nlohmann::ordered_json;

// Google Benchmark writes undefined counters as bare NaN or infinities, which JSON has no word
// for: outside strings, each becomes null (byte offsets in errors are then the cleaned text's).
std::string WithNonFiniteAsNull(std::string_view text) {
  static constexpr std::array<std::string_view, 7> kWords = {"-Infinity", "Infinity", "-nan", "NaN",
                                                             "nan",       "-inf",     "inf"};
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    in_string = c == '"';
    bool replaced = false;
    for (std::string_view word : kWords) {
      if (text.substr(i, word.size()) == word) {
        out += "null";
        i += word.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

// A scalar as the library writes it; strings with bytes that are not UTF-8 get U+FFFD for them.
std::string DumpScalar(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

JsonValue JsonValue::Array() {
  return JsonValue(Json::array());
}

JsonValue JsonValue::Object() {
  return JsonValue(Json::object());
}

Result<JsonValue> JsonValue::Parse(std::string_view text, std::string_view source) {
  const std::string cleaned = WithNonFiniteAsNull(text);
  try {
    return JsonValue(Json::parse(cleaned));
  } catch (const Json::parse_error& error) {
    return Status::Invalid(source, ": byte ", error.byte, ": ", error.what());
  }
}

JsonValue::Kind JsonValue::kind() const {
  switch (value_.type()) {
    case Json::value_t::boolean:
      return Kind::kBoolean;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return Kind::kInteger;
    case Json::value_t::number_float:
      return Kind::kDouble;
    case Json::value_t::string:
      return Kind::kString;
    case Json::value_t::array:
      return Kind::kArray;
    case Json::value_t::object:
      return Kind::kObject;
    default:
      return Kind::kNull;
  }
}

int64_t JsonValue::integer() const {
  if (value_.is_number_float()) return static_cast<int64_t>(value_.get<double>());
  return value_.is_number() ? value_.get<int64_t>() : 0;
}

const std::string& JsonValue::string() const {
  static const std::string kEmpty;
  return value_.is_string() ? value_.get_ref<const std::string&>() : kEmpty;
}

std::vector<JsonValue> JsonValue::items() const {
  std::vector<JsonValue> items;
  if (!value_.is_array()) return items;
  items.reserve(value_.size());
  for (const Json& item : value_) items.push_back(JsonValue(item));
  return items;
}

std::vector<JsonValue::Member> JsonValue::members() const {
  std::vector<Member> members;
  if (!value_.is_object()) return members;
  members.reserve(value_.size());
  for (const auto& [key, item] : value_.items()) members.emplace_back(key, JsonValue(item));
  return members;
}

std::optional<JsonValue> JsonValue::Find(std::string_view key) const {
  if (!value_.is_object()) return std::nullopt;
  const auto found = value_.find(key);
  if (found == value_.end()) return std::nullopt;
  return JsonValue(*found);
}

JsonValue& JsonValue::Set(std::string_view key, JsonValue value) {
  value_[std::string(key)] = std::move(value.value_);
  return *this;
}

JsonValue& JsonValue::Append(JsonValue value) {
  value_.push_back(std::move(value.value_));
  return *this;
}

std::string JsonValue::Dump(int indent) const {
  std::string out;
  DumpTo(value_, &out, indent, 0);
  return out;
}

void JsonValue::DumpTo(const Json& value, std::string* out, int indent, int depth) {
  auto newline = [&](int level) {
    if (indent < 0) return;
    *out += '\n';
    out->append(static_cast<size_t>(indent) * static_cast<size_t>(level), ' ');
  };
  auto nested = [](const Json& item) { return item.is_array() || item.is_object(); };
  if (value.is_array()) {
    // Arrays of plain values stay on one line: long series (partition rows, memory samples)
    // would otherwise take one line per value.
    bool scalars = true;
    for (const Json& item : value) scalars = scalars && !nested(item);
    *out += '[';
    bool first = true;
    for (const Json& item : value) {
      if (!first) *out += scalars && indent >= 0 ? ", " : ",";
      first = false;
      if (!scalars) newline(depth + 1);
      DumpTo(item, out, indent, depth + 1);
    }
    if (!scalars && !value.empty()) newline(depth);
    *out += ']';
  } else if (value.is_object()) {
    // An object of scalars inside another value (a partition's counts, a benchmark's counters)
    // stays on one line, so long lists read as tables.
    bool flat = indent >= 0 && depth > 0;
    for (const auto& [key, item] : value.items()) flat = flat && !nested(item);
    *out += '{';
    bool first = true;
    for (const auto& [key, item] : value.items()) {
      if (!first) *out += flat ? ", " : ",";
      first = false;
      if (!flat) newline(depth + 1);
      *out += DumpScalar(Json(key));
      *out += indent >= 0 ? ": " : ":";
      DumpTo(item, out, indent, depth + 1);
    }
    if (!value.empty() && !flat) newline(depth);
    *out += '}';
  } else {
    *out += DumpScalar(value);
  }
}

}  // namespace sluice::cli
