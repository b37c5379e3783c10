#include "json_value.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace sluice::cli {

namespace {

// Nesting deeper than this is refused: the documents read here (benchmark output) are a few
// levels deep, and the bound keeps a hostile file from exhausting the stack.
constexpr int kMaxDepth = 64;

class JsonParser {
 public:
  JsonParser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  Result<JsonValue> ParseDocument() {
    SLUICE_ASSIGN_OR_RAISE(JsonValue value, ParseValue(0));
    SkipSpace();
    if (position_ != text_.size()) return Error("unexpected text after the document");
    return value;
  }

 private:
  Status Error(std::string_view what) const {
    return Status::Invalid(source_, ": byte ", position_, ": ", what);
  }

  void SkipSpace() {
    while (position_ < text_.size() && (text_[position_] == ' ' || text_[position_] == '\n' ||
                                        text_[position_] == '\r' || text_[position_] == '\t')) {
      ++position_;
    }
  }

  bool Consume(std::string_view word) {
    if (text_.substr(position_, word.size()) != word) return false;
    position_ += word.size();
    return true;
  }

  Result<JsonValue> ParseValue(int depth) {
    if (depth > kMaxDepth) return Error("nesting too deep");
    SkipSpace();
    if (position_ >= text_.size()) return Error("unexpected end of the document");
    const char c = text_[position_];
    if (c == '{') return ParseObject(depth);
    if (c == '[') return ParseArray(depth);
    if (c == '"') {
      SLUICE_ASSIGN_OR_RAISE(std::string text, ParseString());
      return JsonValue(std::move(text));
    }
    if (Consume("true")) return JsonValue(true);
    if (Consume("false")) return JsonValue(false);
    if (Consume("null")) return JsonValue();
    // Google Benchmark writes these for undefined counters; read them as null.
    if (Consume("NaN") || Consume("-nan") || Consume("nan") || Consume("Infinity") ||
        Consume("-Infinity") || Consume("inf") || Consume("-inf")) {
      return JsonValue();
    }
    return ParseNumber();
  }

  Result<JsonValue> ParseNumber() {
    const size_t start = position_;
    bool integral = true;
    while (position_ < text_.size()) {
      const char c = text_[position_];
      if (c == '.' || c == 'e' || c == 'E') {
        integral = false;
      } else if (!(c == '-' || c == '+' || (c >= '0' && c <= '9'))) {
        break;
      }
      ++position_;
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + position_;
    if (first == last) return Error("expected a value");
    if (integral) {
      int64_t value = 0;
      const auto [end, error] = std::from_chars(first, last, value);
      if (error == std::errc() && end == last) return JsonValue(value);
    }
    double value = 0;
    const auto [end, error] = std::from_chars(first, last, value);
    if (error != std::errc() || end != last) {
      position_ = start;
      return Error("malformed number");
    }
    return JsonValue(value);
  }

  Result<std::string> ParseString() {
    ++position_;  // the opening quote
    std::string out;
    while (true) {
      if (position_ >= text_.size()) return Error("unterminated string");
      const char c = text_[position_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (position_ >= text_.size()) return Error("unterminated escape");
      const char escape = text_[position_++];
      switch (escape) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          if (position_ + 4 > text_.size()) return Error("truncated \\u escape");
          uint32_t code = 0;
          const auto [end, error] =
              std::from_chars(text_.data() + position_, text_.data() + position_ + 4, code, 16);
          if (error != std::errc() || end != text_.data() + position_ + 4) {
            return Error("malformed \\u escape");
          }
          position_ += 4;
          // Encodes the code unit as UTF-8 (surrogate pairs are kept as two units).
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
          }
          break;
        }
        default:
          return Error("unknown escape");
      }
    }
  }

  Result<JsonValue> ParseArray(int depth) {
    ++position_;
    JsonValue array = JsonValue::Array();
    SkipSpace();
    if (position_ < text_.size() && text_[position_] == ']') {
      ++position_;
      return array;
    }
    while (true) {
      SLUICE_ASSIGN_OR_RAISE(JsonValue item, ParseValue(depth + 1));
      array.Append(std::move(item));
      SkipSpace();
      if (position_ < text_.size() && text_[position_] == ',') {
        ++position_;
        continue;
      }
      if (position_ < text_.size() && text_[position_] == ']') {
        ++position_;
        return array;
      }
      return Error("expected ',' or ']'");
    }
  }

