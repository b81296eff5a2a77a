#include "server/gateway/gateway.h"

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/server_builder.h"

namespace ligature {

Gateway::~Gateway() {
  Shutdown(absl::ZeroDuration());
  Wait();
}

absl::Status Gateway::Start() {
  if (!options_.token_file.empty()) {
    auto tokens = TokenStore::Load(options_.token_file);
    if (!tokens.ok()) return tokens.status();
    tokens_ = *std::move(tokens);
  }
  auto credentials = ServerCredentialsFor(options_.serve, "ligature-gateway");
  if (!credentials.ok()) return credentials.status();
  auto frames = FrameSubscriber::Start(options_.frames, &subscriber_counters_);
  if (!frames.ok()) return frames.status();
  frames_ = *std::move(frames);
  service_ = std::make_unique<GatewaySessionService>(frames_.get(), &stopping_, &watch_counters_,
                                                     tokens_.get());
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options_.serve.listen_address, *credentials, &port_);
  builder.RegisterService(service_.get());
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("listen: cannot listen on ", options_.serve.listen_address));
  }
  server_->GetHealthCheckService()->SetServingStatus(frames_->connected());
  health_ = std::thread([this] { WatchBroker(); });
  return absl::OkStatus();
}

void Gateway::WatchBroker() {
  bool serving = frames_->connected();
  while (!stop_health_.WaitForNotificationWithTimeout(absl::Milliseconds(250))) {
    const bool connected = frames_->connected();
    if (connected != serving) server_->GetHealthCheckService()->SetServingStatus(connected);
    serving = connected;
  }
}

void Gateway::Shutdown(absl::Duration grace) {
  if (stopping_.exchange(true)) return;
  if (health_.joinable()) {
    stop_health_.Notify();
    health_.join();
  }
  if (server_ != nullptr) server_->GetHealthCheckService()->SetServingStatus(false);
  // Every world's streams end (UNAVAILABLE, since the gateway is stopping).
  if (frames_ != nullptr) frames_->EndAll(absl::UnavailableError("the gateway is shutting down"));
  if (server_ != nullptr) {
    server_->Shutdown(std::chrono::system_clock::now() + absl::ToChronoNanoseconds(grace));
  }
}

void Gateway::Wait() {
  if (server_ != nullptr) server_->Wait();
}

}  // namespace ligature
