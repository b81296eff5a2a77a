#pragma once
// Command-line flag parsing for the `ligature` tool: "--name value", "--name=value" and
// boolean "--name", mixed with positional arguments.

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ligature::client::cli {

// A flag a command accepts; `name` has no leading dashes.
struct FlagSpec {
  std::string name;
  bool takes_value = true;
};

// The result of parsing: positional arguments in order and the flags given.
struct ParsedArgs {
  std::vector<std::string> positional;
  // Flag name -> value; boolean flags map to "true".
  std::map<std::string, std::string> flags;

  bool Has(absl::string_view name) const;
  // The value of flag `name`, or nullptr when it was not given.
  const std::string* Find(absl::string_view name) const;
};

// Parses `args` against `specs`. Tokens starting with "--" are flags and "--" alone ends
// flag parsing; other tokens (including negative numbers such as "-1") are positional. A
// value flag takes the next token as its value even when it starts with '-'. Unknown
// flags, repeated flags, missing values and values given to boolean flags are
// INVALID_ARGUMENT.
absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<FlagSpec>& specs);

}  // namespace ligature::client::cli
