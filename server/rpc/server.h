#pragma once
// The gRPC server: the three ligature.v1 services, grpc.health.v1 and reflection, over one
// WorldManager.

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "grpcpp/server.h"
#include "server/host/world_manager.h"
#include "server/rpc/asset_service_impl.h"
#include "server/rpc/auth.h"
#include "server/rpc/frame_publisher.h"
#include "server/rpc/haptic_datagram_port.h"
#include "server/rpc/haptics_service_impl.h"
#include "server/rpc/query_service_impl.h"
#include "server/rpc/scene_service_impl.h"
#include "server/rpc/session_counters.h"
#include "server/rpc/session_service_impl.h"
#include "server/rpc/world_service_impl.h"

namespace ligature {

struct ServerOptions {
  std::string listen_address = "127.0.0.1:50051";
  WorldManagerOptions worlds;
  int max_message_bytes = 64 << 20;  // larger requests get RESOURCE_EXHAUSTED
  double max_edits_per_second = 0.0;  // per client (host); 0: no limit
  // Bearer tokens with per-world roles (auth.h); empty: no authentication.
  std::string token_file;
  // TLS: PEM files of the server's certificate chain and key; with a client CA, clients must
  // present a certificate it signed (mutual TLS). Without TLS the server listens only on a
  // loopback address unless allow_insecure.
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;
  bool allow_insecure = false;
  // UDP port of the haptic datagram channel, on the listen address's host: 0 any free
  // port (sessions are told which), -1 none (sessions run on their streams).
  int haptic_datagram_port = 0;
  // Frames of chosen worlds published to NATS for gateways (no url: none).
  FramePublisherOptions publish;
};

class Server {
 public:
  explicit Server(const ServerOptions& options);
  ~Server();

  // Binds and starts serving; reports the bound port (useful with port 0).
  absl::Status Start();
  int port() const { return port_; }
  // The haptic datagram port (0 when there is none).
  int datagram_port() const { return datagram_port_ ? datagram_port_->port() : 0; }
  WorldManager& worlds() { return manager_; }
  // Re-reads the token file (SIGHUP); on failure the old tokens stay.
  absl::Status ReloadTokens();
  // Counters of the frame streams, read by the metrics exporter.
  const SessionCounters& sessions() const { return session_counters_; }
  const HapticCounters& haptics() const { return haptics_service_.counters(); }

  // Health goes NOT_SERVING, worlds close (streams end with UNAVAILABLE), then the server
  // stops, letting in-flight unary calls finish for up to `grace`.
  void Shutdown(absl::Duration grace = absl::Seconds(2));
  void Wait();

 private:
  ServerOptions options_;
  WorldManager manager_;
  std::atomic<bool> stopping_{false};
  SessionCounters session_counters_;
  absl::Status tokens_status_;            // why the token file could not be loaded
  std::unique_ptr<TokenStore> tokens_;    // null: no authentication
  EditRateLimiter edit_limiter_;
  WorldServiceImpl world_service_;
  SceneServiceImpl scene_service_;
  SessionServiceImpl session_service_;
  HapticsServiceImpl haptics_service_;
  AssetServiceImpl asset_service_;
  QueryServiceImpl query_service_;
  // Before server_, so that it outlives every haptic stream (they unregister at their end).
  std::unique_ptr<HapticDatagramPort> datagram_port_;
  // Before server_: it stops (and leaves the worlds' hubs) after the streams.
  std::unique_ptr<FramePublisher> publisher_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace ligature
