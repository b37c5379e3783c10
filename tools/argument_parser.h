// ArgumentParser: the flags and positional arguments of one `sluice` command.
//
// Each command declares its options with their help text, parses its arguments (tokenized by
// CLI11, Debian's libcli11-dev), and reads typed values. Every mistake is an error that names the
// flag: an unknown flag, a missing value, a value that is not a number or a size, a flag given
// twice. `--help` (or -h) anywhere asks for the help text instead, which lists the options and the
// command's examples.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sluice/base/result.h"

namespace sluice::cli {

class ArgumentParser {
 public:
  /// `command` is the full name ("sluice write"), `usage` the synopsis after it, `summary` one
  /// paragraph on what it does, `examples` lines shown at the end of the help text.
  ArgumentParser(std::string command, std::string usage, std::string summary,
                 std::vector<std::string> examples);

  /// Declares `--name VALUE`. A repeatable option collects every value in order.
  void AddOption(std::string name, std::string value_name, std::string help,
                 bool repeatable = false);
  /// Declares `--name` without a value.
  void AddFlag(std::string name, std::string help);
  /// Declares the positional arguments, for the help text only: `name` and what it is.
  void AddPositional(std::string name, std::string help);

  /// Parses `arguments` (without the command's name). `--name=value` and `--name value` are
  /// both accepted; "-" alone and anything after "--" are positional.
  Status Parse(std::span<const std::string> arguments);

  /// Returns true when --help or -h was given.
  bool help_requested() const { return help_requested_; }
  /// Returns the help text: usage, summary, options, examples.
  std::string HelpText() const;
  /// Returns "see `<command> --help`", to end usage errors with.
  std::string HelpHint() const;

  const std::vector<std::string>& positionals() const { return positionals_; }

  /// Returns true when the flag or option was given.
  bool Has(const std::string& name) const;
  /// Returns the option's value, if given (the last one for a repeatable option).
  std::optional<std::string> Value(const std::string& name) const;
  /// Returns every value of a repeatable option.
  std::vector<std::string> Values(const std::string& name) const;
  /// Returns the option's value, or `fallback` when it was not given.
  std::string ValueOr(const std::string& name, const std::string& fallback) const;

  /// Returns the option's value as an integer in [minimum, maximum], or `fallback`.
  Result<int64_t> IntegerOr(const std::string& name, int64_t fallback, int64_t minimum,
                            int64_t maximum) const;
  /// Returns the option's value as a byte size ("256MiB"), or `fallback`.
  Result<int64_t> ByteSizeOr(const std::string& name, int64_t fallback) const;
  /// Returns an error naming the flag: "--name: <message>".
  Status FlagError(const std::string& name, const std::string& message) const;

 private:
  struct Option {
    std::string name;
    std::string value_name;  // empty for a flag
    std::string help;
    bool repeatable = false;
  };
  const Option* Find(const std::string& name) const;

  std::string command_;
  std::string usage_;
  std::string summary_;
  std::vector<std::string> examples_;
  std::vector<Option> options_;
  std::vector<std::pair<std::string, std::string>> positional_help_;

  bool help_requested_ = false;
  std::vector<std::string> positionals_;
  std::vector<std::pair<std::string, std::string>> given_;  // name, value in order
};

/// Parses an integer list "0,1,5" (each in [minimum, maximum]); errors name `flag`.
Result<std::vector<int64_t>> ParseIntegerList(const std::string& flag, const std::string& text,
                                              int64_t minimum, int64_t maximum);

/// Parses an integer; errors name `flag`.
Result<int64_t> ParseFlagInteger(const std::string& flag, const std::string& text, int64_t minimum,
                                 int64_t maximum);

}  // namespace sluice::cli
