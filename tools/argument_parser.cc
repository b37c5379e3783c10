#include "argument_parser.h"

#include <CLI/CLI.hpp>
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

// The tokens are CLI11's work (`--name value`, `--name=value`, "--" before positionals, "-"
// as a positional); what an option may be given (once, or repeatedly) is checked here, so that
// every mistake names the flag the same way.
Status ArgumentParser::Parse(std::span<const std::string> arguments) {
  CLI::App app;
  app.set_help_flag();  // the help text is HelpText's
  app.allow_extras(false);
  bool help = false;
  app.add_flag("-h,--help", help);
  std::vector<std::vector<std::string>> values(options_.size());
  std::vector<int64_t> counts(options_.size(), 0);
  for (size_t i = 0; i < options_.size(); ++i) {
    const Option& option = options_[i];
    if (option.value_name.empty()) {
      app.add_flag("--" + option.name, counts[i]);
    } else {
      app.add_option("--" + option.name, values[i])
          ->expected(1)
          ->allow_extra_args(false)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    }
  }
  app.add_option("arguments", positionals_);
  std::vector<std::string> reversed(arguments.rbegin(), arguments.rend());  // as CLI11 takes them
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& error) {
    return Status::Invalid(error.what(), " (", HelpHint(), ")");
  }
  help_requested_ = help;
  for (size_t i = 0; i < options_.size(); ++i) {
    const Option& option = options_[i];
    const int64_t given = option.value_name.empty() ? counts[i] : std::ssize(values[i]);
    if (given > 1 && !option.repeatable) {
      return Status::Invalid("--", option.name, " is given more than once");
    }
    if (option.value_name.empty()) {
      if (given > 0) given_.emplace_back(option.name, std::string());
    } else {
      for (std::string& value : values[i]) given_.emplace_back(option.name, std::move(value));
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
