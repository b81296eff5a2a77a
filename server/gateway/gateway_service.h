#pragma once
// SessionService as a viewer gateway serves it: Watch, from the frames the broker brings,
// with the same requests, checks, filters, rate limits and conflation as ligatured's. The
// other methods belong to the world's own server and answer UNIMPLEMENTED here.

#include <atomic>

#include "ligature/v1/session_service.grpc.pb.h"
#include "server/gateway/frame_subscriber.h"
#include "server/rpc/auth.h"
#include "server/rpc/session_counters.h"
#include "server/rpc/watch_hub.h"

namespace ligature {

class GatewaySessionService final
    : public v1::SessionService::WithRawCallbackMethod_Watch<v1::SessionService::Service> {
 public:
  // `stopping` turns true when the gateway shuts down; `counters` count the streams and
  // their frames; `tokens` (may be null: no authentication) decides who may watch.
  GatewaySessionService(const FrameSubscriber* frames, const std::atomic<bool>* stopping,
                        StreamCounters* counters, const TokenStore* tokens)
      : frames_(frames), counters_(counters), tokens_(tokens), hubs_(stopping) {}

  grpc::ServerWriteReactor<grpc::ByteBuffer>* Watch(grpc::CallbackServerContext* ctx,
                                                    const grpc::ByteBuffer* request) override;

 private:
  const FrameSubscriber* frames_;
  StreamCounters* counters_;
  const TokenStore* tokens_;
  WatchHubs hubs_;
};

}  // namespace ligature
