#pragma once
// What the frame publisher and the viewer gateways share of NATS: their options checked, and
// a connection that reconnects for ever, every half second, and may connect only after
// start-up (the broker may come later).

#include <nats/nats.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ligature {

// INVALID_ARGUMENT naming nats_url or nats_subject_prefix unless `url` is nats://host:port
// and `subject_prefix` dot-separated tokens without spaces or wildcards.
absl::Status ValidateNatsOptions(const std::string& url, const std::string& subject_prefix);

// A connection to `url` (the caller closes and destroys it). `reconnect_buffer_bytes` bounds
// what publishes racing a disconnect hold (0: the client's default).
absl::StatusOr<natsConnection*> ConnectNats(const std::string& url, int reconnect_buffer_bytes = 0);

}  // namespace ligature
