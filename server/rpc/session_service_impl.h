#pragma once
// SessionService: frame and event streams to watchers and device poses in from
// interactive clients.

#include <atomic>

#include "ligature/v1/session_service.grpc.pb.h"
#include "server/host/world_manager.h"
#include "server/rpc/auth.h"
#include "server/rpc/session_counters.h"
#include "server/rpc/watch_hub.h"

namespace ligature {

// Watch is a callback reactor that writes bytes its world's hub encoded once per view for
// every stream; Interact is a callback reactor, since it reads and writes at once;
// WatchEvents is a synchronous handler (one thread per stream, which only ever blocks itself).
class SessionServiceImpl final
    : public v1::SessionService::WithRawCallbackMethod_Watch<
          v1::SessionService::WithCallbackMethod_Interact<v1::SessionService::Service>> {
 public:
  // `stopping` turns true when the server shuts down; streams then end with UNAVAILABLE.
  // `counters` (owned by the caller) count the streams and their frames.
  // `tokens` (may be null: no authentication) decides who may watch and drive.
  SessionServiceImpl(WorldManager* manager, const std::atomic<bool>* stopping,
                     SessionCounters* counters, const TokenStore* tokens = nullptr)
      : manager_(manager),
        stopping_(stopping),
        counters_(counters),
        tokens_(tokens),
        hubs_(stopping) {}

  grpc::ServerWriteReactor<grpc::ByteBuffer>* Watch(grpc::CallbackServerContext* ctx,
                                                    const grpc::ByteBuffer* request) override;
  grpc::ServerBidiReactor<v1::InteractRequest, v1::Frame>* Interact(
      grpc::CallbackServerContext* ctx) override;
  grpc::Status WatchEvents(grpc::ServerContext* ctx, const v1::WatchEventsRequest* req,
                           grpc::ServerWriter<v1::WorldEvents>* writer) override;

  // The hubs of the watched worlds, which the frame publisher also takes frames from.
  WatchHubs& hubs() { return hubs_; }

 private:
  WorldManager* manager_;
  const std::atomic<bool>* stopping_;
  SessionCounters* counters_;
  const TokenStore* tokens_;
  WatchHubs hubs_;
};

}  // namespace ligature
