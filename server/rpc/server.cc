#include "server/rpc/server.h"

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/server_builder.h"
#include "server/rpc/credentials.h"

namespace ligature {
namespace {

// The token store of `path` (null for none); a failure is kept for Start to report.
std::unique_ptr<TokenStore> LoadTokens(const std::string& path, absl::Status* status) {
  if (path.empty()) return nullptr;
  auto store = TokenStore::Load(path);
  if (!store.ok()) {
    *status = store.status();
    return nullptr;
  }
  return *std::move(store);
}

}  // namespace

Server::Server(const ServerOptions& options)
    : options_(options),
      manager_(options.worlds),
      tokens_(LoadTokens(options.token_file, &tokens_status_)),
      edit_limiter_(options.max_edits_per_second),
      world_service_(&manager_, tokens_.get()),
      scene_service_(&manager_, &edit_limiter_, tokens_.get()),
      session_service_(&manager_, &stopping_, &session_counters_, tokens_.get()),
      haptics_service_(&manager_, &stopping_, tokens_.get()),
      asset_service_(&manager_, tokens_.get()),
      query_service_(&manager_, tokens_.get()) {}

absl::Status Server::ReloadTokens() {
  if (tokens_ == nullptr) return absl::FailedPreconditionError("no token file");
  return tokens_->Reload();
}

Server::~Server() { Shutdown(absl::ZeroDuration()); }

absl::Status Server::Start() {
  if (!tokens_status_.ok()) return tokens_status_;
  auto credentials =
      ServerCredentialsFor({options_.listen_address, options_.tls_cert, options_.tls_key,
                            options_.tls_client_ca, options_.allow_insecure},
                           "ligatured");
  if (!credentials.ok()) return credentials.status();
  // The haptic datagram port listens on the gRPC address's host.
  if (options_.haptic_datagram_port >= 0) {
    std::string host = HostOf(options_.listen_address);
    if (host == "0.0.0.0" || host == "::" || host == "*") host.clear();
    auto port = HapticDatagramPort::Start(host, options_.haptic_datagram_port,
                                          haptics_service_.datagram_counters());
    if (!port.ok()) return port.status();
    datagram_port_ = *std::move(port);
    haptics_service_.SetDatagramPort(datagram_port_.get());
  }
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options_.listen_address, *credentials, &port_);
  builder.SetMaxReceiveMessageSize(options_.max_message_bytes);
  builder.SetMaxSendMessageSize(options_.max_message_bytes);
  builder.RegisterService(&world_service_);
  builder.RegisterService(&scene_service_);
  builder.RegisterService(&session_service_);
  builder.RegisterService(&haptics_service_);
  builder.RegisterService(&asset_service_);
  builder.RegisterService(&query_service_);
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options_.listen_address));
  }
  if (!options_.publish.url.empty()) {
    auto publisher = FramePublisher::Start(options_.publish, &manager_, &session_service_.hubs(),
                                           &session_counters_.publish);
    if (!publisher.ok()) return publisher.status();
    publisher_ = *std::move(publisher);
  }
  server_->GetHealthCheckService()->SetServingStatus(true);
  return absl::OkStatus();
}

void Server::Shutdown(absl::Duration grace) {
  if (stopping_.exchange(true)) return;
  if (server_ != nullptr) server_->GetHealthCheckService()->SetServingStatus(false);
  manager_.Shutdown();
  if (server_ != nullptr) {
    server_->Shutdown(std::chrono::system_clock::now() + absl::ToChronoNanoseconds(grace));
  }
}

void Server::Wait() {
  if (server_ != nullptr) server_->Wait();
}

}  // namespace ligature
