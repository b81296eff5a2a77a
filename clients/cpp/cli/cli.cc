#include "clients/cpp/cli/cli.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "clients/cpp/cli/args.h"
#include "clients/cpp/cli/command.h"
#include "clients/cpp/cli/value_parse.h"

namespace ligature::client::cli {

namespace {

// Flags every command accepts. Never freed, as static objects should not be destroyed.
const std::vector<FlagSpec>& GlobalFlags() {
  static const std::vector<FlagSpec>* const flags =
      new std::vector<FlagSpec>{{"server"},  {"timeout"},  {"tls", false}, {"tls-ca"},
                                 {"tls-cert"}, {"tls-key"}, {"token"},      {"help", false}};
  return *flags;
}

// Every command, in the order of the help text. Built once and never freed.
const std::vector<Command>& AllCommands() {
  static const std::vector<Command>* const commands = [] {
    auto* all = new std::vector<Command>();
    for (auto group : {WorldCommands, WatchCommands, BodyCommands, SceneCommands, AssetCommands,
                       QueryCommands, UrdfCommands}) {
      for (Command& command : group()) all->push_back(std::move(command));
    }
    return all;
  }();
  return *commands;
}

// The command whose words start `args` at `start`, preferring the longest match.
const Command* FindCommand(const std::vector<std::string>& args, size_t start) {
  const Command* best = nullptr;
  for (const Command& command : AllCommands()) {
    if (start + command.words.size() > args.size()) continue;
    if (!std::equal(command.words.begin(), command.words.end(), args.begin() + start)) {
      continue;
    }
    if (best == nullptr || command.words.size() > best->words.size()) best = &command;
  }
  return best;
}

// Global flags that take a value (so that one given before the command takes its value).
bool GlobalFlagTakesValue(absl::string_view token) {
  for (const FlagSpec& spec : GlobalFlags()) {
    if (spec.takes_value && token == absl::StrCat("--", spec.name)) return true;
  }
  return false;
}

// "--help" and "-h" ask for the help text wherever they appear before a "--".
bool IsHelpToken(absl::string_view token) { return token == "--help" || token == "-h"; }

// Splits a synopsis into words, keeping bracketed groups such as "[--kind a|b]" whole.
std::vector<std::string> SynopsisWords(absl::string_view synopsis) {
  std::vector<std::string> words;
  std::string word;
  int depth = 0;
  for (char c : synopsis) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ' ' && depth == 0) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word.push_back(c);
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

// Wraps a synopsis for the help text: lines start with `indent` and continuation lines
// with `indent` plus six spaces, deeper than the summary line that follows.
std::string WrapSynopsis(absl::string_view synopsis, absl::string_view indent) {
  constexpr size_t kWidth = 88;
  std::string text(indent);
  size_t line_length = indent.size();
  bool line_empty = true;
  for (const std::string& word : SynopsisWords(synopsis)) {
    if (!line_empty && line_length + 1 + word.size() > kWidth) {
      absl::StrAppend(&text, "\n", indent, "      ");
      line_length = indent.size() + 6;
      line_empty = true;
    }
    if (!line_empty) {
      text.push_back(' ');
      ++line_length;
    }
    text += word;
    line_length += word.size();
    line_empty = false;
  }
  return text;
}

int ReportUsageError(std::ostream& err, absl::string_view message, const Command* command) {
  err << "error: " << message << "\n";
  if (command != nullptr) {
    err << "usage: ligature " << CommandSynopsis(*command) << " [--server ADDR]\n"
        << "Run 'ligature help' for all commands.\n";
  } else {
    err << "\n" << UsageText();
  }
  return 2;
}

// A likely cause of a connection that failed with `status`, given the credentials used; ""
// when there is nothing to add. gRPC reports a failed TLS handshake only as UNAVAILABLE.
std::string ConnectionHint(const absl::Status& status, const Credentials& credentials) {
  if (status.code() != absl::StatusCode::kUnavailable) return "";
  if (absl::StrContains(status.message(), "certificate verify failed")) {
    return credentials.ca_file.empty()
               ? "the server's certificate is not signed by a CA the system trusts: give "
                 "its CA with --tls-ca"
               : "the server's certificate is not signed by the CA of --tls-ca (or does not "
                 "name the address)";
  }
  if (!absl::StrContains(status.message(), "Socket closed")) return "";
  if (!credentials.tls) return "the server closed the connection: it may require --tls";
  if (credentials.cert_file.empty()) {
    return "the server closed the connection during the TLS handshake: it may require a "
           "client certificate (--tls-cert and --tls-key)";
  }
  return "the server closed the connection during the TLS handshake: it may not accept "
         "this client certificate";
}

int ReportError(std::ostream& err, const absl::Status& status, const Credentials& credentials) {
  err << "error: " << absl::StatusCodeToString(status.code()) << ": " << status.message() << "\n";
  if (const std::string hint = ConnectionHint(status, credentials); !hint.empty()) {
    err << "hint: " << hint << "\n";
  }
  return 1;
}

// Where to connect and the per-call deadline, from the global flags.
absl::Status ApplyGlobalFlags(const ParsedArgs& args, Invocation& invocation) {
  if (const std::string* server = args.Find("server")) {
    if (server->empty()) return UsageError("--server: expected an address");
    invocation.server = *server;
  }
  if (const std::string* timeout = args.Find("timeout")) {
    absl::StatusOr<double> seconds = ParseNumber(*timeout);
    if (!seconds.ok() || *seconds <= 0) {
      return UsageError("--timeout: expected a number of seconds > 0");
    }
    invocation.client_options.rpc_timeout = absl::Seconds(*seconds);
  }
  Credentials& credentials = invocation.credentials;
  credentials.tls = args.Has("tls");
  for (auto [flag, field] : {std::pair{"tls-ca", &credentials.ca_file},
                             std::pair{"tls-cert", &credentials.cert_file},
                             std::pair{"tls-key", &credentials.key_file}}) {
    const std::string* value = args.Find(flag);
    if (value == nullptr) continue;
    if (value->empty()) return UsageError(absl::StrCat("--", flag, ": expected a file"));
    if (!credentials.tls) return UsageError(absl::StrCat("--", flag, " needs --tls"));
    *field = *value;
  }
  if (credentials.cert_file.empty() != credentials.key_file.empty()) {
    return UsageError("--tls-cert and --tls-key go together");
  }
  if (const std::string* token = args.Find("token")) {
    if (token->empty()) return UsageError("--token: expected a token");
    credentials.token = *token;
  } else if (const char* from_env = std::getenv(kTokenEnvironmentVariable)) {
    credentials.token = from_env;
  }
  if (absl::Status s = CheckToken(credentials.token); !s.ok()) {
    return UsageError(absl::StrCat(args.Has("token") ? "--token" : kTokenEnvironmentVariable,
                                   ": ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace

std::string UsageText() {
  std::string text =
      "usage: ligature <command> [arguments] [flags]\n"
      "\n"
      "Commands:\n";
  for (const Command& command : AllCommands()) {
    absl::StrAppend(&text, WrapSynopsis(CommandSynopsis(command), "  "), "\n      ",
                    command.summary, "\n");
  }
  absl::StrAppend(&text,
                  "  help\n"
                  "      Print this help.\n"
                  "\n"
                  "Flags of every command:\n"
                  "  --server ADDR      server address (default ",
                  kDefaultServer,
                  ")\n"
                  "  --timeout SECONDS  deadline of each call (default: none; not applied to "
                  "watch)\n"
                  "  --tls              connect with TLS (default: plaintext)\n"
                  "  --tls-ca FILE      PEM CA certificates to trust (default: the system's)\n"
                  "  --tls-cert FILE    PEM client certificate, for mutual TLS (with --tls-key)\n"
                  "  --tls-key FILE     PEM private key of --tls-cert\n"
                  "  --token TOKEN      bearer token sent on every call (default: $",
                  kTokenEnvironmentVariable,
                  ", if set)\n"
                  "  --help             print this help\n"
                  "\n"
                  "W is a world id or name (ID or worlds/ID).\n"
                  "SHAPE is sphere:R, box:HX,HY,HZ, capsule:R,HALF or plane (metres).\n"
                  "--scene takes a scene file (an existing path, or a name ending in "
                  ".textproto,\n"
                  ".txtpb, .pbtxt or .json) or else the name of a built-in scene.\n"
                  "--quat is normalised before it is sent.\n");
  return text;
}

// Finds the command (global flags may come before it), parses its arguments, runs it, and
// maps the outcome to an exit code.
int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  // Global flags before the command words, e.g. "ligature --server h:1 worlds list".
  std::vector<std::string> leading;
  size_t start = 0;
  while (start < args.size() && absl::StartsWith(args[start], "-")) {
    const std::string& token = args[start];
    if (IsHelpToken(token)) {
      out << UsageText();
      return 0;
    }
    leading.push_back(token);
    const bool takes_value = GlobalFlagTakesValue(token);
    if (takes_value && start + 1 < args.size()) leading.push_back(args[++start]);
    ++start;
  }
  if (start == args.size()) return ReportUsageError(err, "no command given", nullptr);
  if (args[start] == "help") {
    out << UsageText();
    return 0;
  }

  const Command* command = FindCommand(args, start);
  if (command == nullptr) {
    const bool is_group = std::any_of(
        AllCommands().begin(), AllCommands().end(),
        [&](const Command& c) { return c.words.size() > 1 && c.words[0] == args[start]; });
    return ReportUsageError(err,
                            is_group
                                ? absl::StrCat("missing or unknown ", args[start], " subcommand")
                                : absl::StrCat("unknown command \"", args[start], "\""),
                            nullptr);
  }

  // Arguments of the command: the leading global flags plus everything after its words.
  std::vector<std::string> rest = leading;
  rest.insert(rest.end(), args.begin() + start + command->words.size(), args.end());
  for (const std::string& token : rest) {
    if (token == "--") break;
    if (IsHelpToken(token)) {
      out << UsageText();
      return 0;
    }
  }
  std::vector<FlagSpec> specs = command->flags;
  specs.insert(specs.end(), GlobalFlags().begin(), GlobalFlags().end());
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(rest, specs);
  if (!parsed.ok()) return ReportUsageError(err, parsed.status().message(), command);
  if (parsed->positional.size() != command->positional.size()) {
    const std::string expected =
        command->positional.empty()
            ? std::string("no arguments")
            : absl::StrCat("arguments ", absl::StrJoin(command->positional, " "));
    return ReportUsageError(
        err, absl::StrFormat("expected %s, got %d", expected, parsed->positional.size()), command);
  }

  Invocation invocation{*std::move(parsed), kDefaultServer, {}, {}, out, err};
  absl::Status status = ApplyGlobalFlags(invocation.args, invocation);
  if (status.ok()) status = command->run(invocation);
  out.flush();
  if (status.ok()) return 0;
  if (IsUsageError(status)) return ReportUsageError(err, status.message(), command);
  return ReportError(err, status, invocation.credentials);
}

}  // namespace ligature::client::cli
