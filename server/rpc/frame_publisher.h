#pragma once
// Publishes the whole frames of chosen worlds to a NATS server, one subject per world
// (<prefix>.<world id>), each message a serialized ligature.v1.Frame: the bytes a
// whole-frame Watch stream sends, encoded once, with the world's tick rate in a header.
// When a world is deleted, an empty message with the end header says so. A quiet world's
// newest frame (paused, or stepped on demand) goes out again every second, for gateways that
// started since. Gateways
// subscribed there can serve a world's viewers beyond what one server feeds, for one
// publish per frame here.
//
// It takes frames from each world's watch hub like a stream does (the newest only) and
// publishes them from a thread of its own, so a slow or absent broker holds up neither the
// world nor its viewers; the NATS client reconnects by itself, and frames it cannot take
// meanwhile are counted and dropped. A chosen world created, or created again, later is
// picked up within a tenth of a second.

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "server/host/world_manager.h"
#include "server/rpc/session_counters.h"
#include "server/rpc/watch_hub.h"

namespace ligature {

// The headers of a published message: the world's tick rate (Hz, decimal) on frames, and
// on the empty message after a world was deleted, its end.
inline constexpr char kFrameRateHeader[] = "Ligature-Rate-Hz";
inline constexpr char kFrameEndHeader[] = "Ligature-End";
inline constexpr char kFrameEndDeleted[] = "deleted";

struct FramePublisherOptions {
  std::string url;                  // nats://host:port; empty: no publishing
  std::vector<std::string> worlds;  // world ids, or just "*": every world, as they come
  std::string subject_prefix = "ligature.frames";
};

class FramePublisher {
 public:
  // Validates the options (INVALID_ARGUMENT naming the field) and starts publishing; a
  // broker that is not up yet is connected to when it comes.
  static absl::StatusOr<std::unique_ptr<FramePublisher>> Start(
      const FramePublisherOptions& options, WorldManager* worlds, WatchHubs* hubs,
      PublishCounters* counters);
  ~FramePublisher();  // stops the thread and closes the connection

  struct Shared;

 private:
  FramePublisher() = default;
  void Run();
  // With "*": slots for the worlds that have none yet, added to `detached`.
  void AddNewWorlds(std::vector<std::pair<size_t, std::string>>* detached);

  std::shared_ptr<Shared> shared_;
  std::thread thread_;
};

}  // namespace ligature
