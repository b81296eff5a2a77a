#pragma once
// A viewer gateway: a stateless gRPC server that serves SessionService.Watch for the worlds
// whose frames ligatured publishes to a NATS broker, plus grpc.health.v1 (SERVING while the
// broker is connected) and reflection. Any number of gateways can serve one world's crowd;
// the world's server pays one publish a frame.

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "grpcpp/server.h"
#include "server/gateway/frame_subscriber.h"
#include "server/gateway/gateway_service.h"
#include "server/rpc/auth.h"
#include "server/rpc/credentials.h"
#include "server/rpc/session_counters.h"

namespace ligature {

struct GatewayOptions {
  static TlsOptions DefaultServe() {
    TlsOptions serve;
    serve.listen_address = "127.0.0.1:50061";
    return serve;
  }

  FrameSubscriberOptions frames;
  // listen_address and TLS, as ligatured's; without TLS only loopback unless allow_insecure.
  TlsOptions serve = DefaultServe();
  std::string token_file;  // bearer tokens (auth.h); empty: no authentication
};

class Gateway {
 public:
  explicit Gateway(GatewayOptions options) : options_(std::move(options)) {}
  ~Gateway();

  // Subscribes, binds and starts serving; reports the bound port (useful with port 0).
  absl::Status Start();
  int port() const { return port_; }
  bool broker_connected() const { return frames_ != nullptr && frames_->connected(); }
  const StreamCounters& watch() const { return watch_counters_; }
  const SubscriberCounters& subscriber() const { return subscriber_counters_; }
  FrameSubscriber::Worlds worlds() const {
    return frames_ != nullptr ? frames_->worlds() : FrameSubscriber::Worlds{};
  }

  // Health goes NOT_SERVING, every stream ends with UNAVAILABLE, then the server stops.
  void Shutdown(absl::Duration grace = absl::Seconds(2));
  void Wait();

 private:
  // Health follows the broker's connection, looked at every quarter second.
  void WatchBroker();

  const GatewayOptions options_;
  std::atomic<bool> stopping_{false};
  StreamCounters watch_counters_;
  SubscriberCounters subscriber_counters_;
  std::unique_ptr<TokenStore> tokens_;
  std::unique_ptr<FrameSubscriber> frames_;
  std::unique_ptr<GatewaySessionService> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  absl::Notification stop_health_;
  std::thread health_;
};

}  // namespace ligature
