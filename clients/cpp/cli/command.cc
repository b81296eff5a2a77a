#include "clients/cpp/cli/command.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_join.h"

namespace ligature::client::cli {

namespace {
// Payload key that marks a status as a usage error; its value is irrelevant.
constexpr absl::string_view kUsagePayload = "type.ligature.dev/cli.UsageError";
}  // namespace

std::string CommandSynopsis(const Command& command) {
  std::string synopsis = absl::StrJoin(command.words, " ");
  for (const std::string& name : command.positional) absl::StrAppend(&synopsis, " ", name);
  if (!command.flags_synopsis.empty()) absl::StrAppend(&synopsis, " ", command.flags_synopsis);
  return synopsis;
}

absl::Status UsageError(absl::string_view message) {
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kUsagePayload, absl::Cord("1"));
  return status;
}

bool IsUsageError(const absl::Status& status) {
  return status.GetPayload(kUsagePayload).has_value();
}

absl::StatusOr<std::unique_ptr<Client>> Connect(const Invocation& invocation) {
  return Client::Connect(invocation.server, invocation.credentials, invocation.client_options);
}

absl::StatusOr<std::string> Verbatim(absl::string_view text) { return std::string(text); }

}  // namespace ligature::client::cli
