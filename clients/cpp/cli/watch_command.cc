// The watch and events commands: stream a world's frames, or its contact and trigger
// events, one line each.

#include <optional>
#include <ostream>
#include <utility>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "google/protobuf/util/json_util.h"
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

// "begin,trigger_enter" -> the event kinds (a contact kind may drop its "contact_").
absl::StatusOr<std::vector<v1::EventKind>> ParseKinds(absl::string_view text) {
  LIGATURE_ASSIGN_OR_RETURN(const std::vector<std::string> names, ParseIdList(text));
  std::vector<v1::EventKind> kinds;
  for (const std::string& name : names) {
    v1::EventKind kind;
    const std::string upper = absl::AsciiStrToUpper(name);
    if (!v1::EventKind_Parse(upper, &kind) &&
        !v1::EventKind_Parse(absl::StrCat("CONTACT_", upper), &kind)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown event kind ", name,
          " (begin, persist, end, trigger_enter, trigger_exit)"));
    }
    kinds.push_back(kind);
  }
  return kinds;
}

// One line per event: tick, kind, bodies and, for contacts, impulse and speed of impact.
void PrintEventsText(const v1::WorldEvents& events, std::ostream& out) {
  if (events.dropped() > 0) {
    out << "tick " << events.tick() << " dropped " << events.dropped() << " events\n";
  }
  for (const v1::ContactEvent& c : events.contacts()) {
    out << absl::StrFormat("tick %d %s %s %s impulse %.4g N s speed %.3g m/s points %d\n",
                           events.tick(), absl::AsciiStrToLower(v1::EventKind_Name(c.kind())),
                           c.body_a(), c.body_b(), c.normal_impulse(), c.normal_speed(),
                           c.point_count());
  }
  for (const v1::TriggerEvent& t : events.triggers()) {
    out << absl::StrFormat("tick %d %s %s shape %d %s\n", events.tick(),
                           absl::AsciiStrToLower(v1::EventKind_Name(t.kind())), t.sensor(),
                           t.sensor_shape(), t.body());
  }
}

// events: as watch, for WatchEvents; the stream's first, empty message is not printed.
absl::Status Events(const Invocation& invocation) {
  EventWatchOptions options;
  options.world = invocation.args.positional[0];
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<double> seconds,
                            OptionalFlag(invocation, "for", ParsePositiveSeconds));
  if (seconds.has_value()) options.duration = absl::Seconds(*seconds);
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<std::vector<std::string>> bodies,
                            OptionalFlag(invocation, "bodies", ParseIdList));
  if (bodies.has_value()) options.body_ids = *bodies;
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<std::vector<v1::EventKind>> kinds,
                            OptionalFlag(invocation, "kinds", ParseKinds));
  if (kinds.has_value()) options.kinds = *kinds;
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<double> min_impulse,
                            OptionalFlag(invocation, "min-impulse", ParseNumber));
  options.min_impulse = min_impulse.value_or(0.0);
  const bool json = invocation.args.Has("json");

  InterruptStopper interrupt;
  options.stop = interrupt.token();
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  bool first = true;
  absl::Status render_error;
  auto on_events = [&](const v1::WorldEvents& events) {
    if (std::exchange(first, false)) return true;
    if (json) {
      std::string line;
      if (auto s = google::protobuf::util::MessageToJsonString(events, &line); !s.ok()) {
        render_error = absl::InternalError(std::string(s.message()));
        return false;
      }
      invocation.out << line << std::endl;
    } else {
      PrintEventsText(events, invocation.out);
      invocation.out.flush();
    }
    return invocation.out.good();
  };
  LIGATURE_RETURN_IF_ERROR(connected->WatchEvents(options, on_events).status());
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
      {{"events"},
       {"W"},
       "[--for SECONDS] [--json] [--bodies id1,id2] [--kinds begin,end,...] [--min-impulse NS]",
       "Print contact and trigger events as they come, one line each (JSON lines with\n"
       "      --json); kinds: begin, persist, end, trigger_enter, trigger_exit (default all\n"
       "      but persist).",
       {{"for"}, {"json", false}, {"bodies"}, {"kinds"}, {"min-impulse"}},
       Events},
  };
}

}  // namespace ligature::client::cli
