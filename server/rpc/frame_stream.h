#pragma once
// Sends a world's frames to one client at a bounded rate, always the newest frame: a slow
// client skips frames instead of building a backlog, and its stream blocks only its own
// thread, never the world.

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ligature/v1/frame.pb.h"
#include "ligature/v1/session_service.pb.h"
#include "server/host/world_host.h"
#include "server/rpc/frame_filter.h"
#include "server/rpc/session_counters.h"

namespace ligature {

struct FrameStreamOptions {
  double max_rate_hz = 0.0;               // 0: the world's rate
  absl::flat_hash_set<std::string> only;  // body ids; empty: all
  FrameFilterOptions filter;              // region and delta frames (its `only` unused)
};

// Validates a watch request's rate and body filter against the world's newest frame.
absl::StatusOr<FrameStreamOptions> MakeFrameStreamOptions(
    const Frame& latest, double max_rate_hz,
    const google::protobuf::RepeatedPtrField<std::string>& body_ids);

// Adds a watch request's region and delta settings; INVALID_ARGUMENT naming the field.
absl::Status AddWatchFilter(const v1::WatchRequest& req, FrameStreamOptions* options);

// The message a stream sends of `frame`: its `only` bodies, then what `filter` selects (a
// stream's own filter, carrying its delta state; null when it has none).
void BuildFrameMessage(const Frame& frame, const FrameStreamOptions& options, FrameFilter* filter,
                       v1::Frame* message);

// Streams whose messages of a frame are always the same bytes share a view: the same body
// subset and region, and no delta frames. Returns the view's key ("" for whole frames), or
// nullopt for a stream with delta frames, whose messages depend on what it sent before.
std::optional<std::string> SharedViewKey(const FrameStreamOptions& options);

// Streams until `write` fails (client gone), `should_stop` returns a non-OK status, or the
// world closes. Returns the status the RPC should end with. `counters` (may be null) count
// the open stream and the frames sent and skipped.
absl::Status StreamFrames(const WorldHost& host, const FrameStreamOptions& options,
                          const std::function<bool(const v1::Frame&)>& write,
                          const std::function<absl::Status()>& should_stop,
                          const std::atomic<bool>& server_stopping,
                          StreamCounters* counters = nullptr);

}  // namespace ligature
