#pragma once
// The shape of a `ligature` command and the helpers command bodies share: reading
// positional arguments and flags, and marking usage errors.

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "clients/cpp/cli/args.h"
#include "clients/cpp/client.h"

namespace ligature::client::cli {

// Everything a command body gets: its parsed arguments, where to connect and where to
// write.
struct Invocation {
  ParsedArgs args;
  std::string server;
  ClientOptions client_options;
  Credentials credentials;
  std::ostream& out;
  std::ostream& err;
};

// One command of the tool, e.g. {"worlds", "create"}.
struct Command {
  std::vector<std::string> words;
  std::vector<std::string> positional;  // names of the positional arguments, all required
  std::string flags_synopsis;           // e.g. "[--id ID] --scene FILE|NAME"
  std::string summary;                  // one line for the help text
  std::vector<FlagSpec> flags;          // command-specific flags (globals are added)
  absl::Status (*run)(const Invocation&);
};

// A client of `invocation.server` with its credentials and options; INVALID_ARGUMENT when a
// credential file cannot be used.
absl::StatusOr<std::unique_ptr<Client>> Connect(const Invocation& invocation);

// "worlds create W ..." as shown in usage text, without the program name.
std::string CommandSynopsis(const Command& command);

// A status that the tool reports as a usage error (exit code 2 and the command's usage).
absl::Status UsageError(absl::string_view message);
bool IsUsageError(const absl::Status& status);

// The value of flag `name` parsed with `parse`, or nullopt when the flag was not given. A
// value that does not parse is a usage error naming the flag.
template <typename T>
absl::StatusOr<std::optional<T>> OptionalFlag(const Invocation& invocation, absl::string_view name,
                                              absl::StatusOr<T> (*parse)(absl::string_view)) {
  const std::string* text = invocation.args.Find(name);
  if (text == nullptr) return std::optional<T>();
  absl::StatusOr<T> value = parse(*text);
  if (!value.ok()) return UsageError(absl::StrCat("--", name, ": ", value.status().message()));
  return std::optional<T>(*std::move(value));
}

// As OptionalFlag, but a missing flag is a usage error too.
template <typename T>
absl::StatusOr<T> RequiredFlag(const Invocation& invocation, absl::string_view name,
                               absl::StatusOr<T> (*parse)(absl::string_view)) {
  absl::StatusOr<std::optional<T>> value = OptionalFlag(invocation, name, parse);
  if (!value.ok()) return value.status();
  if (!value->has_value()) return UsageError(absl::StrCat("missing required flag --", name));
  return **std::move(value);
}

// Positional argument `index` (named `name` in errors) parsed with `parse`.
template <typename T>
absl::StatusOr<T> PositionalArg(const Invocation& invocation, size_t index, absl::string_view name,
                                absl::StatusOr<T> (*parse)(absl::string_view)) {
  absl::StatusOr<T> value = parse(invocation.args.positional.at(index));
  if (!value.ok()) return UsageError(absl::StrCat(name, ": ", value.status().message()));
  return value;
}

// A flag value or positional argument taken verbatim.
absl::StatusOr<std::string> Verbatim(absl::string_view text);

// The commands of each group, defined next to their bodies.
std::vector<Command> WorldCommands();
std::vector<Command> BodyCommands();
std::vector<Command> SceneCommands();
std::vector<Command> AssetCommands();
std::vector<Command> QueryCommands();
std::vector<Command> UrdfCommands();
std::vector<Command> WatchCommands();

}  // namespace ligature::client::cli
