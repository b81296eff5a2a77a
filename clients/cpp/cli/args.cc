#include "clients/cpp/cli/args.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace ligature::client::cli {

bool ParsedArgs::Has(absl::string_view name) const { return Find(name) != nullptr; }

const std::string* ParsedArgs::Find(absl::string_view name) const {
  auto it = flags.find(std::string(name));
  return it == flags.end() ? nullptr : &it->second;
}

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<FlagSpec>& specs) {
  ParsedArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& token = args[i];

    // Positional arguments, and everything after a bare "--".
    if (token == "--") {
      parsed.positional.insert(parsed.positional.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (!absl::StartsWith(token, "--")) {
      parsed.positional.push_back(token);
      continue;
    }

    // Split "--name=value" and look the name up.
    const absl::string_view body = absl::string_view(token).substr(2);
    const size_t equals = body.find('=');
    const std::string name(body.substr(0, equals));
    auto spec =
        std::find_if(specs.begin(), specs.end(), [&](const FlagSpec& s) { return s.name == name; });
    if (spec == specs.end()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    }
    if (parsed.Has(name)) {
      return absl::InvalidArgumentError(absl::StrCat("flag --", name, " given twice"));
    }

    // Take the value from after '=' or from the next token.
    std::string value;
    if (!spec->takes_value) {
      if (equals != absl::string_view::npos) {
        return absl::InvalidArgumentError(absl::StrCat("flag --", name, " takes no value"));
      }
      value = "true";
    } else if (equals != absl::string_view::npos) {
      value = std::string(body.substr(equals + 1));
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat("flag --", name, " needs a value"));
    }
    parsed.flags.emplace(name, std::move(value));
  }
  return parsed;
}

}  // namespace ligature::client::cli
