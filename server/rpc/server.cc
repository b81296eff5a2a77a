#include "server/rpc/server.h"

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"

namespace ligature {

Server::Server(const ServerOptions& options)
    : options_(options),
      manager_(options.worlds),
      world_service_(&manager_),
      scene_service_(&manager_),
      session_service_(&manager_, &stopping_, &session_counters_),
      haptics_service_(&manager_, &stopping_) {}

Server::~Server() { Shutdown(absl::ZeroDuration()); }

absl::Status Server::Start() {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options_.listen_address, grpc::InsecureServerCredentials(), &port_);
  builder.SetMaxReceiveMessageSize(options_.max_message_bytes);
  builder.SetMaxSendMessageSize(options_.max_message_bytes);
  builder.RegisterService(&world_service_);
  builder.RegisterService(&scene_service_);
  builder.RegisterService(&session_service_);
  builder.RegisterService(&haptics_service_);
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options_.listen_address));
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