  Result<JsonValue> ParseObject(int depth) {
    ++position_;
    JsonValue object = JsonValue::Object();
    SkipSpace();
    if (position_ < text_.size() && text_[position_] == '}') {
      ++position_;
      return object;
    }
    while (true) {
      SkipSpace();
      if (position_ >= text_.size() || text_[position_] != '"') return Error("expected a key");
      SLUICE_ASSIGN_OR_RAISE(std::string key, ParseString());
      SkipSpace();
      if (position_ >= text_.size() || text_[position_] != ':') return Error("expected ':'");
      ++position_;
      SLUICE_ASSIGN_OR_RAISE(JsonValue value, ParseValue(depth + 1));
      object.Set(key, std::move(value));
      SkipSpace();
      if (position_ < text_.size() && text_[position_] == ',') {
        ++position_;
        continue;
      }
      if (position_ < text_.size() && text_[position_] == '}') {
        ++position_;
        return object;
      }
      return Error("expected ',' or '}'");
    }
  }

  std::string_view text_;
  std::string_view source_;
  size_t position_ = 0;
};

}  // namespace

JsonValue JsonValue::Array() {
  JsonValue value;
  value.kind_ = Kind::kArray;
  return value;
}

JsonValue JsonValue::Object() {
  JsonValue value;
  value.kind_ = Kind::kObject;
  return value;
}

Result<JsonValue> JsonValue::Parse(std::string_view text, std::string_view source) {
  return JsonParser(text, source).ParseDocument();
}

const JsonValue* JsonValue::Find(std::string_view key) const {
  for (const Member& member : members_) {
    if (member.first == key) return &member.second;
  }
  return nullptr;
}

JsonValue& JsonValue::Set(std::string_view key, JsonValue value) {
  for (Member& member : members_) {
    if (member.first == key) {
      member.second = std::move(value);
      return *this;
    }
  }
  members_.emplace_back(std::string(key), std::move(value));
  return *this;
}

JsonValue& JsonValue::Append(JsonValue value) {
  items_.push_back(std::move(value));
  return *this;
}

std::string QuoteJson(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escape[8];
          std::snprintf(escape, sizeof(escape), "\\u%04x", static_cast<unsigned>(c));
          out += escape;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string JsonValue::Dump(int indent) const {
  std::string out;
  DumpTo(&out, indent, 0);
  return out;
}

void JsonValue::DumpTo(std::string* out, int indent, int depth) const {
  auto newline = [&](int level) {
    if (indent < 0) return;
    *out += '\n';
    out->append(static_cast<size_t>(indent * level), ' ');
  };
  switch (kind_) {
    case Kind::kNull:
      *out += "null";
      return;
    case Kind::kBoolean:
      *out += integer_ != 0 ? "true" : "false";
      return;
    case Kind::kInteger:
      *out += std::to_string(integer_);
      return;
    case Kind::kDouble: {
      if (!std::isfinite(double_)) {
        *out += "null";
        return;
      }
      char text[32];
      const auto [end, error] = std::to_chars(text, text + sizeof(text), double_);
      out->append(text, error == std::errc() ? end : text);
      return;
    }
    case Kind::kString:
      *out += QuoteJson(string_);
      return;
    case Kind::kArray: {
      *out += '[';
      // Arrays of plain numbers stay on one line: long series (partition rows, memory samples)
      // would otherwise take one line per value.
      bool scalars = true;
      for (const JsonValue& item : items_)
        scalars = scalars && !item.is_array() && !item.is_object();
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i > 0) *out += scalars && indent >= 0 ? ", " : ",";
        if (!scalars) newline(depth + 1);
        items_[i].DumpTo(out, indent, depth + 1);
      }
      if (!scalars && !items_.empty()) newline(depth);
      *out += ']';
      return;
    }
    case Kind::kObject: {
      // An object of scalars inside an array (a partition's counts, a benchmark's counters)
      // stays on one line, so long lists read as tables.
      bool flat = indent >= 0 && depth > 0;
      for (const Member& member : members_) {
        flat = flat && !member.second.is_array() && !member.second.is_object();
      }
      *out += '{';
      for (size_t i = 0; i < members_.size(); ++i) {
        if (i > 0) *out += flat ? ", " : ",";
        if (!flat) newline(depth + 1);
        *out += QuoteJson(members_[i].first);
        *out += indent >= 0 ? ": " : ":";
        members_[i].second.DumpTo(out, indent, depth + 1);
      }
      if (!members_.empty() && !flat) newline(depth);
      *out += '}';
      return;
    }
  }
}

}  // namespace sluice::cli
