#include "argument_parser.h"

#include <charconv>
#include <sstream>

#include "sluice/base/byte_size.h"

namespace sluice::cli {

ArgumentParser::ArgumentParser(std::string command, std::string usage, std::string summary,
                               std::vector<std::string> examples)
    : command_(std::move(command)),
      usage_(std::move(usage)),
      summary_(std::move(summary)),
      examples_(std::move(examples)) {}

void ArgumentParser::AddOption(std::string name, std::string value_name, std::string help,
                               bool repeatable) {
  options_.push_back(Option{std::move(name), std::move(value_name), std::move(help), repeatable});
}

void ArgumentParser::AddFlag(std::string name, std::string help) {
  options_.push_back(Option{std::move(name), std::string(), std::move(help), false});
}

void ArgumentParser::AddPositional(std::string name, std::string help) {
  positional_help_.emplace_back(std::move(name), std::move(help));
}

const ArgumentParser::Option* ArgumentParser::Find(const std::string& name) const {
  for (const Option& option : options_) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

std::string ArgumentParser::HelpHint() const {
  return "see '" + command_ + " --help'";
}

Status ArgumentParser::FlagError(const std::string& name, const std::string& message) const {
  return Status::Invalid("--", name, ": ", message);
}

Status ArgumentParser::Parse(std::span<const std::string> arguments) {
  bool only_positionals = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const std::string& argument = arguments[i];
    if (only_positionals || argument == "-" || argument.empty() || argument[0] != '-') {
      positionals_.push_back(argument);
      continue;
    }
    if (argument == "--") {
      only_positionals = true;
      continue;
    }
    if (argument == "--help" || argument == "-h") {
      help_requested_ = true;
      continue;
    }
    if (argument.rfind("--", 0) != 0) {
      return Status::Invalid("unknown flag '", argument, "' (", HelpHint(), ")");
    }
    std::string name = argument.substr(2);
    std::optional<std::string> inline_value;
    if (const size_t equals = name.find('='); equals != std::string::npos) {
      inline_value = name.substr(equals + 1);
      name.resize(equals);
    }
    const Option* option = Find(name);
    if (option == nullptr) {
      return Status::Invalid("unknown flag '--", name, "' (", HelpHint(), ")");
    }
    if (!option->repeatable && Has(name)) {
      return Status::Invalid("--", name, " is given more than once");
    }
    if (option->value_name.empty()) {
      if (inline_value) return Status::Invalid("--", name, " takes no value");
      given_.emplace_back(name, std::string());
      continue;
    }
    if (inline_value) {
      given_.emplace_back(name, *inline_value);
    } else if (i + 1 < arguments.size()) {
      given_.emplace_back(name, arguments[++i]);
    } else {
      return Status::Invalid("--", name, " needs a value (", option->value_name, ")");
    }
  }
  return Status::OK();
}

bool ArgumentParser::Has(const std::string& name) const {
  for (const auto& [given_name, value] : given_) {
    if (given_name == name) return true;
  }
  return false;
}

std::optional<std::string> ArgumentParser::Value(const std::string& name) const {
  std::optional<std::string> found;
  for (const auto& [given_name, value] : given_) {
    if (given_name == name) found = value;
  }
  return found;
}

std::vector<std::string> ArgumentParser::Values(const std::string& name) const {
  std::vector<std::string> values;
  for (const auto& [given_name, value] : given_) {
    if (given_name == name) values.push_back(value);
  }
  return values;
}

std::string ArgumentParser::ValueOr(const std::string& name, const std::string& fallback) const {
  return Value(name).value_or(fallback);
}

Result<int64_t> ParseFlagInteger(const std::string& flag, const std::string& text, int64_t minimum,
                                 int64_t maximum) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return Status::Invalid("--", flag, ": '", text, "' is not an integer");
  }
  if (value < minimum || value > maximum) {
    return Status::Invalid("--", flag, ": ", value, " is outside [", minimum, ", ", maximum, "]");
  }
  return value;
}

Result<std::vector<int64_t>> ParseIntegerList(const std::string& flag, const std::string& text,
                                              int64_t minimum, int64_t maximum) {
  std::vector<int64_t> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    SLUICE_ASSIGN_OR_RAISE(int64_t value, ParseFlagInteger(flag, item, minimum, maximum));
    values.push_back(value);
  }
  if (values.empty()) return Status::Invalid("--", flag, ": empty list");
  return values;
}

Result<int64_t> ArgumentParser::IntegerOr(const std::string& name, int64_t fallback,
                                          int64_t minimum, int64_t maximum) const {
  const std::optional<std::string> text = Value(name);
  if (!text) return fallback;
  return ParseFlagInteger(name, *text, minimum, maximum);
}

Result<int64_t> ArgumentParser::ByteSizeOr(const std::string& name, int64_t fallback) const {
  const std::optional<std::string> text = Value(name);
  if (!text) return fallback;
  Result<int64_t> bytes = ParseByteSize(*text);
  if (!bytes.ok()) return FlagError(name, bytes.status().message());
  return bytes;
}

std::string ArgumentParser::HelpText() const {
  std::ostringstream text;
  text << "Usage: " << command_ << " " << usage_ << "\n\n" << summary_ << "\n";
  if (!positional_help_.empty()) {
    text << "\nArguments:\n";
    for (const auto& [name, help] : positional_help_) {
      text << "  " << name << std::string(name.size() < 24 ? 24 - name.size() : 1, ' ') << help
           << "\n";
    }
  }
  text << "\nOptions:\n";
  for (const Option& option : options_) {
    std::string left = "--" + option.name;
    if (!option.value_name.empty()) left += " " + option.value_name;
    text << "  " << left;
    if (left.size() < 24) {
      text << std::string(24 - left.size(), ' ');
    } else {
      text << "\n" << std::string(26, ' ');
    }
    text << option.help << (option.repeatable ? " (repeatable)" : "") << "\n";
  }
  text << "  --help" << std::string(18, ' ') << "show this help\n";
  if (!examples_.empty()) {
    text << "\nExamples:\n";
    for (const std::string& example : examples_) text << "  " << example << "\n";
  }
  return text.str();
}

}  // namespace sluice::cli
