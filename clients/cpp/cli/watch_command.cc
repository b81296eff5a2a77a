// The watch command: streams frames of a world, one line each.

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "clients/cpp/cli/command.h"
#include "clients/cpp/cli/interrupt.h"
#include "server/base/status_macros.h"
#include "clients/cpp/cli/value_parse.h"
#include "clients/cpp/client.h"
#include "clients/cpp/frame_format.h"

namespace ligature::client::cli {

namespace {

namespace v1 = ::ligature::v1;

absl::StatusOr<double> ParsePositiveSeconds(absl::string_view text) {
  absl::StatusOr<double> seconds = ParseNumber(text);
  if (seconds.ok() && *seconds <= 0) {
    return absl::InvalidArgumentError("expected a number of seconds > 0");
  }
  return seconds;
}

// watch: runs until --for elapses, the server ends the stream, or Ctrl-C. Ctrl-C cancels
// the stream and the command still succeeds. Each line is flushed so that the output can
// be piped; a closed output ends the watch.
absl::Status Watch(const Invocation& invocation) {
  WatchOptions options;
  options.world = invocation.args.positional[0];
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<double> rate,
                            OptionalFlag(invocation, "rate", ParseNumber));
  options.max_rate_hz = rate.value_or(0);
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<double> seconds,
                            OptionalFlag(invocation, "for", ParsePositiveSeconds));
  if (seconds.has_value()) options.duration = absl::Seconds(*seconds);
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<std::vector<std::string>> bodies,
                            OptionalFlag(invocation, "bodies", ParseIdList));
  if (bodies.has_value()) options.body_ids = *bodies;
  const bool json = invocation.args.Has("json");

  // Before the client: the channel's threads must inherit the blocked signals.
  InterruptStopper interrupt;
  options.stop = interrupt.token();
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  Client& client = *connected;

  absl::Status render_error;
  auto on_frame = [&](const v1::Frame& frame) {
    if (json) {
      absl::StatusOr<std::string> line = FormatFrameJson(frame);
      if (!line.ok()) {
        render_error = line.status();
        return false;
      }
      invocation.out << *line << std::endl;
    } else {
      invocation.out << FormatFrameText(frame) << std::endl;
    }
    return invocation.out.good();
  };
  LIGATURE_RETURN_IF_ERROR(client.Watch(options, on_frame).status());
  return render_error;
}

}  // namespace

std::vector<Command> WatchCommands() {
  return {
      {{"watch"},
       {"W"},
       "[--rate HZ] [--for SECONDS] [--json] [--bodies id1,id2]",
       "Print frames as they come, one line each (JSON lines with --json); runs until\n"
       "      --for elapses or Ctrl-C.",
       {{"rate"}, {"for"}, {"json", false}, {"bodies"}},
       Watch},
  };
}

}  // namespace ligature::client::cli
