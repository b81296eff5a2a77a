#pragma once
// Sends a world's contact and trigger events to one client: the ticks' events that pass
// its filter, in order, with a count of those lost when it fell too far behind. A slow
// client blocks only its own thread, never the world.

#include <atomic>
#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ligature/v1/events.pb.h"
#include "ligature/v1/session_service.pb.h"
#include "server/host/event_log.h"
#include "server/host/world_host.h"
#include "server/rpc/session_counters.h"

namespace ligature {

// A request's filter, checked against the world: INVALID_ARGUMENT naming the field, or
// NOT_FOUND for a body that is not in the world.
absl::StatusOr<EventFilter> MakeEventFilter(const WorldHost& host,
                                            const v1::WatchEventsRequest& req);

// The events of `tick` that pass `filter`, as the message for world `world`.
void TickEventsToProto(const std::string& world, const TickEvents& tick, const EventFilter& filter,
                       v1::WorldEvents* out);

// Streams until `write` fails (client gone), `should_stop` returns a non-OK status, or the
// world closes. Returns the status the RPC should end with.
absl::Status StreamEvents(WorldHost& host, const EventFilter& filter,
                          const std::function<bool(const v1::WorldEvents&)>& write,
                          const std::function<absl::Status()>& should_stop,
                          const std::atomic<bool>& server_stopping, EventStreamCounters* counters);

}  // namespace ligature
